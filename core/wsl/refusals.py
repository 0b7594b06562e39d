"""Why WSL cannot run what was asked, each said in one line that names the fix.

Each refusal is a catalogue message (core.messages, ``wsl.*``): ``str()`` is its English (the
command line's, the files'), ``text`` says it in the window's language too."""

from __future__ import annotations

from collections.abc import Sequence

from core.findings import Text


class WslRefusal(Exception):
    """WSL cannot do what was asked; ``str()`` is one line that names the fix."""

    #: ``str()`` as a catalogue message; None: English only (a path refused by core.wsl.paths).
    text: Text | None = None

    def said(self, language_code: str | None = None) -> str:
        """The refusal in ``language_code`` (default: core.messages.language()) where it has a
        message id, else its English."""
        return self.text.said(language_code) if self.text is not None else str(self)


def _said(refusal: WslRefusal, message_id: str, /, **params: object) -> None:
    refusal.text = Text.of(message_id, **params)
    Exception.__init__(refusal, refusal.text.en)


def _names(known: Sequence[str]) -> str | Text:
    return ", ".join(known) or Text.of("env.none")


class WslNotInstalled(WslRefusal):
    def __init__(self) -> None:
        _said(self, "wsl.not_installed")


class NoDistribution(WslRefusal):
    def __init__(self) -> None:
        _said(self, "wsl.no_distribution")


class UnknownDistribution(WslRefusal):
    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        _said(self, "wsl.unknown_distribution", name=name, known=_names(known))


class NoDefaultDistribution(WslRefusal):
    def __init__(self, known: Sequence[str]) -> None:
        _said(self, "wsl.no_default", known=", ".join(known))


class Wsl1Distribution(WslRefusal):
    def __init__(self, name: str) -> None:
        self.name = name
        _said(self, "wsl.wsl1", name=name)


class WslUnreadable(WslRefusal):
    """wsl.exe answered with something TensorDeck cannot trust (or did not answer).
    ``what``: what it did, a catalogue message (or English text)."""

    def __init__(self, what: str | Text) -> None:
        _said(self, "wsl.unreadable", what=what)


class WslPathError(WslRefusal, ValueError):
    """A ``wsl://`` name or a path that cannot be reached from a distribution."""
