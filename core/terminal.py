"""The command line's stdout and stderr, which may be a terminal: text only.

A folder name, a job name, a path on the command line or a line of a file can hold escape
sequences (OSC 52 sets the clipboard, others retitle or redraw the terminal), and TensorDeck
prints such values in its messages, refusals, tracebacks and argparse's errors. So no message
is trusted to be clean: :func:`visible_streams` puts every line written to ``sys.stdout`` and
``sys.stderr`` through :func:`core.output.visible`, the one sanitizer (colours pass, every other
control character shows as an escape). Only TensorDeck's own drawing (the run's prefixes and
progress line, ``gpus --watch`` clearing the screen) writes to :func:`raw`, where it sanitizes
the text it shows itself.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TextIO

from core.output import visible


class VisibleText:
    """A text stream that writes every line of its text through :func:`visible` (newlines and
    TABs pass); anything else (``fileno``, ``isatty``, ``reconfigure``, ``buffer``) is the
    stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self.raw = stream

    def write(self, text: str) -> int:
        lines = text.split("\n")
        # A CR before a newline is a line end (a CRLF file's line), not a control to show.
        lines[:-1] = [line.removesuffix("\r") for line in lines[:-1]]
        self.raw.write("\n".join(visible(line) for line in lines))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self.raw, name)


def raw(stream: TextIO) -> TextIO:
    """The stream under a :class:`VisibleText` (``stream`` itself if it is none), for text that
    holds TensorDeck's own escape sequences and is sanitized already."""
    return stream.raw if isinstance(stream, VisibleText) else stream


@contextmanager
def visible_streams() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` as :class:`VisibleText` while the block runs (a
    windowed program's missing streams stay None). An exception leaves them so: Python prints
    its traceback, which may quote any value, after the block."""
    saved = sys.stdout, sys.stderr
    if saved[0] is not None and not isinstance(saved[0], VisibleText):
        sys.stdout = VisibleText(saved[0])  # type: ignore[assignment]
    if saved[1] is not None and not isinstance(saved[1], VisibleText):
        sys.stderr = VisibleText(saved[1])  # type: ignore[assignment]
    yield
    sys.stdout, sys.stderr = saved
