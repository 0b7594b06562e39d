"""The run's task table: role, index, address, pid, state (coloured), restarts, exit code,
uptime, progress (percent, steps/s, ETA: :class:`core.metrics.Progress`). Rows are keyed by
task (``worker:1``) and updated from core events."""

from __future__ import annotations

import time
from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from core.events import TaskState
from core.exitcodes import describe, explain
from core.metrics import Progress
from gui.i18n import core_text, state_label
from gui.style import status_color

COLUMNS = ("role", "index", "host", "pid", "state", "restarts", "exit code", "uptime",
           "progress")


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


class TaskTable(QTableWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels([
            self.tr("Role"), self.tr("Index"), self.tr("Host"), self.tr("PID"), self.tr("State"),
            self.tr("Restarts"), self.tr("Exit code"), self.tr("Uptime"), self.tr("Progress")])
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        # Every column as wide as its header and cells (a role, a state, host:port, "38% ·
        # 52.7 steps/s · ETA 1:02:03" are read whole, never cut to "wor…"); the last takes
        # the room left, and a narrow window (1024x700 at 150%) scrolls the table sideways.
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self._rows: dict[str, int] = {}
        self._progress: dict[str, Progress | None] = {}
        self._started: dict[str, float] = {}
        self._ended: dict[str, float] = {}
        self.states: dict[str, TaskState] = {}

    def set_tasks(self, tasks: list) -> None:
        """One row per :class:`core.topology.TaskPlan`, all pending."""
        self.setRowCount(0)
        self._rows.clear()
        self._progress.clear()
        self._started.clear()
        self._ended.clear()
        self.states.clear()
        for task in tasks:
            row = self.rowCount()
            self.insertRow(row)
            self._rows[task.key] = row
            address = task.address or task.host
            for col, value in enumerate((task.role, task.index, address, "", "", 0, "", "", "")):
                item = QTableWidgetItem(str(value))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.setItem(row, col, item)
            self.set_state(task.key, TaskState.PENDING)

    def _set(self, key: str, column: str, value: object, tip: str | None = None) -> None:
        row = self._rows.get(key)
        if row is not None:
            item = self.item(row, COLUMNS.index(column))
            item.setText("" if value is None else str(value))
            if tip is not None:
                item.setToolTip(tip)

    def set_state(self, key: str, state: TaskState) -> None:
        self.states[key] = state
        row = self._rows.get(key)
        if row is None:
            return
        item = self.item(row, COLUMNS.index("state"))
        item.setText(state_label(state.value))
        item.setForeground(status_color(state.value))
        font = item.font()
        font.setBold(True)
        item.setFont(font)

    def task_started(self, key: str, pid: int, attempt: int = 1) -> None:
        """A restart counts when it happens (attempt 2 is the first), as in the summary."""
        self._started[key] = time.time()
        self._set(key, "restarts", attempt - 1)
        self._ended.pop(key, None)
        self._set(key, "pid", pid)
        self._set(key, "exit code", "", tip="")
        self.set_state(key, TaskState.RUNNING)

    def task_exited(self, key: str, exit_code: int, state: TaskState) -> None:
        self._ended[key] = time.time()
        # The hex form and name of a Windows status code, what 128+N means, in the tooltip.
        self._set(key, "exit code", describe(exit_code, None), tip=core_text(explain(exit_code)))
        self.set_state(key, state)
        self.set_progress(key, self._progress.get(key))  # how far it got; no rate, no ETA
        self.tick()

    def stopping(self) -> None:
        """The run is stopping: tasks still running say so (as the run's badge does) until
        they exit."""
        for key, state in self.states.items():
            if state is TaskState.RUNNING:
                item = self.item(self._rows[key], COLUMNS.index("state"))
                item.setText(state_label("stopping"))
                item.setForeground(status_color("stopping"))

    def task_restarting(self, key: str) -> None:
        """Scheduled, not done yet: the count goes up when the task starts again."""
        self.set_state(key, TaskState.RESTARTING)

    def progress_text(self, progress: Progress | None, rate: bool = True) -> str:
        """``17% · 52.1 steps/s · ETA 4:10`` (as much as is known; ``rate``: with the steps/s);
        "" for None."""
        if progress is None:
            return ""
        percent = progress.fraction * 100
        parts = [f"{percent:.1f}%" if percent < 10 else f"{percent:.0f}%"]  # 0.1% is not 0%
        if rate and progress.rate is not None:
            parts.append(self.tr("{rate:.3g} steps/s").format(rate=progress.rate))
        if progress.eta is not None and progress.fraction < 1:
            parts.append(self.tr("ETA {time}").format(time=format_duration(progress.eta)))
        return " · ".join(parts)

    def set_progress(self, key: str, progress: Progress | None) -> None:
        """A running task's progress with its rate and ETA; an ended one's without them."""
        self._progress[key] = progress
        ended = self.states.get(key) in (TaskState.SUCCEEDED, TaskState.FAILED,
                                         TaskState.STOPPED)
        if ended and progress is not None:
            progress = replace(progress, rate=None)  # no rate: no ETA either
        tip = None if progress is None else self.tr("{done:g} of {total:g} steps").format(
            done=progress.done, total=progress.total)
        self._set(key, "progress", self.progress_text(progress), tip=tip)

    def tick(self) -> None:
        """Refresh the uptime column."""
        now = time.time()
        for key, started in self._started.items():
            self._set(key, "uptime", format_duration(self._ended.get(key, now) - started))
