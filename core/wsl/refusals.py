"""Why WSL cannot run what was asked, each said in one line that names the fix.

Each refusal is a catalogue message (core.messages, ``wsl.*``; core.said): ``str()`` is its
English (the command line's, the files'), ``said()`` says it in the window's language too."""

from __future__ import annotations

from collections.abc import Sequence

from core.findings import Text
from core.said import SaidError


class WslRefusal(SaidError):
    """WSL cannot do what was asked; ``str()`` is one line that names the fix."""


def _names(known: Sequence[str]) -> str | Text:
    return ", ".join(known) or Text.of("env.none")


class WslNotInstalled(WslRefusal):
    def __init__(self) -> None:
        super().__init__("wsl.not_installed")


class NoDistribution(WslRefusal):
    def __init__(self) -> None:
        super().__init__("wsl.no_distribution")


class UnknownDistribution(WslRefusal):
    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        super().__init__("wsl.unknown_distribution", name=name, known=_names(known))


class NoDefaultDistribution(WslRefusal):
    def __init__(self, known: Sequence[str]) -> None:
        super().__init__("wsl.no_default", known=", ".join(known))


class Wsl1Distribution(WslRefusal):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__("wsl.wsl1", name=name)


class WslUnreadable(WslRefusal):
    """wsl.exe answered with something TensorDeck cannot trust (or did not answer).
    ``what``: what it did, a catalogue message (or English text)."""

    def __init__(self, what: str | Text) -> None:
        super().__init__("wsl.unreadable", what=what)


class WslPathError(WslRefusal, ValueError):
    """A ``wsl://`` name or a path that cannot be reached from a distribution, said in
    English only (``said()`` too)."""

    def __init__(self, message: str) -> None:
        Exception.__init__(self, message)
