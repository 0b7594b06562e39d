"""The History view: past runs found next to the configs used (status, start, duration,
strategy), a run's tasks, final metrics, environment and logs (the chief first, and all tasks
together), "Run again", "Compare" (the training metrics of several runs in one chart) and
"Delete" (TensorDeck run folders only, never a running one, after a confirmation).

What a run folder holds is shown, never obeyed: names and reasons are escaped in the rich-text
details, secret-looking variables are masked (:mod:`core.secrets`), logs go through the log
pane's filter (:mod:`gui.widgets.log_view`)."""

from __future__ import annotations

import html
import time
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
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

from core.bounded import read_file
from core.describe import task_name
from core.events import RunStatus
from core.exitcodes import describe
from core.history import (
    DeleteRefused,
    RerunError,
    RunRecord,
    config_changed,
    delete_run,
    final_metrics,
    list_runs,
    ordered_tasks,
    run_env,
    run_metrics,
    write_rerun_config,
)
from core.output import plain
from core.paths import user_data_dir
from core.secrets import masked_env
from gui.background import run_in_background
from gui.i18n import core_text, state_label
from gui.style import status_color
from gui.widgets.charts import MetricCharts
from gui.widgets.columns import stretch_readably
from gui.widgets.log_view import LogView
from gui.widgets.screen_fit import within_screen
from gui.widgets.task_table import format_duration

#: How much of each log the history shows (the file has everything).
LOG_TAIL_BYTES = 512 * 1024


