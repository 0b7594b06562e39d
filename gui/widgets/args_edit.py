"""A script's arguments as one line of text, quoted by this platform's command-line rules
(:mod:`core.cmdline`): on Windows ``C:\\data\\train`` keeps its backslashes."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtWidgets import QLineEdit

from core.cmdline import ArgsError, join_args, split_args


class ArgsEdit(QLineEdit):
    def set_args(self, args: Iterable[object]) -> None:
        self.setText(join_args(args))

    def args(self) -> list[str]:
        """The arguments. While the text does not split (an unclosed quote, see
        :meth:`problem`), its words between spaces, so a preview still shows something."""
        try:
            return split_args(self.text())
        except ArgsError:
            return self.text().split()

    def problem(self) -> str | None:
        """Why the text is not an argument list, or None."""
        try:
            split_args(self.text())
        except ArgsError as exc:
            return str(exc)
        return None

    def add_arg(self, arg: str) -> None:
        """Append one argument, quoted as it needs."""
        text = self.text().rstrip()
        self.setText((text + " " if text else "") + join_args([arg]))
