"""A config's problems: :class:`ConfigProblem` (where and what), :class:`ConfigError` (every
problem of one source) and how a place in the file is written (``tasks[1].count``). Apart from
the checks because every one of them (the file read, the JSON, the fields, what fields say
together) reports in these terms, and the callers catch them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.findings import Text
from core.messages import translate_text
from core.output import show

if TYPE_CHECKING:
    from core.config.records import JobConfig


@dataclass
class ConfigProblem:
    """One thing wrong with a config: where (``tasks[1].count``) and what (``message``: the
    English the command line and files say)."""

    where: str
    message: str
    #: ``message`` as a catalogue message, to say it in the window's language; None: a text
    #: from elsewhere (an OS error), or one whose English is read back (:meth:`said`).
    text: Text | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, where: str, text: Text) -> ConfigProblem:
        """The problem ``text`` says at ``where``, its message in English."""
        return cls(where, text.en, text)

    def said(self, language_code: str | None = None) -> str:
        """What is wrong in ``language_code`` (default: :func:`core.messages.language`): from its
        message id, else its English recognised (:func:`core.messages.translate_text`)."""
        if self.text is not None:
            return self.text.said(language_code)
        return translate_text(self.message, language_code)

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class ConfigError(Exception):
    """A config that cannot run. ``problems`` lists every problem found, each naming its field.
    When its fields were wrong: ``partial``, the config with those keys (``broken``) at their
    defaults, for the checks that can still be made (see :func:`core.config.parse_config`);
    when only what they say together was wrong, the config itself."""

    def __init__(self, source: str, problems: list[ConfigProblem], *,
                 partial: JobConfig | None = None, broken: frozenset[str] = frozenset()):
        self.source = source
        self.problems = problems
        self.partial = partial
        self.broken = broken
        super().__init__("\n".join(f"{source}: {p}" for p in problems))


def field_path(loc: tuple) -> str:
    """A place in the file as the messages name it (``tasks[1].count``) from its keys and
    indexes (pydantic's ``loc``); pydantic's validator steps are left out."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("function-after", "function-before", "function-plain", "[key]"):
            continue
        else:
            part = show(str(part), 40)  # a key from the file: one line, bounded
            out += f".{part}" if out else part
    return out
