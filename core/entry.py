"""The console entry of ``tensordeck``, ``python -m core`` and the frozen ``tensordeck.exe``.

It imports nothing of TensorDeck's before it can catch a Ctrl+C: one pressed while Python is
still importing the command's modules (the first 0.1-0.3 s) ends the program with exit 130 and
one line instead of a traceback. A Ctrl+C that comes while a library's code runs (an import,
pydantic building a schema) is held until TensorDeck's own code runs again (at most about a
second): interrupted there, pydantic-core's native import aborts the process, and pydantic
turns the interrupt into a SchemaError. Commands that start something install their own
handling (a run stops its tasks; ``env create`` removes what it made); what unwinds through
here has already run its cleanup in ``finally`` blocks. Output cut short by its reader
(``| head``) ends quietly too.
"""

from __future__ import annotations

import signal
import sys

_INTERRUPTED = "tensordeck: interrupted (Ctrl+C)"


def _interrupted_early(_signum: int, _frame: object) -> None:
    """A Ctrl+C while this module's own imports run (slow in a fresh clone, before any .pyc):
    only the standard library and ``core.exitcodes`` are imported by then, so ending at once
    leaves nothing half-done."""
    print(_INTERRUPTED, file=sys.stderr, flush=True)
    raise SystemExit(130)  # EXIT_CTRL_C, not imported yet


signal.signal(signal.SIGINT, _interrupted_early)

import _thread  # noqa: E402  (after the handler above: a Ctrl+C here is one line, not a traceback)
import contextlib  # noqa: E402
import os  # noqa: E402
import threading  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from types import FrameType  # noqa: E402

from core.exitcodes import EXIT_CTRL_C  # noqa: E402

#: 128 + SIGPIPE: what a shell reports for a program whose reader left.
EXIT_READER_GONE = 141
#: How soon a Ctrl+C held in a library's code is tried again, and how often at most.
_RETRY_SECONDS = 0.02
_MAX_HELD = 50
_held = 0


def main(argv: Sequence[str] | None = None) -> int:
    signal.signal(signal.SIGINT, _interrupt)
    try:
        from core.cli import main as cli_main

        return cli_main(argv)
    except KeyboardInterrupt:
        with contextlib.suppress(OSError, ValueError):  # the terminal went with the Ctrl+C
            print(_INTERRUPTED, file=sys.stderr, flush=True)
        return EXIT_CTRL_C
    except BrokenPipeError:
        # The reader went away (``| head``): end quietly, as a pipeline expects; stdout points
        # at the null device so that Python's own flush at exit cannot fail again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_READER_GONE


def _interrupt(_signum: int, frame: FrameType | None) -> None:
    """Ctrl+C as Python's own handler does it (KeyboardInterrupt), where TensorDeck's own code
    runs; in a library's code (an import, pydantic building a schema) once more a moment later,
    for at most about a second: interrupted there, pydantic-core's native import aborts the
    process and pydantic turns the interrupt into a SchemaError with a traceback. A wait that
    lasts longer (a library's network loop) is interrupted anyway."""
    global _held
    if _held < _MAX_HELD and not _in_own_code(frame):
        _held += 1
        threading.Timer(_RETRY_SECONDS, _thread.interrupt_main).start()
        return
    _held = 0
    raise KeyboardInterrupt


def _in_own_code(frame: FrameType | None) -> bool:
    name = frame.f_globals.get("__name__", "") if frame is not None else ""
    return name.partition(".")[0] in ("core", "gui", "__main__")
