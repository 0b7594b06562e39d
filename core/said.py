"""Errors said by a catalogue message (core.messages): ``str()`` is the English (the command
line's, the files'), :meth:`SaidError.said` the same in the reader's language (the window's)."""

from __future__ import annotations

from core.findings import Text


class SaidError(Exception):
    """A refusal whose words are catalogue message ``message_id`` with ``params``."""

    #: ``str()`` as a catalogue message; None: English only (a subclass raised with a text
    #: from elsewhere).
    text: Text | None = None

    def __init__(self, message_id: str, /, **params: object) -> None:
        self.text = Text.of(message_id, **params)
        super().__init__(self.text.en)

    def said(self, language_code: str | None = None) -> str:
        """The refusal in ``language_code`` (default: core.messages.language())."""
        return self.text.said(language_code) if self.text is not None else str(self)
