"""GPU charts (utilization, memory, temperature, power per GPU over time) and training metric
charts (each metric per task over steps), drawn with pyqtgraph.

Kept fast with a day of 1 Hz samples: every series is a preallocated ring buffer written twice
(at ``i`` and ``i + capacity``), so the last N samples are always one contiguous slice handed to
the curve without copying. The last hour is kept at 1 Hz; the day at one-minute peaks, which is
what a 24 h chart can show anyway (1,440 points instead of 86,400: a refresh stays under 10 ms
with 8 GPUs). The rings are plain ``array`` buffers that numpy views only when a chart is first
drawn: the window samples from its start, and importing numpy is a sixth of that start.
Curves that hold so few points are neither clipped nor downsampled, which would cost more than
it saves; the training metrics' curves, which grow without bound, are both.
"""

from __future__ import annotations

import functools
import math
import time
from array import array
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from gui.style import SERIES_COLORS, task_color_index
from gui.widgets.elided_label import ElidedLabel

if TYPE_CHECKING:
    from types import ModuleType

    import numpy as np
    import pyqtgraph as pg
    from PySide6.QtGui import QPen

DAY = 24 * 3600


@functools.cache
def plotting() -> ModuleType:
    """pyqtgraph, imported when the first chart is drawn: its import is a quarter of the
    window's start (its Qt layer creates some 650 Python enums), and the window starts on a
    page without charts."""
    import pyqtgraph as pg

    pg.setConfigOptions(antialias=False, background="w", foreground="#57606a")
    return pg


class RingSeries:
    """A fixed-capacity (x, y) series; :meth:`window` returns views, never copies (so the
    buffers are never resized: a buffer that numpy views cannot be)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._x = array("d", [math.nan]) * (2 * capacity)
        self._y = array("d", [math.nan]) * (2 * capacity)
        self._views: tuple[np.ndarray, np.ndarray] | None = None  # numpy's, at the first draw
        self._count = 0

    def __len__(self) -> int:
        return min(self._count, self.capacity)

    def append(self, x: float, y: float | None) -> None:
        j = self._count % self.capacity
        value = math.nan if y is None else y
        self._x[j] = self._x[j + self.capacity] = x
        self._y[j] = self._y[j + self.capacity] = value
        self._count += 1

    def window(self, n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The last ``n`` samples (all held when None), oldest first."""
        if self._views is None:
            import numpy as np

            self._views = np.frombuffer(self._x), np.frombuffer(self._y)
        x, y = self._views
        held = len(self)
        n = held if n is None else min(n, held)
        end = self._count
        if end > self.capacity:
            end = end % self.capacity + self.capacity
        return x[end - n:end], y[end - n:end]


class GrowingSeries:
    """An (x, y) series that grows by doubling (training metrics: steps, not seconds). Made
    with its curve, so numpy is loaded by then."""

    def __init__(self) -> None:
        import numpy as np

        self._x = np.empty(256)
        self._y = np.empty(256)
        self.count = 0

    def append(self, x: float, y: float) -> None:
        if self.count == len(self._x):
            import numpy as np

            self._x = np.concatenate([self._x, np.empty_like(self._x)])
            self._y = np.concatenate([self._y, np.empty_like(self._y)])
        self._x[self.count] = x
        self._y[self.count] = y
        self.count += 1

    def data(self) -> tuple[np.ndarray, np.ndarray]:
        return self._x[:self.count], self._y[:self.count]


def make_plot(title: str, unit: str, *, bounded: bool = False) -> pg.PlotWidget:
    """A chart in the app's style. Curves clip to the view and downsample by peak, unless
    ``bounded``: series of at most a few thousand points (the time rings), where both cost
    more than they save (bench/gui_charts.py: a refresh 1.6x as long)."""
    plot = plotting().PlotWidget()
    plot.setTitle(title, size="10pt")
    plot.setLabel("left", unit)
    plot.showGrid(x=True, y=True, alpha=0.15)
    plot.setMenuEnabled(False)
    plot.setMinimumHeight(150)
    if not bounded:
        item = plot.getPlotItem()
        item.setClipToView(True)
        item.setDownsampling(auto=True, mode="peak")
    return plot