def read_tail(path: Path, size: int = LOG_TAIL_BYTES) -> list[str]:
    """The log's last lines (``size`` bytes), read as any file of a run folder is: a regular
    file only (core.bounded); one that cannot be read says so in its one line."""
    try:
        capped = read_file(path, size, tail=True)
    except OSError as exc:
        return [f"({path.name}: {exc.strerror or exc})"]
    lines = capped.data.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    if capped.cut:
        lines = lines[1:]  # the first one is cut
    return [line.rsplit("\r", 1)[-1] for line in lines if line]


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
        self.compare_button = QPushButton(self.tr("Compare"))
        self.compare_button.setToolTip(self.tr("The training metrics of the selected runs in "
                                               "one chart (select several with Ctrl or Shift)"))
        self.delete_button = QPushButton(self.tr("Delete…"))
        self.rerun_button = QPushButton(self.tr("Run again"))
        self.rerun_button.setObjectName("primary")
        self.rerun_button.setToolTip(self.tr(
            "Runs what this run ran (the config kept in its run folder, even if the config "
            "file changed since), in a new run folder"))
        # The buttons have a row of their own: beside the title they made the page scroll
        # sideways at 1024x700 150%.
        buttons = QHBoxLayout()
        for button in (self.refresh_button, self.folder_button, self.compare_button,
                       self.delete_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.rerun_button)
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
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        stretch_readably(self.table, range(self.table.columnCount()))
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.final = QLabel()
        self.final.setTextFormat(Qt.TextFormat.PlainText)
        self.final.setWordWrap(True)
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
        lower_layout.addWidget(self.final)
        lower_layout.addWidget(self.environment)
        lower_layout.addWidget(self.logs, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(lower)
        splitter.setSizes([240, 420])

        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.addWidget(title)
        layout.addWidget(self.hint)
        layout.addLayout(buttons)
        layout.addWidget(splitter, 1)
        self.refresh_button.clicked.connect(self.refresh)
        self.folder_button.clicked.connect(self._open_folder)
        self.rerun_button.clicked.connect(self._rerun)
        self.compare_button.clicked.connect(self.compare)
        self.delete_button.clicked.connect(self.delete_selected)
        #: The open comparisons (each a window of its own).
        self.comparisons: list[CompareDialog] = []
        self._shown = 0  # the selection whose logs are being read
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
        """The run whose details are shown: the first selected."""
        records = self.selected_records()
        return records[0] if records else None

    def selected_records(self) -> list[RunRecord]:
        rows = sorted(index.row() for index in self.table.selectionModel().selectedRows())
        return [self.records[row] for row in rows]

    def _update_buttons(self) -> None:
        record = self.selected()
        records = self.selected_records()
        self.folder_button.setEnabled(record is not None)
        self.compare_button.setEnabled(len(records) >= 2)
        self.delete_button.setEnabled(bool(records) and all(
            r.status is not RunStatus.RUNNING for r in records))
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
        self.final.clear()
        if record is None:
            return
        exit_word = self.tr("exit code")

        def shown(value: object) -> str:
            return html.escape(plain(str(value)))

        restarts_word = self.tr("restarts")
        by_key = {t.task: t for t in record.tasks}
        tasks = ", ".join(f"{shown(t.task)}: {shown(state_label(t.state.value))} "
                          f"({exit_word} {shown(describe(t.exit_code, None) or '?')}"
                          + (f", {restarts_word} {t.restarts}" if t.restarts else "") + ")"
                          for t in (by_key[key] for key in ordered_tasks(by_key)))
        self.details.setText(
            f"<b>{shown(record.run_dir)}</b><br>"
            + self.tr("Config: {path}").format(path=shown(record.config_path or "?")) + "<br>"
            + (self.tr("Reason: {reason}").format(reason=shown(core_text(record.reason))) + "<br>"
               if record.reason else "")
            + tasks)
        logs = record.log_paths()
        self._shown += 1  # a selection changes in steps (select all): only the last one shows
        # Apart: whatever the folder's other files hold, its logs show.
        run_in_background(lambda: {key: read_tail(logs[key]) for key in ordered_tasks(logs)},
                          lambda tails, r=record, n=self._shown: self._show_logs(n, r, tails))
        run_in_background(lambda: (run_env(record.run_dir), config_changed(record.run_dir),
                                   final_metrics(run_metrics(record.run_dir).points)),
                          lambda found, r=record, n=self._shown: self._show_facts(n, r, *found))

    def _show_facts(self, request: int, record: RunRecord, env: dict[str, str], changed: bool,
                    final: dict[str, float]) -> None:
        if request != self._shown or record is not self.selected():
            return  # another run was selected meanwhile
        if final:
            shown = ", ".join(f"{plain(name)} {value:.4g}" for name, value in final.items())
            self.final.setText(self.tr("Metrics so far: {metrics}").format(metrics=shown)
                               if record.status is RunStatus.RUNNING else
                               self.tr("Final metrics: {metrics}").format(metrics=shown))
        if changed and self.rerun_button.isEnabled():
            self.details.setText(self.details.text() + "<br><i>" + html.escape(self.tr(
                "The config file changed since this run (or is gone): Run again runs what "
                "this run ran.")) + "</i>")
        if env:
            self.environment.setText(self.tr("Environment: {variables}").format(
                variables=plain(env_text(env))))

    def _show_logs(self, request: int, record: RunRecord, tails: dict[str, list[str]]) -> None:
        if request != self._shown or record is not self.selected():
            return
        gpus = any(t.gpus for t in record.tasks)
        names = {key: plain(task_name(key)) for key in tails}
        width = max(map(len, names.values()), default=6) + 2
        combined = LogView(colored_prefixes=True)
        for key, lines in tails.items():  # the chief first
            view = LogView()
            view.set_noise(True, gpus)
            self.logs.addTab(view, names[key])
            view.add_lines(lines)
            view.flush()
            prefix = f"[{names[key]}]".ljust(width) + " "
            combined.add_lines([prefix + line for line in lines])
        if len(tails) > 1:  # each task's tail in turn: the logs have no common clock
            combined.set_noise(True, gpus)
            self.logs.addTab(combined, self.tr("All tasks"))
            combined.flush()
        else:
            combined.deleteLater()

    def _open_folder(self) -> None:
        record = self.selected()
        if record is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(record.run_dir)))

    def compare(self) -> None:
        """The training metrics of the selected runs in one chart, in a window of its own."""
        records = self.selected_records()
        if len(records) < 2:
            return
        dialog = CompareDialog(records, self)
        self.comparisons.append(dialog)
        dialog.finished.connect(lambda _=0, d=dialog: self.comparisons.remove(d))
        dialog.show()

    def delete_selected(self) -> None:
        """Delete the selected runs' folders, after the user confirmed."""
        records = [r for r in self.selected_records() if r.status is not RunStatus.RUNNING]
        if not records:
            return
        answer = QMessageBox.question(
            self, self.tr("Delete runs"),
            self.tr("Delete these run folders with their logs and metrics? This cannot be "
                    "undone.") + "\n\n" + "\n".join(str(r.run_dir) for r in records))
        if answer != QMessageBox.StandardButton.Yes:
            return
        problems = []
        for record in records:
            try:
                delete_run(record.run_dir)
            except (DeleteRefused, OSError) as exc:
                problems.append(str(exc))
        if problems:
            QMessageBox.warning(self, self.tr("Delete runs"), "\n".join(problems))
        self.refresh()

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


def run_label(record: RunRecord) -> str:
    """The run folder's name (``20260301-101500-quickstart``): unique, and says when."""
    return plain(record.run_dir.name)


class CompareDialog(QDialog):
    """Several runs' training metrics in one chart: a colour per run, ``run / task`` labels."""

    def __init__(self, records: list[RunRecord], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Compare runs"))
        self.resize(within_screen(self, 1000, 640))
        self.records = records
        self.charts = MetricCharts()
        self.status = QLabel(self.tr("Reading the runs' metrics…"))
        self.status.setObjectName("muted")
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.charts, 1)
        folders = [r.run_dir for r in records]
        run_in_background(lambda: [run_metrics(folder).points for folder in folders], self._show)

    def _show(self, per_run: list) -> None:
        for number, (record, points) in enumerate(zip(self.records, per_run, strict=True)):
            label = run_label(record)
            for point in points:
                self.charts.add_point(f"{label} / {point.task}", point.step, point.metrics,
                                      color=number)
        self.charts.refresh()
        self.status.setText(self.tr("{count} runs; hover a chart for the values at a step")
                            .format(count=len(self.records)))
