"""The console entry of ``tensordeck``, ``python -m core`` and the frozen ``tensordeck.exe``.

It imports nothing but ``sys`` before it can catch a Ctrl+C: one pressed while Python is still
importing the command's modules (the first 0.1-0.3 s) ends the program with exit 130 and one
line instead of a traceback. Commands that start something install their own handling (a run
stops its tasks; ``env create`` removes what it made); what unwinds through here has already
run its cleanup in ``finally`` blocks. Output cut short by its reader (``| head``) ends
quietly too.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

from core.exitcodes import EXIT_CTRL_C

#: 128 + SIGPIPE: what a shell reports for a program whose reader left.
EXIT_READER_GONE = 141


def main(argv: Sequence[str] | None = None) -> int:
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