def make_time_plot(title: str, unit: str, y_range: tuple[float, float] | None = None
                   ) -> pg.PlotWidget:
    """A chart over wall-clock time of a time ring (bounded: see :func:`make_plot`)."""
    plot = make_plot(title, unit, bounded=True)
    plot.setAxisItems({"bottom": plotting().DateAxisItem()})
    if y_range:
        plot.setYRange(*y_range, padding=0.02)
    return plot


def make_pen(i: int) -> QPen:
    return plotting().mkPen(SERIES_COLORS[i % len(SERIES_COLORS)], width=1.5)


def _tr(text: str) -> str:
    return QCoreApplication.translate("Charts", text)


#: (GpuInfo attribute, chart title, unit, fixed y range or None)
GPU_METRICS = (
    ("utilization_gpu", QT_TRANSLATE_NOOP("Charts", "Utilization"), "%", (0, 100)),
    ("memory_used_mib", QT_TRANSLATE_NOOP("Charts", "Memory used"), "MiB", None),
    ("temperature_c", QT_TRANSLATE_NOOP("Charts", "Temperature"), "°C", None),
    ("power_draw_w", QT_TRANSLATE_NOOP("Charts", "Power"), "W", None),
)
WINDOWS = (
    (60, QT_TRANSLATE_NOOP("Charts", "1 min")),
    (300, QT_TRANSLATE_NOOP("Charts", "5 min")),
    (3600, QT_TRANSLATE_NOOP("Charts", "1 h")),
    (DAY, QT_TRANSLATE_NOOP("Charts", "24 h")),
)
FINE_SECONDS = 3600
COARSE_SECONDS = 60


