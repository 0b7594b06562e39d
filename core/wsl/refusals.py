"""Why WSL cannot run what was asked, each said in one line that names the fix."""

from __future__ import annotations

from collections.abc import Sequence


class WslRefusal(Exception):
    """WSL cannot do what was asked; ``str()`` is one line that names the fix."""


class WslNotInstalled(WslRefusal):
    def __init__(self) -> None:
        super().__init__("WSL is not installed: run 'wsl --install' in a terminal opened as "
                         "administrator, then restart Windows")


class NoDistribution(WslRefusal):
    def __init__(self) -> None:
        super().__init__("WSL has no Linux distribution installed: install one with "
                         "'wsl --install -d Ubuntu-22.04'")


class UnknownDistribution(WslRefusal):
    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        super().__init__(f"no WSL distribution is named {name}; installed: "
                         f"{', '.join(known) or 'none'}")


class NoDefaultDistribution(WslRefusal):
    def __init__(self, known: Sequence[str]) -> None:
        super().__init__("WSL has no default distribution: name one (wsl://NAME/path; "
                         f"installed: {', '.join(known)}) or set it with 'wsl --set-default NAME'")


class Wsl1Distribution(WslRefusal):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"WSL distribution {name} runs as WSL 1, which has no GPU: convert it "
                         f"with 'wsl --set-version {name} 2'")


class WslUnreadable(WslRefusal):
    """wsl.exe answered with something TensorDeck cannot trust (or did not answer)."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what}; run 'wsl -l -v' in a terminal to see what WSL says")


class WslPathError(WslRefusal, ValueError):
    """A ``wsl://`` name or a path that cannot be reached from a distribution."""
