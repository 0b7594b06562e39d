"""The Run view's Machine tab: this machine's CPU and memory over time and each task's CPU,
memory and GPU memory (from :mod:`core.telemetry`, on every machine), and the GPU charts where
NVML works (GPU processes matched to tasks by pid, as nvitop does). On a machine without an
NVIDIA GPU the GPU charts stay hidden instead of showing four empty plots."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.describe import task_name
from core.gpu.info import GpuInfo
from core.output import plain
from core.telemetry import MachineSample
from gui.widgets.charts import FINE_SECONDS, GpuCharts, RingSeries, make_pen, make_time_plot
from gui.widgets.columns import stretch_readably

TASK_COLUMNS = ("task", "pid", "cpu", "memory", "gpu memory")
PROCESS_COLUMNS = ("gpu", "pid", "process", "gpu memory", "task")


class ResourcePanel(QWidget):
    """Its charts are made when it is first shown (pyqtgraph then loads: see
    :func:`gui.widgets.charts.plotting`); samples before that are only kept."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cpu = RingSeries(FINE_SECONDS)
        self.memory = RingSeries(FINE_SECONDS)
        self.summary = QLabel()
        self.summary.setObjectName("muted")
        #: What the table cannot show of tasks that run elsewhere (inside WSL, on a node).
        self.note = QLabel()
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        self.note.hide()
        self.table = QTableWidget(0, len(TASK_COLUMNS))
        self.table.setHorizontalHeaderLabels([self.tr("Task"), self.tr("PID"),
                                              self.tr("CPU (% of a core)"), self.tr("Memory"),
                                              self.tr("GPU memory")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        stretch_readably(self.table, range(len(TASK_COLUMNS)))
        self.table.setMinimumHeight(110)
        #: Every compute process on the GPUs, this run's or not (as nvitop lists them).
        self.gpu_processes = QTableWidget(0, len(PROCESS_COLUMNS))
        self.gpu_processes.setHorizontalHeaderLabels([
            self.tr("GPU"), self.tr("PID"), self.tr("Process"), self.tr("GPU memory"),
            self.tr("Task")])
        self.gpu_processes.verticalHeader().hide()
        self.gpu_processes.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        stretch_readably(self.gpu_processes, range(len(PROCESS_COLUMNS)))
        self.gpu_processes.setMinimumHeight(90)
        self.gpu_processes.hide()
        self.gpu_charts = GpuCharts()
        self.gpu_charts.hide()  # until a GPU sample arrives
        self._charts = QGridLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.note)
        layout.addLayout(self._charts)
        layout.addWidget(self.table)
        layout.addWidget(self.gpu_processes)
        layout.addWidget(self.gpu_charts, 2)
        self._rows: dict[str, int] = {}
        self._gpus: tuple[GpuInfo, ...] = ()
        self._last: MachineSample | None = None

    def set_tasks(self, keys: list[str], *, in_wsl: bool = False, on_nodes: bool = False
                  ) -> None:
        """One row per task of the run (``worker:0``), empty until its process is sampled.
        ``in_wsl`` / ``on_nodes``: some tasks run inside WSL 2 or on LAN nodes, where this
        machine sees only their stand-ins: the note says so."""
        notes = []
        if in_wsl:
            notes.append(self.tr(
                "Tasks inside WSL run in the WSL 2 virtual machine: their CPU, memory and GPU "
                "memory count as that machine's (vmmem, and NVML's processes of this machine), "
                "not per task; their rows show the stand-in that relays them."))
        if on_nodes:
            notes.append(self.tr("Tasks on other machines: their rows show the stand-in here; "
                                 "their GPUs are in the Node GPUs tab."))
        self.note.setText("\n".join(notes))
        self.note.setVisible(bool(notes))
        self.table.setRowCount(0)
        self._rows = {}
        for key in keys:
            row = self.table.rowCount()
            self.table.insertRow(row)
            self._rows[key] = row
            for col in range(len(TASK_COLUMNS)):
                item = QTableWidgetItem(task_name(key) if col == 0 else "")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.table.setItem(row, col, item)

    def add_sample(self, sample: MachineSample) -> None:
        self.cpu.append(sample.time, sample.cpu_percent)
        self.memory.append(sample.time, sample.memory_used_mib)
        self._last = sample

    def add_gpu_sample(self, wall_time: float, gpus: tuple[GpuInfo, ...]) -> None:
        self._gpus = gpus
        self.gpu_charts.add_sample(wall_time, gpus)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.refresh()

    def _make_plots(self) -> None:
        self.cpu_plot = make_time_plot(self.tr("CPU"), "%", (0, 100))
        self.memory_plot = make_time_plot(self.tr("Memory used"), "MiB")
        self._cpu_curve = self.cpu_plot.plot(pen=make_pen(0))
        self._memory_curve = self.memory_plot.plot(pen=make_pen(1))
        self._charts.addWidget(self.cpu_plot, 0, 0)
        self._charts.addWidget(self.memory_plot, 0, 1)

    def refresh(self, window_seconds: int = 300) -> None:
        """Redraw (once a second; a hidden tab waits until it is shown)."""
        if not self.isVisible():
            return
        if not self._charts.count():
            self._make_plots()
        self.gpu_charts.setVisible(bool(self.gpu_charts.series))
        self.gpu_charts.refresh()
        sample = self._last
        if sample is None:
            return
        for curve, series in ((self._cpu_curve, self.cpu), (self._memory_curve, self.memory)):
            curve.setData(*series.window(window_seconds))
        for plot in (self.cpu_plot, self.memory_plot):
            plot.setXRange(sample.time - window_seconds, sample.time, padding=0)
        self.summary.setText(self.tr("CPU {cpu:.0f}% · memory {used:,.0f} of {total:,.0f} MiB")
                             .format(cpu=sample.cpu_percent, used=sample.memory_used_mib,
                                     total=sample.memory_total_mib))
        self._show_gpu_processes(sample)
        gpu_memory = self._gpu_memory(sample)
        for key, row in self._rows.items():
            usage = sample.tasks.get(key)
            values = ("", "", "", "") if usage is None else (
                str(usage.pid), f"{usage.cpu_percent:.0f}%",
                f"{usage.memory_mib:,.0f} MiB",
                f"{gpu_memory[key]:,} MiB" if key in gpu_memory else "")
            for col, value in enumerate(values, start=1):
                self.table.item(row, col).setText(value)

    def _show_gpu_processes(self, sample: MachineSample) -> None:
        owner = {pid: key for key, usage in sample.tasks.items() for pid in usage.pids}
        rows = [(gpu.index, p) for gpu in self._gpus for p in gpu.processes or ()]
        table = self.gpu_processes
        table.setVisible(bool(self._gpus))
        table.setRowCount(len(rows))
        for row, (index, process) in enumerate(rows):
            memory = ("" if process.used_memory_mib is None  # Windows WDDM: not reported
                      else f"{process.used_memory_mib:,} MiB")
            task = owner.get(process.pid)
            values = (str(index), str(process.pid), plain(process.name or ""), memory,
                      task_name(task) if task else "")
            for col, value in enumerate(values):
                item = table.item(row, col)
                if item is None:
                    item = QTableWidgetItem()
                    table.setItem(row, col, item)
                item.setText(value)

    def _gpu_memory(self, sample: MachineSample) -> dict[str, int]:
        """Task -> GPU memory of its processes, summed over the GPUs (NVML's process list)."""
        owner = {pid: key for key, usage in sample.tasks.items() for pid in usage.pids}
        found: dict[str, int] = {}
        for gpu in self._gpus:
            for process in gpu.processes or ():
                key = owner.get(process.pid)
                if key is not None and process.used_memory_mib is not None:
                    found[key] = found.get(key, 0) + process.used_memory_mib
        return found
