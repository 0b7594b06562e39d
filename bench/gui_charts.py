"""GPU chart refresh: 8 GPUs x 4 metrics holding 24 h of 1 Hz samples (86,400 each).

Prints the median and worst time of one refresh (new data handed to every curve, then the
charts painted), for the default 5-minute window and for the full 24-hour window (the last
hour is kept at 1 Hz, the day at one-minute peaks), each against the plain way in the same run:
the same four charts, every curve handed all the window's 1 Hz samples.
Target: under 10 ms. Run: QT_QPA_PLATFORM=offscreen python bench/gui_charts.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from PySide6.QtWidgets import QApplication, QGridLayout, QWidget

from core.gpu.info import GpuInfo
from gui.widgets.charts import DAY, GPU_METRICS, GpuCharts, make_pen, make_time_plot

GPUS = 8
REFRESHES = 30


def sample(t: int) -> tuple[GpuInfo, ...]:
    return tuple(GpuInfo(index=i, name="NVIDIA H200", utilization_gpu=(t * 7 + i * 13) % 100,
                         memory_used_mib=40000 + (t % 600) * 10 + i, temperature_c=40 + t % 30,
                         power_draw_w=300.0 + (t % 400)) for i in range(GPUS))


class PlainCharts(QWidget):
    """The baseline: the same four charts and 32 curves, each refresh handing every curve the
    window's samples as they were taken (numpy slices of one day, no copy)."""

    def __init__(self, start: float) -> None:
        super().__init__()
        grid = QGridLayout(self)
        self.plots = []
        for i, (_attr, title, unit, y_range) in enumerate(GPU_METRICS):
            plot = make_time_plot(title, unit, y_range)
            grid.addWidget(plot, i // 2, i % 2)
            self.plots.append(plot)
        t = np.arange(DAY + REFRESHES)
        self.x = start + t
        self.y = {}
        for i in range(GPUS):  # the values sample() gives, for every second at once
            values = ((t * 7 + i * 13) % 100, 40000 + (t % 600) * 10 + i, 40 + t % 30,
                      300.0 + (t % 400))
            for m, y in enumerate(values):
                self.y[i, m] = np.asarray(y, dtype=float)
        self.curves = {key: self.plots[key[1]].plot(pen=make_pen(key[0]), connect="finite")
                       for key in self.y}
        self.window_seconds = 300
        self.now = DAY

    def refresh(self) -> None:
        lo, hi = self.now - self.window_seconds, self.now
        for key, curve in self.curves.items():
            curve.setData(self.x[lo:hi], self.y[key][lo:hi])
        for plot in self.plots:
            plot.setXRange(self.x[lo], self.x[hi - 1], padding=0)


def timed_refreshes(*charts: tuple[Callable[[int], None], list]) -> list[list[float]]:
    """Each chart's refresh times (its refresh, then its plots painted), alternating refreshes
    so that the machine's drift hits all alike."""
    times: list[list[float]] = [[] for _ in charts]
    for t in range(REFRESHES):
        for (refresh, plots), out in zip(charts, times, strict=True):
            began = time.perf_counter()
            refresh(t)
            for plot in plots:
                plot.repaint()
            out.append((time.perf_counter() - began) * 1000)
    return times


def main() -> None:
    app = QApplication.instance() or QApplication([])
    start = time.time() - DAY
    charts, plain = GpuCharts(), PlainCharts(start)
    for widget in (charts, plain):
        widget.resize(1400, 900)
        widget.show()
    for t in range(DAY):
        charts.add_sample(start + t, sample(t))
    charts.refresh()  # the first refresh makes the charts: not what is timed
    app.processEvents()

    def ours(t: int) -> None:
        charts.add_sample(start + DAY + t, sample(DAY + t))
        charts.refresh()

    def baseline(t: int) -> None:
        plain.now = DAY + t + 1
        plain.refresh()

    for seconds, label in ((300, "5 min window"), (3600, "1 h window"), (DAY, "24 h window")):
        charts.window_box.setCurrentIndex(charts.window_box.findData(seconds))
        plain.window_seconds = seconds
        app.processEvents()
        mine, base = timed_refreshes((ours, charts.plots), (baseline, plain.plots))
        print(f"gpu charts refresh, {GPUS} GPUs x 4 metrics, 24 h held, {label}: "
              f"median {statistics.median(mine):.1f} ms, worst {max(mine):.1f} ms "
              f"(target < 10 ms); plain pyqtgraph {statistics.median(base):.1f} ms: "
              f"ratio {statistics.median(mine) / statistics.median(base):.2f}")


if __name__ == "__main__":
    main()
