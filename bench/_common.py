"""Helpers shared by the benchmarks: temporary jobs and timing of whole commands."""

from __future__ import annotations

import compileall
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TENSORDECK = [sys.executable, "-m", "core"]

# Timed as installed: pip and PyInstaller ship the bytecode. Without this, a checkout under
# PYTHONDONTWRITEBYTECODE (CI, some IDEs) compiles core from source at every launch (~40 ms).
for _package in ("core", "gui"):
    compileall.compile_dir(REPO / _package, quiet=1)


def write_job(folder: Path, script: str, **config) -> Path:
    (folder / "task.py").write_text(script)
    path = folder / "job.json"
    path.write_text(json.dumps({"name": "bench", "script": "task.py", **config}))
    return path


def timed(cmd: list[str] | str, **kwargs) -> float:
    """Wall time of one command, in seconds; fails loudly if it fails."""
    start = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=kwargs.pop("cwd", REPO), **kwargs)
    return time.perf_counter() - start


def median_of(fn, repeats: int) -> float:
    return statistics.median(fn() for _ in range(repeats))


def interleaved(a, b, repeats: int) -> tuple[float, float]:
    """Median wall times of ``a`` and ``b``, alternating runs so drift hits both alike."""
    ta, tb = [], []
    for _ in range(repeats):
        ta.append(a())
        tb.append(b())
    return statistics.median(ta), statistics.median(tb)


def env_without_tensordeck() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("TENSORDECK_")}
