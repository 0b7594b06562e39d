"""The console entry of ``tensordeck``, ``python -m core`` and the frozen ``tensordeck.exe``.

It imports nothing of TensorDeck's before it can catch a Ctrl+C: one pressed while Python is
still importing the command's modules (the first 0.1-0.3 s) ends the program with exit 130 and
one line instead of a traceback. A Ctrl+C that comes while a module is being imported is held
until that import is done: interrupting a native module's import (pydantic-core's) makes it
abort the process. Commands that start something install their own handling (a run stops its
tasks; ``env create`` removes what it made); what unwinds through here has already run its
cleanup in ``finally`` blocks. Output cut short by its reader (``| head``) ends quietly too.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from core.exitcodes import EXIT_CTRL_C

#: 128 + SIGPIPE: what a shell reports for a program whose reader left.
EXIT_READER_GONE = 141
#: How soon a Ctrl+C held during an import is tried again.
_RETRY_SECONDS = 0.02


def main(argv: Sequence[str] | None = None) -> int:
    signal.signal(signal.SIGINT, _interrupt)
    try:
        from core.cli import main as cli_main

        return cli_main(argv)
    except KeyboardInterrupt:
        with contextlib.suppress(OSError, ValueError):  # the terminal went with the Ctrl+C
            print("tensordeck: interrupted (Ctrl+C)", file=sys.stderr, flush=True)
        return EXIT_CTRL_C
    except BrokenPipeError:
        # The reader went away (``| head``): end quietly, as a pipeline expects; stdout points
        # at the null device so that Python's own flush at exit cannot fail again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_READER_GONE


def _interrupt(_signum: int, frame: FrameType | None) -> None:
    """Ctrl+C as Python's own handler does it (KeyboardInterrupt), unless a module is being
    imported: then once more a moment later, until the import is done."""
    if _importing(frame):
        threading.Timer(_RETRY_SECONDS, _thread.interrupt_main).start()
        return
    raise KeyboardInterrupt


def _importing(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False