class _GpuSeries:
    """One metric of one GPU: 1 Hz for the last hour, one-minute peaks for the last day."""

    def __init__(self) -> None:
        self.fine = RingSeries(FINE_SECONDS)
        self.coarse = RingSeries(DAY // COARSE_SECONDS)
        self._bucket: int | None = None
        self._peak = math.nan

    def append(self, t: float, value: float | None) -> None:
        self.fine.append(t, value)
        bucket = int(t // COARSE_SECONDS)
        if bucket != self._bucket:
            if self._bucket is not None:
                self.coarse.append(self._bucket * COARSE_SECONDS, self._peak)
            self._bucket, self._peak = bucket, math.nan
        if value is not None and not value <= self._peak:  # NaN-safe max
            self._peak = value

    def window(self, seconds: int) -> tuple[np.ndarray, np.ndarray]:
        if seconds <= FINE_SECONDS:
            return self.fine.window(seconds)
        return self.coarse.window(seconds // COARSE_SECONDS)


class GpuCharts(QWidget):
    """Four charts, one curve per GPU, over a scrolling time window; keeps 24 h at 1 Hz. The
    charts are made at the first refresh: samples before that are only kept."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.window_seconds = 300
        self.window_box = QComboBox()
        for seconds, label in WINDOWS:
            self.window_box.addItem(_tr(label), seconds)
        self.window_box.setCurrentIndex(1)
        self.window_box.currentIndexChanged.connect(self._on_window)
        self.legend = QLabel()
        self.legend.setObjectName("muted")
        self.empty = QLabel(QCoreApplication.translate(
            "Charts", "No GPU samples: this machine has no NVIDIA GPU that NVML can read, so "
            "there is nothing to chart."))
        self.empty.setObjectName("muted")
        self.empty.setWordWrap(True)
        head = QHBoxLayout()
        head.addWidget(QLabel(QCoreApplication.translate("Charts", "Show the last")))
        head.addWidget(self.window_box)
        head.addWidget(self.legend, 1)
        self._grid = QGridLayout()
        self.plots: list[pg.PlotWidget] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(self.empty)
        layout.addLayout(self._grid, 1)
        self.series: dict[int, list[_GpuSeries]] = {}
        self.curves: dict[int, list[pg.PlotDataItem]] = {}
        self._last_time = 0.0

    def _make_plots(self) -> None:
        for i, (_attr, title, unit, y_range) in enumerate(GPU_METRICS):
            plot = make_time_plot(_tr(title), unit, y_range)
            self._grid.addWidget(plot, i // 2, i % 2)
            self.plots.append(plot)
        for index in self.series:
            self._add_curves(index)

    def _add_curves(self, index: int) -> None:
        self.curves[index] = [plot.plot(pen=make_pen(index), name=f"GPU {index}", connect="finite")
                              for plot in self.plots]

    def _ensure_gpu(self, index: int, name: str | None) -> None:
        if index in self.series:
            return
        self.series[index] = [_GpuSeries() for _ in GPU_METRICS]
        if self.plots:
            self._add_curves(index)
        self.empty.hide()
        names = [f"<span style='color:{SERIES_COLORS[i % len(SERIES_COLORS)]}'>■</span> GPU {i}"
                 for i in sorted(self.series)]
        self.legend.setText("  ".join(names) + (f"  ({name})" if name and len(self.series) == 1
                                                  else ""))

    def add_sample(self, wall_time: float, gpus: tuple) -> None:
        """One :class:`core.gpu.sampler.GpuSample`'s GPUs, stamped with wall-clock time."""
        for gpu in gpus:
            self._ensure_gpu(gpu.index, gpu.name)
            for (attr, *_), series in zip(GPU_METRICS, self.series[gpu.index], strict=True):
                series.append(wall_time, getattr(gpu, attr))
        self._last_time = wall_time

    def refresh(self) -> None:
        """Redraw the current window (called once a second, or after the window changed)."""
        if not self.series:
            return
        if not self.plots:
            self._make_plots()
        for index, curves in self.curves.items():
            for curve, series in zip(curves, self.series[index], strict=True):
                x, y = series.window(self.window_seconds)
                curve.setData(x, y)
        end = self._last_time or time.time()
        for plot in self.plots:
            plot.setXRange(end - self.window_seconds, end, padding=0)

    def _on_window(self) -> None:
        self.window_seconds = int(self.window_box.currentData())
        self.refresh()


def smoothed(y: np.ndarray, weight: float) -> np.ndarray:
    """TensorBoard's smoothing: an exponential moving average, debiased so that the first
    points are not pulled towards 0. ``weight`` 0 gives ``y`` back."""
    import numpy as np

    if weight <= 0 or len(y) == 0:
        return y
    out = np.empty_like(y)
    last = 0.0
    for i, value in enumerate(y.tolist()):
        last = last * weight + (1 - weight) * value
        out[i] = last / (1 - weight ** (i + 1))
    return out


class MetricCharts(QWidget):
    """One chart per training metric (loss first), one curve per series, x = step. A series is
    a task of the run (``worker:0``), or ``run / task`` when runs are compared (History).

    The toolbar: log scale, smoothing (the raw values stay as a faint curve behind), reset the
    zoom (the mouse wheel zooms, dragging pans). Hovering a chart shows every curve's value at
    that step."""

    COLUMNS = 2

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = QGridLayout()
        self.empty = QLabel(QCoreApplication.translate(
            "Charts", "No training metrics yet. TensorDeck charts the loss and metrics it reads "
            "in the task logs (Keras progress bars, lines like 'step 100 loss=0.25') and what the "
            "script reports with tensordeck_runtime.report(step, loss=...)."))
        self.empty.setObjectName("muted")
        self.empty.setWordWrap(True)
        self.log_scale = QCheckBox(QCoreApplication.translate("Charts", "Log scale"))
        self.smoothing = QSlider(Qt.Orientation.Horizontal)
        self.smoothing.setRange(0, 99)
        self.smoothing.setFixedWidth(160)
        self.smoothing_label = QLabel()
        self.reset_zoom = QPushButton(QCoreApplication.translate("Charts", "Reset zoom"))
        # Every curve's value: cut to the room left, never widening the window (Compare).
        self.hover = ElidedLabel()
        self.hover.setObjectName("muted")
        bar = QHBoxLayout()
        bar.addWidget(self.log_scale)
        bar.addWidget(QLabel(QCoreApplication.translate("Charts", "Smoothing")))
        bar.addWidget(self.smoothing)
        bar.addWidget(self.smoothing_label)
        bar.addWidget(self.reset_zoom)
        bar.addWidget(self.hover, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.empty)
        layout.addLayout(self.grid, 1)
        self.plots: dict[str, pg.PlotWidget] = {}
        self.series: dict[tuple[str, str], GrowingSeries] = {}
        self.curves: dict[tuple[str, str], pg.PlotDataItem] = {}
        self.raw_curves: dict[tuple[str, str], pg.PlotDataItem] = {}
        self._lines: dict[str, pg.InfiniteLine] = {}
        self._dirty: set[tuple[str, str]] = set()
        self.log_scale.toggled.connect(self._on_log_scale)
        self.smoothing.valueChanged.connect(self._on_smoothing)
        self.reset_zoom.clicked.connect(self.auto_range)
        self._on_smoothing()

    @property
    def weight(self) -> float:
        return self.smoothing.value() / 100

    def clear(self) -> None:
        for plot in self.plots.values():
            self.grid.removeWidget(plot)
            plot.deleteLater()
        self.plots.clear()
        self.series.clear()
        self.curves.clear()
        self.raw_curves.clear()
        self._lines.clear()
        self.hover.clear()
        self.empty.show()

    def add_point(self, label: str, step: float, metrics: dict[str, float],
                  color: int | None = None) -> None:
        """A point of series ``label`` (a task key, or ``run / task``); ``color``: its colour
        number (default: the task's stable colour)."""
        for name, value in metrics.items():
            if not math.isfinite(value):
                continue
            key = (name, label)
            series = self.series.get(key)
            if series is None:
                series = self.series[key] = GrowingSeries()
                number = task_color_index(label.rpartition(" / ")[2]) if color is None else color
                plot = self._plot_for(name)
                color_name = SERIES_COLORS[number % len(SERIES_COLORS)]
                pg = plotting()
                faint = pg.mkColor(color_name)
                faint.setAlpha(60)
                self.raw_curves[key] = plot.plot(pen=pg.mkPen(faint, width=1))
                self.curves[key] = plot.plot(pen=make_pen(number), symbol="o", symbolSize=4,
                                             symbolBrush=color_name, name=label)
            series.append(step, value)
            self._dirty.add(key)

    def refresh(self) -> None:
        weight = self.weight
        for key in self._dirty:
            x, y = self.series[key].data()
            self.curves[key].setData(x, smoothed(y, weight))
            self.raw_curves[key].setData(x, y if weight > 0 else y[:0])
        self._dirty.clear()

    def auto_range(self) -> None:
        for plot in self.plots.values():
            plot.getPlotItem().enableAutoRange()

    def values_at(self, name: str, step: float) -> list[tuple[str, float, float]]:
        """(series, step, value as drawn) of every curve of chart ``name`` at the point
        nearest ``step``: what the hover line says."""
        import numpy as np

        out = []
        for (metric, label), curve in self.curves.items():
            if metric != name:
                continue
            x, y = curve.getData()
            if x is None or not len(x):
                continue
            i = int(np.clip(np.searchsorted(x, step), 0, len(x) - 1))
            if i > 0 and abs(x[i - 1] - step) < abs(x[i] - step):
                i -= 1
            out.append((label, float(x[i]), float(y[i])))
        return out

    def _on_log_scale(self, on: bool) -> None:
        for plot in self.plots.values():
            plot.setLogMode(y=on)

    def _on_smoothing(self) -> None:
        self.smoothing_label.setText(f"{self.weight:.2f}")
        self._dirty.update(self.series)
        self.refresh()

    def _on_hover(self, name: str, position) -> None:
        plot = self.plots[name]
        if not plot.sceneBoundingRect().contains(position):
            return
        step = plot.getPlotItem().vb.mapSceneToView(position).x()
        values = self.values_at(name, step)
        if not values:
            return
        line = self._lines[name]
        line.setPos(values[0][1])
        line.show()
        step_word = QCoreApplication.translate("Charts", "step")
        self.hover.setText(f"{name} · {step_word} {values[0][1]:g}: " + ", ".join(
            f"{label} {value:.4g}" for label, _, value in values))

    def _plot_for(self, name: str) -> pg.PlotWidget:
        plot = self.plots.get(name)
        if plot is None:
            plot = make_plot(name, "")
            plot.setLabel("bottom", QCoreApplication.translate("Charts", "step"))
            plot.addLegend(offset=(-10, 10))
            plot.setLogMode(y=self.log_scale.isChecked())
            pg = plotting()
            line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#8c959f", width=1))
            line.hide()
            plot.addItem(line, ignoreBounds=True)
            self._lines[name] = line
            plot.scene().sigMouseMoved.connect(lambda pos, n=name: self._on_hover(n, pos))
            self.plots[name] = plot
            # "loss" first, then the others in order of appearance.
            order = sorted(self.plots, key=lambda n: (n != "loss", list(self.plots).index(n)))
            for i, metric in enumerate(order):
                self.grid.addWidget(self.plots[metric], i // self.COLUMNS, i % self.COLUMNS)
            self.empty.hide()
        return plot
