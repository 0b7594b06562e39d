"""Log relay: one task printing 1,000,000 lines through ``tensordeck --run`` (every line to its
log file and, prefixed, to the terminal stream) versus the same program with the same
environment piped through ``tee LOG > TERMINAL_FILE``, the physical floor for this job.

Prints the wall-time ratio (aim < 1.0: the relay reads, sanitizes and writes each line
once, in batches, where tee wakes for every write) and checks that no line was lost on either
side.

    python bench/log_relay.py [--lines N] [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
from pathlib import Path

from _common import TENSORDECK, interleaved, timed, write_job

PRINTER = """
import sys
n = int(sys.argv[1])
for i in range(n):
    print(f"step {i} loss=0.{i % 9973:04d} accuracy=0.5 some more text to look like a log")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = write_job(folder, PRINTER, strategy="single", args=[str(args.lines)])
        runs = iter(range(1_000_000))
        run_dir = folder / "run-0"
        terminal = folder / "terminal.txt"
        # The same environment TensorDeck gives the task (its --dry-run lists the additions).
        env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONUTF8="1")

        def through_tensordeck() -> float:
            nonlocal run_dir
            run_dir = folder / f"run-{next(runs)}"
            with open(terminal, "w") as out:
                return timed(
                    [*TENSORDECK, "--run", str(config), "--run-dir", str(run_dir)],
                    stdout=out,
                    stderr=out,
                )

        def through_tee() -> float:
            cmd = (
                f"{shlex.quote(sys.executable)} {shlex.quote(str(folder / 'task.py'))} "
                f"{args.lines} | tee {shlex.quote(str(folder / 'tee.log'))} > "
                f"{shlex.quote(str(folder / 'tee-terminal.txt'))}"
            )
            return timed(cmd, shell=True, env=env, executable="/bin/bash")

        td, tee = interleaved(through_tensordeck, through_tee, args.repeats)
        log_lines = (run_dir / "logs" / "worker-0.log").read_bytes().count(b"\n")
        shown = terminal.read_bytes().count(b"\n[worker-0] ")  # after tensordeck's own lines
        tee_lines = (folder / "tee.log").read_bytes().count(b"\n")
        assert log_lines == shown == tee_lines == args.lines, (log_lines, shown, tee_lines)
        print(
            f"{args.lines:,} lines: tensordeck {td:.2f} s, tee {tee:.2f} s, ratio "
            f"{td / tee:.3f} (aim < 1.0); every line in the log file and on the terminal"
        )


if __name__ == "__main__":
    main()
