"""Turning a task's raw output bytes into display lines, and display lines into text that is
safe to show.

Progress bars (Keras, tqdm) redraw one line with ``\\r`` (Keras adds ``\\b`` runs before it):
only the last state of such a line is a line worth showing; the states before it are progress.
The log file gets the raw bytes, untouched; this is for the terminal and the window.

A task's text reaches the user's terminal, so it must not drive it: only colours and styles
(SGR, ``ESC [ ... m``) pass. Every other control character is shown as an escape (``\\x1b``,
``\\x07``, ``\\u009b``) and does nothing: OSC (clipboard, window title), cursor moves and
erases, DCS/APC/PM, C1 controls, BEL, stray backspaces and carriage returns, and the Unicode
line separators and bidi overrides that would break or reorder a line on screen (Qt breaks
lines at U+2028/U+2029, and at a bare CR too).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence

#: A "line" that never ends is cut here, so a task cannot grow TensorDeck's memory unboundedly.
MAX_LINE_CHARS = 64 * 1024

SGR_RESET = "\x1b[0m"
# C0 but TAB, DEL, C1, line/paragraph separators, bidi embeddings/overrides and isolates.
_CONTROLS = "\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[{_CONTROLS}]")
# SGR only: no private markers (``ESC [ > 4 ; 2 m`` sets keyboard modes), bounded length.
_SGR = "\x1b\\[[0-9;:]{0,64}m"
_COLOURS = re.compile(_SGR)
_LONE_ESC = re.compile(f"\x1b(?!{_SGR[1:]})")  # an ESC that does not start an SGR
_SHOWN = {
    chr(c): f"\\x{c:02x}" if c < 0x80 else f"\\u{c:04x}"
    for c in (*range(0x00, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029,
              *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}
_ASCII_CONTROLS = tuple(ch for ch in _SHOWN if ch < "\x80")
_ASCII_CONTROL_BYTES = "".join(_ASCII_CONTROLS).encode("ascii")
# Every control character but ESC as its escape, in one C-level pass (a regex calling back into
# Python for each would cost ~1 µs a character in a flood of them).
_ESCAPES = str.maketrans({ch: shown for ch, shown in _SHOWN.items() if ch != "\x1b"})


def control_character(text: str) -> str | None:
    """The first character of ``text`` a terminal, a shell or Qt would act on (TAB aside), as
    it is shown (``\\x0a``); None when there is none."""
    match = _UNSAFE.search(text)
    return _SHOWN[match.group()] if match else None


def show(text: str, limit: int | None = 60) -> str:
    """``text`` fit for a one-line message: control characters and lone surrogates escaped
    (a message never moves the cursor or fails to print), cut after ``limit`` characters."""
    cut = text if limit is None or len(text) <= limit else text[:limit]
    shown = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in cut)
    return shown + "..." if cut is not text else shown


def visible(text: str) -> str:
    """``text`` for a terminal: SGR kept (and reset at the end, so a colour or "conceal" left
    on cannot spill over the lines after it, another task's or TensorDeck's own), every other
    control character shown as an escape. Idempotent; plain text is returned as is (fast)."""
    if not _UNSAFE.search(text):
        return text
    shown = text.translate(_ESCAPES)  # an escape starts with "\\": it never makes an SGR
    if "\x1b" in shown:
        shown = _LONE_ESC.sub(r"\\x1b", shown)
    return shown + SGR_RESET if "\x1b" in shown else shown


def plain(text: str) -> str:
    """``text`` for a text widget, which renders no colours: SGR dropped, every other control
    character shown as an escape."""
    if not _UNSAFE.search(text):
        return text
    shown = text.translate(_ESCAPES)
    if "\x1b" not in shown:
        return shown
    return _COLOURS.sub("", shown).replace("\x1b", "\\x1b")


def _clean(text: str) -> bool:
    """Whether ``text`` holds no control character. ASCII text (most logs) is checked in C:
    a batch of a few lines (a pipe read of a flood: ~1 KiB) by one ``bytes.translate`` pass,
    a longer one by one ``in`` (memchr) per control character; each is 2x faster than the
    other on its size, and 4-8x faster than the regex."""
    if not text.isascii():
        return _UNSAFE.search(text) is None
    if len(text) < 8192:
        data = text.encode("ascii")
        return len(data.translate(None, _ASCII_CONTROL_BYTES)) == len(data)
    return not any(ch in text for ch in _ASCII_CONTROLS)


def _batch(lines: Sequence[str], one) -> Sequence[str]:
    # One check of the whole batch: most hold no control character at all. TAB joins the
    # lines because it is the one control character that is safe.
    if _clean("\t".join(lines)):
        return lines
    return [one(line) for line in lines]


def visible_lines(lines: Sequence[str]) -> Sequence[str]:
    """:func:`visible` for a batch of lines (the batch itself when nothing needs changing)."""
    return _batch(lines, visible)


def plain_lines(lines: Sequence[str]) -> Sequence[str]:
    """:func:`plain` for a batch of lines (the batch itself when nothing needs changing)."""
    return _batch(lines, plain)


def _last_state(segment: str) -> str:
    """The visible text of a line redrawn with ``\\r``: its last non-empty state (a trailing
    ``\\r`` is a CRLF line end, not a redraw). Keras redraws its bar with a run of backspaces
    then ``\\r``: a state ended by ``\\r`` loses its trailing backspaces. One pass over the
    text (a flood of ``\\b`` or ``\\r`` costs what its length costs)."""
    if "\r" not in segment:
        return segment
    *ended, current = segment.split("\r")
    return current or _last_ended(ended)


def _last_ended(states: list[str]) -> str:
    """The last non-empty of the states a ``\\r`` ended, without its backspaces; "" if none."""
    for state in reversed(states):
        state = state.rstrip("\b")
        if state:
            return state
    return ""


class LineSplitter:
    """Incremental bytes -> (complete lines, current progress line or None). A ``\\r`` never
    survives: TensorDeck shows a line's last state, prefixed, so a task cannot use one to
    overwrite its prefix or another line.

    Linear in its input, however it is cut into reads: the unfinished line is kept in pieces
    and joined once, when it ends or a ``\\r`` redraws it."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._between_characters = True  # the decoder holds no part of a character
        self._pieces: list[str] = []  # the unfinished line's current state
        self._size = 0  # its length
        self._redrawn = False  # a \r came in the unfinished line
        self._ended = ""  # the last non-empty state a \r ended

    def feed(self, data: bytes) -> tuple[list[str], str | None]:
        text = self._decode(data)
        if self._redrawn or "\r" in text:
            return self._feed_redrawn(text)
        # Plain lines, the usual output (and every flood of it): one split, no state but the
        # unfinished last line.
        lines = text.split("\n")
        rest = lines.pop()
        if lines and self._pieces:
            lines[0] = "".join(self._pieces) + lines[0]
            self._pieces, self._size = [], 0
        if rest:
            self._pieces.append(rest)
            self._size += len(rest)
            if self._size > MAX_LINE_CHARS:
                lines.append(self._finish(""))
        return lines, None

    def _decode(self, data: bytes) -> str:
        """``data`` as text; a character cut between two reads is decoded when it is whole.
        ASCII (most output) is decoded in one C call, without the incremental decoder."""
        if self._between_characters and data.isascii():
            return data.decode("ascii")
        text = self._decoder.decode(data)
        self._between_characters = not self._decoder.getstate()[0]
        return text

    def _feed_redrawn(self, text: str) -> tuple[list[str], str | None]:
        """:meth:`feed` of text where a ``\\r`` redraws a line."""
        lines: list[str] = []
        if "\n" in text:
            redrawn = "\r" in text
            first, *lines, text = text.split("\n")
            if redrawn:
                lines = [_last_state(line) for line in lines]
            lines.insert(0, self._finish(first))
        progress = self._extend(text)
        if self._size > MAX_LINE_CHARS:
            lines.append(self._finish(""))
            progress = None
        return lines, progress or None

    def _extend(self, text: str) -> str | None:
        """Add the unfinished line's new text; the progress line to report, if any."""
        if "\r" in text:
            *ended, current = text.split("\r")
            ended[0] = "".join(self._pieces) + ended[0]
            self._ended = _last_ended(ended) or self._ended
            self._pieces, self._size, self._redrawn = [current], len(current), True
            # A trailing backspace run waits for the \r the next read brings (Keras writes
            # the two separately): not part of the bar.
            return (current or self._ended).rstrip("\b")
        # Right after a \r, the text starts the next state: reported. Text that extends a
        # state is reported at the next \r (joining the state at every read would copy it
        # again and again).
        starts = self._redrawn and not self._size
        if not text:
            return self._ended if starts else None
        self._pieces.append(text)
        self._size += len(text)
        return text.rstrip("\b") if starts else None

    def _finish(self, text: str) -> str:
        """The unfinished line, ended by ``text``; the splitter starts a new one."""
        self._extend(text)
        line = "".join(self._pieces)
        if self._redrawn and not line:
            line = self._ended
        self._pieces, self._size, self._redrawn, self._ended = [], 0, False, ""
        return line

    def close(self) -> list[str]:
        """At end of stream: the unterminated last line, if any."""
        rest = self._finish(self._decoder.decode(b"", final=True))
        return [rest] if rest else []
