"""The Run view: "Run on" (this machine, the LAN or a Slurm cluster), Start / Stop, the task
table, the logs (combined and per task), GPU charts (this machine's, and each LAN node's),
training metric charts, "Open run folder" and "Open TensorBoard"."""

from __future__ import annotations

import html
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEventLoop, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.describe import describe_event, task_name
from core.events import (
    Event,
    RunFinished,
    RunStopping,
    RunWarning,
    SlurmQueued,
    TaskExited,
    TaskOutput,
    TaskRestarting,
    TaskStarted,
)
from core.messages import translate_text
from core.metrics import MetricsTail, ProgressParser, lines_to_parse, overall
from core.placements.wsl import InWsl
from core.tfnoise import shared_log_level
from gui.background import run_in_background
from gui.bridge import TelemetryFeed
from gui.i18n import state_label
from gui.refusal import refusal_problems, unknown_host_keys
from gui.run_session import RunSession
from gui.style import status_color
from gui.tensorboard import InstallDialog, TensorBoard
from gui.widgets.charts import MetricCharts
from gui.widgets.elided_label import ElidedLabel
from gui.widgets.log_view import LogPanel
from gui.widgets.node_gpu_panel import NodeGpuPanel
from gui.widgets.resources import ResourcePanel
from gui.widgets.task_table import TaskTable

if TYPE_CHECKING:  # SSH's stack loads when a run is refused for an unknown host
    from gui.trust_dialog import TrustDialog

# Where a run goes ("Run on"): this machine and the LAN are ``tensordeck --run FILE`` (the
# config's tasks say which: one of the two is offered), a Slurm cluster is ``--slurm``.
RUN_ON = ("local", "lan", "slurm")

#: Substrings a metric line must contain before it is worth a regex (floods stay cheap).
_METRIC_HINTS = ("loss", "acc", "step", "/")
_METRIC_HINT = re.compile("|".join(map(re.escape, _METRIC_HINTS)))


def badge(label: QLabel, state: str) -> None:
    label.setText(state_label(state))
    label.setStyleSheet(f"background: {status_color(state).name()};")


