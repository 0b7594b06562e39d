"""The History view: past runs found next to the configs used (status, start, duration,
strategy), a run's tasks, environment and logs, and "Run again".

What a run folder holds is shown, never obeyed: names and reasons are escaped in the rich-text
details, secret-looking variables are masked (:mod:`core.secrets`), logs go through the log
pane's filter (:mod:`gui.widgets.log_view`)."""

from __future__ import annotations

import html
import json
import time
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.exitcodes import describe
from core.history import RerunError, RunRecord, config_changed, list_runs, write_rerun_config
from core.output import plain
from core.paths import user_data_dir
from core.secrets import masked_env
from gui.background import run_in_background
from gui.i18n import state_label
from gui.style import status_color
from gui.widgets.log_view import LogView
from gui.widgets.task_table import format_duration

#: How much of each log the history shows (the file has everything).
LOG_TAIL_BYTES = 512 * 1024


def read_tail(path: Path, size: int = LOG_TAIL_BYTES) -> list[str]:
    with open(path, "rb") as stream:
        stream.seek(0, 2)
        end = stream.tell()
        stream.seek(max(0, end - size))
        data = stream.read()
    lines = data.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    if end > size:
        lines = lines[1:]  # the first one is cut
    return [line.rsplit("\r", 1)[-1] for line in lines if line]


def read_env(run_dir: Path) -> dict[str, str]:
    """The config's ``env`` of the run (its ``config.json``); {} when it cannot be read."""
    try:
        env = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))["config"]["env"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}


def env_text(env: dict[str, str]) -> str:
    """One line for the details, secrets masked."""
    return ", ".join(f"{name}={value}" for name, value in masked_env(env).items())


class HistoryView(QWidget):
    """Signals: ``rerun(config_path, run_dir)``: run that config file into that new folder
    (a copy of the selected run's own config, see :func:`core.history.write_rerun_config`)."""

    rerun = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folders: list[str] = []
        self.records: list[RunRecord] = []
        title = QLabel(self.tr("History"))
        title.setObjectName("pageTitle")
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.folder_button = QPushButton(self.tr("Open run folder"))
        self.rerun_button = QPushButton(self.tr("Run again"))
        self.rerun_button.setObjectName("primary")
        self.rerun_button.setToolTip(self.tr(
            "Runs what this run ran (the config kept in its run folder, even if the config "
            "file changed since), in a new run folder"))
        head = QHBoxLayout()
        head.addWidget(title)
        head.addStretch(1)
        for button in (self.refresh_button, self.folder_button, self.rerun_button):
            head.addWidget(button)
        self.hint = QLabel()
        self.hint.setObjectName("muted")
        self.hint.setWordWrap(True)

        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels([self.tr("Name"), self.tr("Status"),
                                              self.tr("Started"), self.tr("Duration"),
                                              self.tr("Strategy")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.environment = QLabel()
        self.environment.setObjectName("muted")
        self.environment.setTextFormat(Qt.TextFormat.PlainText)
        self.environment.setWordWrap(True)
        self.environment.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.logs = QTabWidget()
        self.logs.setDocumentMode(True)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.details)
        lower_layout.addWidget(self.environment)
        lower_layout.addWidget(self.logs, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(lower)
        splitter.setSizes([240, 420])

        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.addLayout(head)
        layout.addWidget(self.hint)
        layout.addWidget(splitter, 1)
        self.refresh_button.clicked.connect(self.refresh)
        self.folder_button.clicked.connect(self._open_folder)
        self.rerun_button.clicked.connect(self._rerun)
        self.table.itemSelectionChanged.connect(self._show_selected)
        self._update_buttons()

    def set_folders(self, folders: list[str]) -> None:
        """Where to look: config folders (their ``runs/``), runs folders or run folders."""
        self.folders = list(dict.fromkeys(folders))

    def refresh(self) -> None:
        folders = list(self.folders)
        self.hint.setText(self.tr("Runs found next to the configs you opened: {folders}")
                          .format(folders=", ".join(folders) or self.tr("none yet")))
        run_in_background(lambda: list_runs(folders), self.show_records)

    def show_records(self, records: list[RunRecord]) -> None:
        self.records = records
        self.table.setRowCount(0)
        for record in records:
            row = self.table.rowCount()
            self.table.insertRow(row)
            started = (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.started_at))
                       if record.started_at else "")
            values = (record.name, state_label(record.status.value), started,
                      format_duration(record.duration), record.strategy or "")
            for col, value in enumerate(values):
                item = QTableWidgetItem(plain(str(value)))
                if col == 1:
                    item.setForeground(status_color(record.status.value))
                self.table.setItem(row, col, item)
        if records:
            self.table.selectRow(0)
        else:
            self.details.setText(self.tr("No runs yet. Start one from the Run view."))
        self._update_buttons()

    def selected(self) -> RunRecord | None:
        rows = self.table.selectionModel().selectedRows()
        return self.records[rows[0].row()] if rows else None

    def _update_buttons(self) -> None:
        record = self.selected()
        self.folder_button.setEnabled(record is not None)
        self.rerun_button.setEnabled(
            record is not None and (record.run_dir / "config.json").is_file())

    def _show_selected(self) -> None:
        self._update_buttons()
        record = self.selected()
        while self.logs.count():
            widget = self.logs.widget(0)
            self.logs.removeTab(0)
            widget.deleteLater()
        self.environment.clear()
        if record is None:
            return
        exit_word = self.tr("exit code")

        def shown(value: object) -> str:
            return html.escape(plain(str(value)))

        restarts_word = self.tr("restarts")
        tasks = ", ".join(f"{shown(t.task)}: {shown(state_label(t.state.value))} "
                          f"({exit_word} {shown(describe(t.exit_code) or '?')}"
                          + (f", {restarts_word} {t.restarts}" if t.restarts else "") + ")"
                          for t in record.tasks)
        self.details.setText(
            f"<b>{shown(record.run_dir)}</b><br>"
            + self.tr("Config: {path}").format(path=shown(record.config_path or "?")) + "<br>"
            + (self.tr("Reason: {reason}").format(reason=shown(record.reason)) + "<br>"
               if record.reason else "")
            + tasks)
        logs = record.log_paths()
        run_in_background(lambda: ({key: read_tail(path) for key, path in logs.items()},
                                   read_env(record.run_dir), config_changed(record.run_dir)),
                          lambda found, r=record: self._show_logs(r, *found))

    def _show_logs(self, record: RunRecord, tails: dict[str, list[str]],
                   env: dict[str, str], changed: bool) -> None:
        if record is not self.selected():
            return  # another run was selected meanwhile
        if changed and self.rerun_button.isEnabled():
            self.details.setText(self.details.text() + "<br><i>" + html.escape(self.tr(
                "The config file changed since this run (or is gone): Run again runs what "
                "this run ran.")) + "</i>")
        if env:
            self.environment.setText(self.tr("Environment: {variables}").format(
                variables=plain(env_text(env))))
        for key, lines in tails.items():
            view = LogView()
            view.set_noise(True, any(t.gpus for t in record.tasks))
            self.logs.addTab(view, plain(key.replace(":", "-")))
            view.add_lines(lines)
            view.flush()

    def _open_folder(self) -> None:
        record = self.selected()
        if record is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(record.run_dir)))

    def _rerun(self) -> None:
        record = self.selected()
        if record is None:
            return
        try:
            config, run_dir = write_rerun_config(record.run_dir, user_data_dir() / "reruns")
        except (RerunError, OSError) as exc:
            QMessageBox.warning(self, self.tr("Run again"), str(exc))
            return
        self.rerun.emit(str(config), str(run_dir))
