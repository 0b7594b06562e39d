"""Every parser of text TensorDeck did not write, on its worst-case input (tests/worst_cases.py:
10 MB lines, a million lines, floods of \\b and \\r, each rule's words repeated): its throughput
in MB/s and its time against a baseline measured in the same run on the same input (a plain
``bytes.split`` / ``str.split`` / ``str.splitlines``: what merely reading the input costs).
A parser linear in its input has a ratio that does not grow with the size (compare two sizes);
``doctor --explain`` reads at most 4 MiB of an output, so its cases cost what 4 MiB costs.
Each output is checked as tests/test_linear_parsers.py checks it.

    python bench/parsers_worst_case.py [--mb 10] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.worst_cases import CASES


def timed(fn, arg) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn(arg)
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=10.0, help="input size in MB")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    size = int(args.mb * 1_000_000)
    print(f"{'case':72s} {'MB/s':>8s} {'time':>8s} {'baseline':>9s} {'ratio':>7s}")
    for case in CASES:
        data = case.make(size)
        runs, bases = [], []
        for _ in range(args.repeats):
            spent, out = timed(case.run, data)
            case.check(data, out)
            runs.append(spent)
            bases.append(timed(case.baseline, data)[0])
        run, base = statistics.median(runs), statistics.median(bases)
        print(f"{case.name:72s} {size / 1e6 / run:8.1f} {run:7.3f}s {base:8.3f}s "
              f"{run / base if base else float('inf'):7.1f}")


if __name__ == "__main__":
    main()