class RunView(QWidget):
    """Signals: ``start_requested()`` (the window saves the config, then calls :meth:`start`),
    ``run_finished(name, status, run_dir)``, ``progress_changed(text)``: the run's progress
    for the window title ("" when no run is going on)."""

    start_requested = Signal()
    run_finished = Signal(str, str, str)
    progress_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = RunSession(self)
        self.session.planned.connect(self._on_planned)
        self.session.warned.connect(self._on_warned)
        self.session.events.connect(self._on_events)
        self.session.failed.connect(self._on_failed)
        self.session.finished.connect(self._on_finished)
        self.session.withdrawn.connect(self._on_withdrawn)
        self.tensorboard = TensorBoard(self)
        self.tensorboard.failed.connect(self._on_tensorboard_failed)
        self.tensorboard.opened.connect(self._on_tensorboard_opened)
        self.tensorboard.missing.connect(self._offer_tensorboard_install)
        self.install_dialog: InstallDialog | None = None
        self.python: str | None = None
        self.run_dir: Path | None = None
        self.config_name = ""
        self._parsers: dict[str, ProgressParser] = {}
        self._tail: MetricsTail | None = None
        self._tail_busy = False
        self.progress_text = ""
        self._grace = 0.0
        #: When the tasks are killed if they have not exited (monotonic), while stopping.
        self._kill_at: float | None = None
        #: Offered when a start was refused for nodes whose host keys are not known yet.
        self.trust_dialogs: list[TrustDialog] = []
        self._planned = False  # the run's plan arrived (a Slurm job was granted)
        self._withdrawn = False
        self._reason_text = ""
        self._warnings: list[str] = []  # RunWarning: what the run survived, said until the next

        title = QLabel(self.tr("Run"))
        title.setObjectName("pageTitle")
        self.config_label = QLabel(self.tr("No config loaded: open one, or create one with "
                                           "File > New."))
        self.config_label.setObjectName("muted")
        self.status = QLabel()
        self.status.setObjectName("badge")
        badge(self.status, "idle")
        #: Why the last run ended, or why it did not start: stays after the dialog is closed.
        #: One line per line of it, cut to the page's width: it never pushes the log down.
        self.reason = ElidedLabel()
        self.reason.setObjectName("muted")
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reason.hide()
        self.start_button = QPushButton(self.tr("Start"))
        self.start_button.setObjectName("primary")
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setObjectName("danger")
        self.stop_button.setEnabled(False)
        self.run_on_label = QLabel(self.tr("Run on:"))
        self.run_on = QComboBox()
        run_on_labels = {"local": self.tr("this machine"), "lan": self.tr("the LAN"),
                         "slurm": self.tr("a Slurm cluster")}
        for where in RUN_ON:
            self.run_on.addItem(run_on_labels[where], where)
        self.run_on_label.setBuddy(self.run_on)
        # The Slurm job of the run (its id once Slurm granted it), shown for Slurm runs only.
        self.slurm_job = QLabel()
        self.slurm_job.setObjectName("muted")
        self.slurm_job.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.slurm_job.setTextFormat(Qt.TextFormat.PlainText)  # Slurm's reason is no markup
        self.slurm_job.hide()
        self.folder_button = QPushButton(self.tr("Open run folder"))
        self.folder_button.setEnabled(False)
        self.tensorboard_button = QPushButton(self.tr("Open TensorBoard"))
        self.tensorboard_button.setEnabled(False)
        self.tensorboard_url = QLabel()
        self.tensorboard_url.setOpenExternalLinks(True)
        self.tensorboard_url.setTextFormat(Qt.TextFormat.RichText)
        self.tensorboard_url.hide()
        head = QHBoxLayout()
        head.addWidget(title)
        head.addWidget(self.status)
        head.addStretch(1)
        head.addWidget(self.tensorboard_url)
        for widget in (self.folder_button, self.tensorboard_button, self.stop_button,
                       self.start_button):
            head.addWidget(widget)

        self.tasks = TaskTable()
        self.logs = LogPanel()
        self.resources = ResourcePanel()
        self.gpu_charts = self.resources.gpu_charts
        #: CPU and memory of the machine and of each task, sampled once a second while shown.
        self.telemetry = TelemetryFeed(self)
        self.telemetry.sample.connect(self.resources.add_sample)
        self._pids: dict[str, int] = {}
        self.metric_charts = MetricCharts()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.logs, self.tr("Logs"))
        self.tabs.addTab(self.metric_charts, self.tr("Training metrics"))
        self.tabs.addTab(self.resources, self.tr("Resources"))
        self.node_gpus = NodeGpuPanel()
        self.tabs.addTab(self.node_gpus, self.tr("Node GPUs"))
        self.tabs.setTabVisible(self.tabs.indexOf(self.node_gpus), False)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.tasks)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([160, 520])

        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.addLayout(head)
        # The file and where it runs, under Start; a long path is cut, not the row widened.
        self.config_label.setSizePolicy(QSizePolicy.Policy.Ignored,
                                        QSizePolicy.Policy.Preferred)
        where = QHBoxLayout()
        where.addWidget(self.config_label, 1)
        where.addWidget(self.slurm_job)
        where.addSpacing(12)
        where.addWidget(self.run_on_label)
        where.addWidget(self.run_on)
        layout.addLayout(where)
        layout.addWidget(self.reason)
        layout.addWidget(splitter, 1)

        self.start_button.clicked.connect(self.start_requested)
        self.stop_button.clicked.connect(self.stop)
        self.folder_button.clicked.connect(self.open_run_folder)
        self.tensorboard_button.clicked.connect(self.open_tensorboard)
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._ticker.start()

    # --- actions ------------------------------------------------------------------------------

    def set_config(self, path: str | None, name: str = "") -> None:
        """The open config. Another file (or a new one) leaves the last run's state behind:
        its status, reason, Slurm job, tasks, logs, charts and run folder belong to that file
        (History keeps them)."""
        if (path or "") != self.config_label.toolTip() and not self.session.running:
            self._forget_last_run()
        self.config_name = name
        self.config_label.setText(path or self.tr("No config loaded: open one, or create one "
                                                  "with File > New."))
        self.config_label.setToolTip(path or "")

    def _forget_last_run(self) -> None:
        badge(self.status, "idle")
        self._warnings.clear()
        self._set_reason("")
        self.slurm_job.hide()
        self.tasks.set_tasks([])
        self.logs.set_tasks([])
        self.metric_charts.clear()
        self._parsers.clear()
        self._tail = None
        self.run_dir = None
        self.folder_button.setEnabled(False)
        self.tensorboard_button.setEnabled(False)
        self.tensorboard.stop()
        self.tensorboard_url.hide()
        self.tabs.setTabVisible(self.tabs.indexOf(self.node_gpus), False)

    def set_machines(self, nodes: list[str], on_nodes: bool) -> None:
        """What the open config says about the LAN: its other machines (``nodes``), and
        whether a task runs on one of them. Such a config runs on the LAN, any other on this
        machine (both are ``tensordeck --run FILE``): "Run on" offers the one that applies and
        says why the other is not."""
        model = self.run_on.model()
        local, lan, slurm = (model.item(RUN_ON.index(where)) for where in RUN_ON)
        local.setEnabled(not on_nodes)
        lan.setEnabled(on_nodes)
        if on_nodes:
            why = self.tr("Tasks of this config run on other machines (the tasks' Node column "
                          "in Cluster): it runs on the LAN.")
        elif nodes:
            why = self.tr("No task runs on the config's other machines ({names}): choose one "
                          "in the tasks' Node column in Cluster to run on the LAN.").format(
                              names=", ".join(nodes))
        else:
            why = self.tr("This config names no other machine: add them under Cluster > "
                          "Machines, then choose them in the tasks' Node column, to run on "
                          "the LAN.")
        local.setToolTip(why if on_nodes else "")
        lan.setToolTip("" if on_nodes else why)
        slurm.setToolTip(self.tr("One Slurm job for every task, as tensordeck --run FILE "
                                 "--slurm does (its settings: Cluster > Slurm)."))
        self.run_on.setToolTip(why)
        if self.run_on.currentData() != "slurm":
            self.run_on.setCurrentIndex(RUN_ON.index("lan" if on_nodes else "local"))

    @property
    def running(self) -> bool:
        return self.session.running

    def start(self, config_path: str | Path, run_dir: str | Path | None = None) -> None:
        """Start a run of ``config_path`` where "Run on" says."""
        if self.session.running:
            return
        slurm = self.run_on.currentData() == "slurm"
        self._forget_last_run()  # the last run's rows, logs, link and folder are not this run's
        self._planned = False
        self._withdrawn = False
        self.run_on.setEnabled(False)
        self.slurm_job.setText(self.tr("Slurm: waiting for the job's allocation…"))
        self.slurm_job.setVisible(slurm)
        badge(self.status, "pending" if slurm else "running")
        self.start_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.session.start(config_path, run_dir, slurm=slurm)

    def stop(self) -> None:
        """The first press asks the tasks to exit (a countdown to the kill shows); the second
        ("Force stop") kills them at once."""
        if not self.session.running:
            return
        if self.slurm_job.isVisible() and not self._planned:  # queued: withdraw the job
            self.stop_button.setEnabled(False)
            self._set_reason(self.tr("Withdrawing the Slurm job…"))
            self.session.stop()
            return
        if self._kill_at is None:
            self._stopping()
        else:
            self._kill_at = time.monotonic()
            self.stop_button.setEnabled(False)
            self._set_reason(self.tr("Killing the tasks…"))
        self.session.stop()

    def _stopping(self) -> None:
        badge(self.status, "stopping")
        self.tasks.stopping()
        self._kill_at = time.monotonic() + self._grace
        self.stop_button.setText(self.tr("Force stop"))
        self._show_countdown()

    def _show_countdown(self) -> None:
        if self._kill_at is None or not self.stop_button.isEnabled():
            return
        left = max(0, round(self._kill_at - time.monotonic()))
        self._set_reason(self.tr("Stopping: the tasks have {seconds} s to exit, then they are "
                                 "killed. Force stop kills them now.").format(seconds=left))

    def open_run_folder(self) -> None:
        if self.run_dir and not QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.run_dir))):
            QMessageBox.information(
                self, self.tr("Run folder"),
                self.tr("No program here opens folders (a file manager). The run folder is:"
                        "\n{path}").format(path=self.run_dir))

    def open_tensorboard(self) -> None:
        """TensorBoard takes 5-20 s to start: the link's place says so at once."""
        if self.run_dir and self.python:
            self.tensorboard_url.setText(self.tr("Starting TensorBoard…"))
            self.tensorboard_url.show()
            self.tensorboard.start(self.python, str(self.run_dir))

    @Slot(str)
    def _on_tensorboard_opened(self, url: str) -> None:
        escaped = html.escape(url)
        text = self.tr("TensorBoard: {link}").format(link=f'<a href="{escaped}">{escaped}</a>')
        if not self.tensorboard.browser_opened:
            text += " " + html.escape(self.tr("(no web browser opened here: open the link "
                                              "yourself)"))
        self.tensorboard_url.setText(text)
        self.tensorboard_url.show()

    @Slot(str)
    def _on_tensorboard_failed(self, message: str) -> None:
        self.tensorboard_url.hide()
        QMessageBox.warning(self, self.tr("TensorBoard"), message)

    @Slot(str)
    def _offer_tensorboard_install(self, python: str) -> None:
        self.tensorboard_url.hide()
        answer = QMessageBox.question(
            self, self.tr("TensorBoard is not installed"),
            self.tr("TensorBoard is not installed in the training interpreter {python}. "
                    "Install it there now (pip install tensorboard)?").format(python=python))
        if answer != QMessageBox.StandardButton.Yes:
            return
        self.install_dialog = InstallDialog(self.tensorboard, python, self)
        self.tensorboard.installed.connect(self._on_tensorboard_installed)
        self.install_dialog.show()

    @Slot(bool, str)
    def _on_tensorboard_installed(self, ok: bool, _message: str) -> None:
        self.tensorboard.installed.disconnect(self._on_tensorboard_installed)
        if ok:
            self.open_tensorboard()

    def show_gpu_sample(self, sample) -> None:
        self.resources.add_gpu_sample(sample.time, sample.gpus)

    # --- session signals ----------------------------------------------------------------------

    @Slot(object)
    def _on_planned(self, plan) -> None:
        self._planned = True
        badge(self.status, "running")
        if plan.slurm_job:
            self.slurm_job.setText(self.tr("Slurm job {job}").format(job=plan.slurm_job))
        self.python = plan.python
        self._grace = plan.config.stop_grace_seconds
        self.run_dir = plan.run_dir
        self.config_name = plan.config.name
        self.tasks.set_tasks(plan.tasks)
        self.resources.set_tasks([t.key for t in plan.tasks],
                                 in_wsl=any(isinstance(plan.placement(t), InWsl)
                                            for t in plan.tasks),
                                 on_nodes=bool(plan.node_tasks))
        self._pids = {}
        self.telemetry.watch({})
        self.logs.set_tasks([t.name for t in plan.tasks],
                            gpus_expected=any(t.gpus for t in plan.tasks),
                            tf_log_level=shared_log_level({**plan.base_env, **t.env}
                                                          for t in plan.tasks))
        self._parsers = {t.key: ProgressParser(t.key) for t in plan.tasks}
        self._tail = MetricsTail(plan.run_dir / "metrics")
        self.folder_button.setEnabled(True)
        self.tensorboard_button.setEnabled(True)
        self.node_gpus.start(plan.config.nodes)
        self.tabs.setTabVisible(self.tabs.indexOf(self.node_gpus), bool(plan.config.nodes))
        if plan.slurm_job:
            self.logs.add_message(self.tr("Slurm job {job}: every task runs as one of its "
                                          "steps").format(job=plan.slurm_job))

    @Slot(list)
    def _on_warned(self, warnings: list) -> None:
        """The doctor's warnings, at the top of the combined log: the run started anyway."""
        for text in warnings:
            for line in text.splitlines():
                self.logs.add_message(line)
        self.logs.flush()

    @Slot(list)
    def _on_events(self, events: list) -> None:
        logs = self.logs
        for event in events:
            if isinstance(event, TaskOutput):
                logs.add_output(task_name(event.task), event.lines, event.progress)
                self._parse_metrics(event)
                continue
            self._follow(event)
            logs.add_message(describe_event(event))  # the console's words, in this language
        logs.flush()
        self.metric_charts.refresh()

    def _follow(self, event: Event) -> None:
        """What an event changes in the view beside its line in the log."""
        if isinstance(event, TaskStarted):
            self.tasks.task_started(event.task, event.pid, event.attempt)
            self._pids[event.task] = event.pid
            self.telemetry.watch(self._pids)
        elif isinstance(event, TaskExited):
            self.tasks.task_exited(event.task, event.exit_code, event.state)
            self.logs.add_output(task_name(event.task), (), None)
        elif isinstance(event, TaskRestarting):
            self.tasks.task_restarting(event.task)
        elif isinstance(event, RunStopping):
            if self._kill_at is None:
                self._stopping()
        elif isinstance(event, RunWarning):  # the run goes on; the user must know
            self._warnings.append(self.tr("Warning: {message}").format(
                message=translate_text(event.message)))
            self._set_reason(self._reason_text)
        elif isinstance(event, SlurmQueued):
            self.slurm_job.setText(describe_event(event))
        elif isinstance(event, RunFinished) and event.reason:
            reason = translate_text(event.reason)
            self._set_reason(self.tr("Run {status}: {reason}").format(
                status=state_label(event.status.value), reason=reason))

    def _parse_metrics(self, event: TaskOutput) -> None:
        parser = self._parsers.get(event.task)
        if parser is None:
            return
        texts = lines_to_parse(event.lines)
        if event.progress:
            texts.append(event.progress)
        # One look at the whole batch first: most output (and every flood of it) holds no
        # metric, and a test per line is the GUI thread's largest cost under a flood.
        joined = "\n".join(texts)
        if not any(hint in joined for hint in _METRIC_HINTS):
            return
        for text in texts:
            if _METRIC_HINT.search(text):
                point = parser.feed(text)
                if point:
                    self.metric_charts.add_point(point.task, point.step, point.metrics)

    def _set_reason(self, text: str) -> None:
        """Why the run ended (or is stopping), then the run's warnings, which stay."""
        self._reason_text = text
        shown = "\n".join(filter(None, (text, *self._warnings)))
        self.reason.setText(shown)
        self.reason.setVisible(bool(shown))

    def _show_ended(self, status: str) -> None:
        self._kill_at = None
        self.start_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        self.stop_button.setText(self.tr("Stop"))
        self.run_on.setEnabled(True)
        badge(self.status, status)

    @Slot()
    def _on_withdrawn(self) -> None:
        self._withdrawn = True
        if not self.slurm_job.isHidden():  # a Slurm run: its job was queued
            self._set_reason(self.tr("Stopped before the run started: the Slurm job was "
                                     "withdrawn from the queue. Nothing ran."))
        else:
            self._set_reason(self.tr("Stopped before the run started. Nothing ran."))
        self.slurm_job.hide()

    @Slot(object)
    def _on_failed(self, refusal: Exception) -> None:
        problems = refusal_problems(refusal)
        # The view says what happened before the dialog covers it, and keeps saying it after.
        self._show_ended("failed")
        self._set_reason(self.tr("The run did not start:") + " " + " ".join(
            text.splitlines()[0] for text in problems if text))
        for text in problems:  # stays in the log once the message is closed
            for line in text.splitlines():
                self.logs.add_message(line)
        self.logs.flush()
        QMessageBox.warning(self, self.tr("The run did not start"),
                            self.tr("Nothing was started:") + "\n\n" + "\n".join(problems))
        self.trust_dialogs = []
        if keys := unknown_host_keys(refusal):
            from gui.trust_dialog import TrustDialog  # the SSH stack: the refusal loaded it

            self.trust_dialogs = [TrustDialog(key, self) for key in keys]
        for dialog in self.trust_dialogs:
            dialog.open()

    @Slot(object)
    def _on_finished(self, result) -> None:
        self.node_gpus.stop()
        if result is not None:
            status = result.status.value
        else:
            status = "interrupted" if self._withdrawn else "failed"
        self._show_ended(status)
        self._show_progress()
        self.tasks.tick()
        self._poll_metrics()
        if result is not None:
            self.run_finished.emit(self.config_name, status, str(self.run_dir))

    def _tick(self) -> None:
        if self.session.running:
            self.tasks.tick()
            self._poll_metrics()
            self._show_countdown()
            self._show_progress()
        self.resources.refresh()
        self.node_gpus.refresh()

    def _show_progress(self) -> None:
        """Each task's progress in the table, the run's for the title (cheap: once a second)."""
        found = []
        for key, parser in self._parsers.items():
            progress = parser.progress()
            self.tasks.set_progress(key, progress)
            if progress is not None:
                found.append(progress)
        # The run's rate would be in percent: the title says how far, and when it ends.
        run = overall(found)
        text = self.tasks.progress_text(run, rate=False) if self.session.running else ""
        if text != self.progress_text:
            self.progress_text = text
            self.progress_changed.emit(text)

    def _poll_metrics(self) -> None:
        tail = self._tail
        if tail is None or self._tail_busy:
            return
        self._tail_busy = True

        def show(points: list) -> None:
            self._tail_busy = False
            for point in points:
                self.metric_charts.add_point(point.task, point.step, point.metrics)
            self.metric_charts.refresh()

        def failed(_exc: BaseException) -> None:
            self._tail_busy = False

        run_in_background(tail.poll, show, failed)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.telemetry.start()

    def shutdown(self, timeout: float = 30.0) -> None:
        """Stop the run (if any) and wait for its tasks to end: called when the app closes.
        The window keeps drawing meanwhile (the countdown; Force stop works); after
        ``timeout`` seconds the tasks are killed."""
        self.tensorboard.stop()
        self.node_gpus.stop()
        self.telemetry.stop()
        if not self.session.running:
            return
        self.stop()
        if not self._wait_finished(timeout):
            self.session.stop()  # a second request kills at once
            self._wait_finished(10.0)

    def _wait_finished(self, seconds: float) -> bool:
        """Process events until the run's ``finished`` (True) or ``seconds`` passed."""
        if not self.session.running:
            return True
        loop = QEventLoop()
        timer = QTimer(loop)
        timer.setSingleShot(True)
        timer.timeout.connect(loop.quit)
        self.session.finished.connect(loop.quit)
        timer.start(int(seconds * 1000))
        loop.exec()
        self.session.finished.disconnect(loop.quit)
        return not self.session.running
