"""What each of TensorDeck's on-disk caches buys a user: the wall time of ``tensordeck validate``
of every shipped example, and of the window's check of an example's fields (a fresh process:
what the editor does when it opens one), with every cache filled, and with one cache emptied
before each run; medians of 5. A cache no figure needs is one to remove (issue 19).
Run: python bench/cache_figures.py
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, TENSORDECK

EXAMPLES = sorted((REPO / "resources" / "examples").glob("*.json"))
#: The window's check of an editor's fields (gui/views/cluster.py validate), in a fresh process.
FIELDS = ("import json, sys\nfrom core.config import check_config\n"
          "check_config(json.load(open(sys.argv[1], encoding='utf-8')))")
CACHES = {"validate": ("configs", "probes", "clean-jobs"), "fields": ("fields",)}


def run(argv: list[str], cache_home: str) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=REPO, capture_output=True,
                   env={**os.environ, "XDG_CACHE_HOME": cache_home})
    return time.perf_counter() - start


def figure(argv: list[str], cache_home: str, emptied: str | None) -> float:
    """Median of 5 runs of ``argv``, each after ``emptied`` (a cache folder) was removed."""
    times = []
    for _ in range(5):
        if emptied:
            shutil.rmtree(Path(cache_home) / "TensorDeck" / emptied, ignore_errors=True)
        times.append(run(argv, cache_home))
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        for example in EXAMPLES:
            commands = {"validate": [*TENSORDECK, "validate", str(example)],
                        "fields": [sys.executable, "-c", FIELDS, str(example)]}
            for name, argv in commands.items():
                run(argv, home)  # fill the caches (and the disk cache)
                filled = figure(argv, home, None)
                row = {"filled": round(filled * 1000)}
                for cache in CACHES[name]:
                    row[f"no {cache}"] = round(figure(argv, home, cache) * 1000)
                print(json.dumps({"example": example.name, "figure": name, "ms": row}))


if __name__ == "__main__":
    main()
