"""Reading the output the doctor explains: a file, a pipe, a FIFO or stdin for ``doctor
--explain`` and the window's "Open a log" (bounded: its end, never blocking for ever; a device or
a folder refused), and the text's bounds for the rules (:func:`bounded_text`)."""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from typing import BinaryIO

from core.bounded import Capped, read_open, read_stream_tail

#: An output is read up to this many characters, from its end (the error is at the end).
MAX_TEXT_CHARS = 4 * 1024 * 1024
#: A line is matched up to this many characters (TensorFlow's longest, with a search path in
#: it, are a few hundred).
MAX_LINE_CHARS = 4096
#: ``doctor --explain`` reads this much of a file or a stream: its end.
MAX_TEXT_BYTES = MAX_TEXT_CHARS
#: How long ``doctor --explain FIFO`` waits for a program to open the FIFO and write (``<(cmd)``
#: has one at once; a FIFO nobody writes to would block the read for ever).
FIFO_WAIT_SECONDS = 5.0


def bounded_text(text: str) -> str:
    """``text`` as the rules read it: its last :data:`MAX_TEXT_CHARS` characters (from a line's
    start), each line cut after :data:`MAX_LINE_CHARS` characters, saying how much was cut.
    Any text of the usual size is returned as it is."""
    if len(text) > MAX_TEXT_CHARS:
        text = _without_first_line(text[-MAX_TEXT_CHARS:])
    if len(text) <= MAX_LINE_CHARS:
        return text
    lines = text.splitlines(keepends=True)
    if max(map(len, lines)) <= MAX_LINE_CHARS:
        return text
    return "".join(line if len(line) <= MAX_LINE_CHARS else _cut_line(line) for line in lines)


def _without_first_line(text: str) -> str:
    """The end of a text that was cut: from its second line, unless it has only one."""
    first = text.find("\n")
    return text[first + 1:] if 0 <= first < len(text.rstrip("\n")) else text


def _cut_line(line: str) -> str:
    body = line.rstrip("\r\n")
    return (f"{body[:MAX_LINE_CHARS]} ... [{len(body) - MAX_LINE_CHARS:,} more characters]"
            + line[len(body):])


#: What ``doctor --explain`` says when it cannot read its source, by CaptureError.why.
_REFUSALS = {
    "unreadable": "cannot read {source}: {detail}. Save the output to a file, or pipe it in "
                  "with --explain -",
    "not-a-file": "{source} is not a file or a pipe (a folder or a device?): save the output "
                  "to a file, or pipe it in with --explain -",
    "silent-fifo": "{source} is a FIFO no program wrote to in {detail} s: start the program "
                   "that writes it first, or pipe the output in with --explain -",
}


class CaptureError(Exception):
    """The output cannot be read: the message says why and what to do on the command line.
    ``why`` ("unreadable", "not-a-file", "silent-fifo"), ``source`` and ``detail`` (the
    system's reason) let the window say it with its own remedy (open another file, paste)."""

    def __init__(self, why: str, source: str, detail: str = "") -> None:
        super().__init__(_REFUSALS[why].format(source=source, detail=detail))
        self.why, self.source, self.detail = why, source, detail


@dataclass(frozen=True)
class Captured:
    """The text to explain, and what was cut from it (None: nothing)."""

    text: str
    note: str | None = None


def read_captured(source: str) -> Captured:
    """The output ``doctor --explain SOURCE`` reads: a file, a pipe or a FIFO (``<(cmd)``), or
    ``-`` for stdin; its last :data:`MAX_TEXT_BYTES`. A device or a folder is refused, and a
    FIFO is waited for :data:`FIFO_WAIT_SECONDS` at most (POSIX): CaptureError."""
    if source == "-":
        return _captured("stdin", read_stream_tail(sys.stdin.buffer, MAX_TEXT_BYTES))
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(source, flags)  # non-blocking: a FIFO without a writer opens at once
        with open(fd, "rb", buffering=0) as file:
            mode = os.fstat(fd).st_mode
            if stat.S_ISREG(mode):
                return _captured(source, read_open(file, MAX_TEXT_BYTES, tail=True))
            if stat.S_ISFIFO(mode):
                return _captured(source, _read_fifo(file, source))
    except OSError as exc:
        if os.path.isdir(source):  # Windows refuses to open a folder: say what it is
            raise CaptureError("not-a-file", source) from None
        raise CaptureError("unreadable", source, str(exc.strerror or exc)) from None
    raise CaptureError("not-a-file", source)


def _read_fifo(file: BinaryIO, source: str) -> Capped:
    """A FIFO or pipe read to its end. Opened without blocking: a read that would block means
    a program writes to it (``<(cmd)``), and the reads then wait for it like stdin; an empty
    read means none opened it yet, and one is waited for a few seconds."""
    if sys.platform == "win32":  # a named pipe has its server already
        return read_stream_tail(file, MAX_TEXT_BYTES)
    fd = file.fileno()
    try:
        head = os.read(fd, 1 << 16)
    except BlockingIOError:
        head = b""
    else:
        if not head and not _writer_came(fd):
            raise CaptureError("silent-fifo", source, f"{FIFO_WAIT_SECONDS:g}")
    os.set_blocking(fd, True)
    return read_stream_tail(file, MAX_TEXT_BYTES, head)


def _writer_came(fd: int) -> bool:
    """Whether a writer opened the FIFO and wrote (or closed it) within the wait."""
    import select

    readable, _, _ = select.select([fd], [], [], FIFO_WAIT_SECONDS)
    return bool(readable)


def _captured(source: str, capped: Capped) -> Captured:
    """The text of what was read, as text mode reads it (any line end is ``\\n``), and a note
    on what was not read."""
    text = capped.data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    notes = []
    if capped.cut:
        text = _without_first_line(text)  # it was cut
        notes.append(f"{source} holds {_mib(capped.size)}: read its last "
                     f"{_mib(len(capped.data))} (an output's error is at its end)")
    long_lines = sum(len(line) > MAX_LINE_CHARS for line in text.split("\n"))
    if long_lines:
        notes.append(f"{long_lines:,} line{'s' if long_lines > 1 else ''} longer than "
                     f"{MAX_LINE_CHARS:,} characters read up to there")
    return Captured(text, "; ".join(notes) or None)


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size:,} bytes"
