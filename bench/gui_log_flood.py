"""Log flood through the window: N tasks each printing R lines/s for S seconds, run for real
(supervisor, pipes, log files) and shown in the Run view.

Prints: the GUI event loop's stalls (a 10 ms QTimer heartbeat: p99 and worst gap beyond its
interval; target p99 <= 16 ms, one frame) against the baseline measured in the same run (the
same heartbeat while the same tasks write straight into files: the stalls the machine itself
causes), lines shown per pane (bounded) against lines in the log files (all), and the
process's memory at the start, middle and end (flat).
Run: QT_QPA_PLATFORM=offscreen python bench/gui_log_flood.py [tasks rate seconds]
Defaults: 4 tasks x 50,000 lines/s x 10 s.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil
from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from gui.views.run import RunView

FLOOD = """
import sys, time
rate, seconds = {rate}, {seconds}
line = "x" * 60
out = sys.stdout
start = time.monotonic()
n = 0
while (now := time.monotonic() - start) < seconds:
    due = int(now * rate)
    if due > n:
        out.write("".join(f"{{i}} {{line}}\\n" for i in range(n, due)))
        n = due
    time.sleep(0.005)
out.flush()
print("done", n, flush=True)
"""


class Heartbeat:
    """A 10 ms QTimer; each beat records how much later than due it came (the event loop's
    stall)."""

    def __init__(self) -> None:
        self.gaps: list[float] = []
        self._last = 0
        self._clock = QElapsedTimer()
        self._timer = QTimer()
        self._timer.setInterval(10)
        self._timer.timeout.connect(self._beat)

    def _beat(self) -> None:
        now = self._clock.elapsed()
        self.gaps.append(max(0.0, now - self._last - 10))
        self._last = now

    def start(self) -> None:
        self._clock.start()
        self._last = self._clock.elapsed()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def p99(self) -> float:
        gaps = self.gaps
        return statistics.quantiles(gaps, n=100)[98] if len(gaps) > 100 else max(gaps)


def wait_until(done) -> None:
    """Run the event loop until ``done()``."""
    loop = QEventLoop()
    poll = QTimer()
    poll.timeout.connect(lambda: loop.quit() if done() else None)
    poll.start(50)
    loop.exec()


def write_flood(tasks: int, rate: int, seconds: float, folder: Path) -> Path:
    (folder / "flood.py").write_text(FLOOD.format(rate=rate, seconds=seconds))
    config = folder / "flood.json"
    config.write_text(json.dumps({
        "name": "flood", "strategy": "multi_worker_mirrored", "script": "flood.py",
        "tasks": [{"role": "worker", "count": tasks}], "stop_grace_seconds": 3}))
    return config


def run_baseline(tasks: int, folder: Path) -> float:
    """The heartbeat's p99 stall while the same tasks write into files, nothing shown."""
    QApplication.instance() or QApplication([])
    heartbeat = Heartbeat()
    heartbeat.start()
    with ExitStack() as files:
        procs = [subprocess.Popen([sys.executable, str(folder / "flood.py")],
                                  stdout=files.enter_context(open(folder / f"{i}.log", "wb")))
                 for i in range(tasks)]
        wait_until(lambda: all(p.poll() is not None for p in procs))
    heartbeat.stop()
    return heartbeat.p99()


def run_flood(config: Path) -> dict:
    app = QApplication.instance() or QApplication([])
    view = RunView()
    view.resize(1200, 800)
    view.show()
    heartbeat = Heartbeat()
    memory = []
    proc = psutil.Process()
    sampler = QTimer()
    sampler.setInterval(500)
    sampler.timeout.connect(lambda: memory.append(proc.memory_info().rss / 2**20))
    done = []
    view.session.finished.connect(done.append)
    heartbeat.start()
    sampler.start()
    view.start(config)
    wait_until(lambda: done)
    heartbeat.stop()
    sampler.stop()
    app.processEvents()
    logs = sorted((view.run_dir / "logs").glob("*.log"))
    file_lines = [p.read_bytes().count(b"\n") for p in logs]
    result = {
        "status": done[0].status.value if done[0] else "failed",
        "p99_stall_ms": heartbeat.p99(),
        "worst_stall_ms": max(heartbeat.gaps),
        "shown_lines": {n: v.line_count for n, v in view.logs.views.items()},
        "combined_lines": view.logs.combined.line_count,
        "file_lines": file_lines,
        "memory_mib": memory,
        "run_dir": str(view.run_dir),
    }
    view.shutdown()
    view.deleteLater()
    return result


def main() -> None:
    tasks, rate, seconds = (int(a) for a in (sys.argv[1:] or ["4", "50000", "10"]))
    with tempfile.TemporaryDirectory() as folder:
        config = write_flood(tasks, rate, seconds, Path(folder))
        baseline = run_baseline(tasks, Path(folder))
        began = time.monotonic()
        r = run_flood(config)
        wall = time.monotonic() - began
    mem = r["memory_mib"]
    thirds = [mem[len(mem) // 6], mem[len(mem) // 2], mem[-1]] if mem else []
    print(f"log flood {tasks} tasks x {rate} lines/s x {seconds} s ({wall:.1f} s wall): "
          f"GUI stall p99 {r['p99_stall_ms']:.0f} ms, worst {r['worst_stall_ms']:.0f} ms "
          f"(target p99 <= 16 ms, one frame); the same tasks writing into files, nothing "
          f"shown: p99 {baseline:.0f} ms")
    print(f"  lines in log files: {r['file_lines']} (every line); shown per task pane: "
          f"{list(r['shown_lines'].values())}, combined pane: {r['combined_lines']} (bounded)")
    print(f"  memory (MiB) early / middle / end: {' / '.join(f'{m:.0f}' for m in thirds)}")


if __name__ == "__main__":
    main()
