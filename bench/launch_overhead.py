"""Launch overhead: ``tensordeck --run`` with 4 tasks versus the same 4 processes started by a
bare ``subprocess.Popen`` loop.

Prints (1) the wall-time ratio with tasks that each run 2 s (aim < 1.05) and (2) the fixed
overhead in ms with tasks that exit at once (aim < 150 ms), both for a config run before (as
people run a job again and again: its checked text comes from the cache of checked configs),
and (3) the fixed overhead of a config text never checked before (pydantic checks it). Both
sides start a fresh Python for the launcher, so interpreter start-up cancels out.

    python bench/launch_overhead.py [--repeats N]
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import TENSORDECK, interleaved, timed, write_job

BARE = """
import os, subprocess, sys
script, n = sys.argv[1], int(sys.argv[2])
procs = [subprocess.Popen([sys.executable, script], env=dict(os.environ, PYTHONUNBUFFERED="1"))
         for _ in range(n)]
sys.exit(max(p.wait() for p in procs))
"""


def measure(folder: Path, seconds: float, repeats: int, new_text: bool = False
            ) -> tuple[float, float]:
    script = f"import time; time.sleep({seconds})\n" if seconds else "pass\n"
    config = write_job(
        folder,
        script,
        strategy="multi_worker_mirrored",
        tasks=[{"role": "worker", "count": 4}],
        run_dir=str(folder / "run"),
    )
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    kind = "new" if new_text else "same"
    runs = (folder / f"run-{seconds:g}-{kind}-{n}" for n in itertools.count())  # each: a new one
    job = json.loads(config.read_text())

    def tensordeck() -> float:
        run = next(runs)
        if new_text:  # a text the cache has never seen
            config.write_text(json.dumps({**job, "env": {"RUN": run.name}}))
        return timed([*TENSORDECK, "--run", str(config), "--run-dir", str(run)], **quiet)

    return interleaved(
        tensordeck,
        lambda: timed([sys.executable, "-c", BARE, str(folder / "task.py"), "4"], **quiet),
        repeats,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        td, bare = measure(folder, 2.0, args.repeats)
        print(
            f"4 tasks x 2 s: tensordeck {td:.3f} s, bare Popen {bare:.3f} s, "
            f"ratio {td / bare:.3f} (aim < 1.05)"
        )
        td0, bare0 = measure(folder, 0.0, args.repeats)
        print(
            f"4 tasks exiting at once: tensordeck {td0 * 1000:.0f} ms, bare Popen "
            f"{bare0 * 1000:.0f} ms, fixed overhead {(td0 - bare0) * 1000:.0f} ms (aim < 150 ms)"
        )
        new, bare1 = measure(folder, 0.0, args.repeats, new_text=True)
        print(
            f"the same, each run a config text never checked before: fixed overhead "
            f"{(new - bare1) * 1000:.0f} ms ({new * 1000:.0f} vs {bare1 * 1000:.0f} ms)"
        )


if __name__ == "__main__":
    main()
