"""A build step's output as lines, wherever the step runs (this machine, inside WSL)."""

from __future__ import annotations

from collections.abc import Callable


def stream_lines(read: Callable[[int], bytes], on_line: Callable[[str], None]) -> list[str]:
    """Read ``read`` to its end (b""), giving each line to ``on_line`` as it completes; all
    the lines."""
    lines: list[str] = []
    pending = b""
    while chunk := read(65536):
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for raw in complete:
            # pip and conda redraw progress with \r: the last state of the line counts.
            line = raw.decode("utf-8", "replace").rstrip("\r").rsplit("\r", 1)[-1]
            lines.append(line)
            on_line(line)
    if pending:
        lines.append(pending.decode("utf-8", "replace"))
        on_line(lines[-1])
    return lines
