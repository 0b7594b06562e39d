"""GPU chart refresh: 8 GPUs x 4 metrics holding 24 h of 1 Hz samples (86,400 each).

Prints the median and worst time of one refresh (new data handed to every curve, then the
charts painted), for the default 5-minute window and for the full 24-hour window (the last
hour is kept at 1 Hz, the day at one-minute peaks).
Target: under 10 ms. Run: QT_QPA_PLATFORM=offscreen python bench/gui_charts.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtWidgets import QApplication

from core.gpu.info import GpuInfo
from gui.widgets.charts import DAY, GpuCharts

GPUS = 8


def sample(t: int) -> tuple[GpuInfo, ...]:
    return tuple(GpuInfo(index=i, name="NVIDIA H200", utilization_gpu=(t * 7 + i * 13) % 100,
                         memory_used_mib=40000 + (t % 600) * 10 + i, temperature_c=40 + t % 30,
                         power_draw_w=300.0 + (t % 400)) for i in range(GPUS))


def main() -> None:
    app = QApplication.instance() or QApplication([])
    charts = GpuCharts()
    charts.resize(1400, 900)
    charts.show()
    start = time.time() - DAY
    for t in range(DAY):
        charts.add_sample(start + t, sample(t))
    app.processEvents()
    for seconds, label in ((300, "5 min window"), (DAY, "24 h window")):
        charts.window_box.setCurrentIndex(charts.window_box.findData(seconds))
        app.processEvents()
        times = []
        for t in range(30):
            charts.add_sample(start + DAY + t, sample(DAY + t))
            began = time.perf_counter()
            charts.refresh()
            for plot in charts.plots:
                plot.repaint()
            times.append((time.perf_counter() - began) * 1000)
        print(f"gpu charts refresh, {GPUS} GPUs x 4 metrics, 24 h held, {label}: "
              f"median {statistics.median(times):.1f} ms, worst {max(times):.1f} ms "
              f"(target < 10 ms)")


if __name__ == "__main__":
    main()
