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
_TOKEN = re.compile(f"(\x1b\\[[0-9;:]{{0,64}}m)|[{_CONTROLS}]")
_SHOWN = {
    chr(c): f"\\x{c:02x}" if c < 0x80 else f"\\u{c:04x}"
    for c in (*range(0x00, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029,
              *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}
_ASCII_CONTROLS = tuple(ch for ch in _SHOWN if ch < "\x80")
# Keras redraws its bar with a run of backspaces then a carriage return: a redraw, not text.
_BACKSPACE_REDRAW = re.compile("\b+\r")


def control_character(text: str) -> str | None:
    """The first character of ``text`` a terminal, a shell or Qt would act on (TAB aside), as
    it is shown (``\\x0a``); None when there is none."""
    match = _UNSAFE.search(text)
    return _SHOWN[match.group()] if match else None


def _terminal_token(match: re.Match) -> str:
    return match.group(1) or _SHOWN[match.group()]


def _window_token(match: re.Match) -> str:
    return "" if match.group(1) else _SHOWN[match.group()]


def visible(text: str) -> str:
    """``text`` for a terminal: SGR kept (and reset at the end, so a colour or "conceal" left
    on cannot spill over the lines after it, another task's or TensorDeck's own), every other
    control character shown as an escape. Idempotent; plain text is returned as is (fast)."""
    if not _UNSAFE.search(text):
        return text
    shown = _TOKEN.sub(_terminal_token, text)
    return shown + SGR_RESET if "\x1b" in shown else shown


def plain(text: str) -> str:
    """``text`` for a text widget, which renders no colours: SGR dropped, every other control
    character shown as an escape."""
    if not _UNSAFE.search(text):
        return text
    return _TOKEN.sub(_window_token, text)


def _clean(text: str) -> bool:
    """Whether ``text`` holds no control character. ASCII text (most logs) is checked with one
    ``in`` (memchr) per control character: 8x faster than the regex, which a flood of a
    million lines would pay (~250 ms)."""
    if text.isascii():
        return not any(ch in text for ch in _ASCII_CONTROLS)
    return _UNSAFE.search(text) is None


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
    ``\\r`` is a CRLF line end, not a redraw)."""
    segment = segment.rstrip("\r")
    return segment[segment.rfind("\r") + 1 :]


class LineSplitter:
    """Incremental bytes -> (complete lines, current progress line or None). A ``\\r`` never
    survives: TensorDeck shows a line's last state, prefixed, so a task cannot use one to
    overwrite its prefix or another line."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._tail = ""

    def feed(self, data: bytes) -> tuple[list[str], str | None]:
        text = self._tail + self._decoder.decode(data)
        if "\b" in text:
            text = _BACKSPACE_REDRAW.sub("\r", text)
        lines = text.split("\n")
        tail = lines.pop()
        if "\r" in text:
            lines = [_last_state(line) for line in lines]
        progress = None
        if "\r" in tail:
            state = _last_state(tail)
            # Keep only the last state; the next bytes either extend it or redraw it.
            tail = state + ("\r" if tail.endswith("\r") else "")
            # A trailing backspace run waits for the \r the next read brings (Keras writes
            # the two separately): not part of the bar.
            progress = state.rstrip("\b")
        if len(tail) > MAX_LINE_CHARS:
            lines.append(tail)
            tail = ""
        self._tail = tail
        return lines, progress or None

    def close(self) -> list[str]:
        """At end of stream: the unterminated last line, if any."""
        rest = _last_state(self._tail + self._decoder.decode(b"", final=True))
        self._tail = ""
        return [rest] if rest else []
