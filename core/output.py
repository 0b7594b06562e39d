"""Turning a task's raw output bytes into display lines.

Progress bars (Keras, tqdm) redraw one line with ``\\r`` (Keras adds ``\\b`` runs): only the last
state of such a line is a line worth showing; the states before it are progress. The log file
gets the raw bytes, untouched; this is for the terminal and the window.
"""

from __future__ import annotations

import codecs

#: A "line" that never ends is cut here, so a task cannot grow TensorDeck's memory unboundedly.
MAX_LINE_CHARS = 64 * 1024


def _last_state(segment: str) -> str:
    """The visible text of a line redrawn with ``\\r``: its last non-empty state (a trailing
    ``\\r`` is a CRLF line end, not a redraw)."""
    segment = segment.rstrip("\r")
    return segment[segment.rfind("\r") + 1 :]


class LineSplitter:
    """Incremental bytes -> (complete lines, current progress line or None)."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._tail = ""

    def feed(self, data: bytes) -> tuple[list[str], str | None]:
        text = self._tail + self._decoder.decode(data)
        if "\b" in text:
            text = text.replace("\b", "")
        lines = text.split("\n")
        tail = lines.pop()
        if "\r" in text:
            lines = [_last_state(line) for line in lines]
        progress = None
        if "\r" in tail:
            progress = _last_state(tail)
            # Keep only the last state; the next bytes either extend it or redraw it.
            tail = progress + ("\r" if tail.endswith("\r") else "")
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
