"""Entry of the frozen console executable ``tensordeck``: the command line (``--run``,
``doctor``, ``validate``...), plus ``_watchdog``, the internal command that lets the frozen app
serve as its own POSIX watchdog (a frozen app has no plain interpreter to run it with)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

WATCHDOG_COMMAND = "_watchdog"


def cli_main(argv: Sequence[str]) -> int:
    """Run one command line of the console executable; returns its exit code."""
    if list(argv) == [WATCHDOG_COMMAND]:
        from core.proctree import WATCHDOG_CODE

        exec(compile(WATCHDOG_CODE, "<tensordeck watchdog>", "exec"), {"__name__": "watchdog"})
        return 0
    from core.entry import main  # a Ctrl+C or a closed reader ends as from the source tree

    return main(list(argv))


if __name__ == "__main__":
    sys.exit(cli_main(sys.argv[1:]))
