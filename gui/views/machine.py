"""The Machine view: GPU cards (live), the training interpreters with a status each, and the
doctor's findings with their evidence, "Copy fix" and (after a confirmation) "Run fix".

A fix runs as the argument lists its step gives (``FixStep.argv``), never through a shell: a path
or an env name in it (a folder named ``x$(id>PWN)``, a name from a pasted log) stays one argument.
Steps that need administrator rights or a restart, or a terminal, offer no "Run" button. Texts
from probes and pasted logs are shown as plain text (a QLabel would render HTML in them)."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QProcess, Qt, QTime, Signal, Slot
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core.findings import Finding, FixStep
from core.gpu.info import GpuInfo, GpuReport, GpuState
from core.output import plain
from gui.background import run_in_background, start_process
from gui.i18n import core_text, kind_label
from gui.style import monospace_font
from gui.views.cards import (
    FindingCard,
    as_card,
    clear_layout,
    fix_programs,
    new_card,
    said_after,
    status_dot,
    text_label,
)
from gui.widgets.elided_label import ElidedLabel

if TYPE_CHECKING:  # the doctor's modules load when a check runs, not with the window
    from core.doctor.machine import InterpreterStatus
    from core.interpreters.probe import ProbeResult
    from gui.explain_dialog import ExplainDialog


class GpuCard(QFrame):
    def __init__(self, gpu: GpuInfo, report: GpuReport) -> None:
        super().__init__()
        layout = as_card(self)
        title = QHBoxLayout()
        title.addWidget(status_dot("error" if gpu.error else "ok"))
        title.addWidget(text_label(f"GPU {gpu.index} · {gpu.name or '?'}", "cardTitle"), 1)
        layout.addLayout(title)
        self.details = text_label("", "muted")
        layout.addWidget(self.details)
        self.driver = (report.driver_version, report.cuda_driver_version)
        self.update_gpu(gpu)

    def update_gpu(self, gpu: GpuInfo) -> None:
        def num(value, unit: str, fmt: str = "{:.0f}") -> str:
            return "—" if value is None else fmt.format(value) + unit

        memory = (f"{num(gpu.memory_used_mib, '')} / {num(gpu.memory_total_mib, ' MiB')}"
                  if gpu.memory_total_mib else "—")
        lines = [
            self.tr("Memory: {memory}").format(memory=memory),
            self.tr("Utilization: {value}").format(value=num(gpu.utilization_gpu, " %")),
            self.tr("Temperature: {value}").format(value=num(gpu.temperature_c, " °C")),
            self.tr("Power: {value}").format(value=num(gpu.power_draw_w, " W")),
            self.tr("Driver {driver} · CUDA up to {cuda}").format(
                driver=self.driver[0] or "?", cuda=self.driver[1] or "?"),
        ]
        if gpu.error:  # NVML's English name of the failure ("GPU is lost"), said
            lines.append(core_text(gpu.error))
        self.details.setText("\n".join(lines))


class InterpreterCard(QFrame):
    """One training interpreter: the state its findings give it (the same colour as they
    have), what it is in the doctor's words, the other paths that start it, and "Use for this
    job"."""

    use_requested = Signal(str)

    def __init__(self, path: str, kind: str, probe: ProbeResult | None = None,
                 status: InterpreterStatus | None = None) -> None:
        super().__init__()
        self.path = path
        layout = as_card(self)
        head = QHBoxLayout()
        self.state = status.state if status else "pending"
        head.addWidget(status_dot(self.state))
        # A path does not wrap (no spaces): cut in its middle, not widening the page.
        title = ElidedLabel(path, mode=Qt.TextElideMode.ElideMiddle)
        title.setObjectName("cardTitle")
        head.addWidget(title, 1)
        head.addWidget(text_label(kind_label(kind), "muted", wrap=False))
        self.use_button = QPushButton(self.tr("Use for this job"))
        self.use_button.setToolTip(self.tr("Train the job in the Cluster view with this "
                                           "interpreter"))
        self.use_button.setEnabled(probe is None or probe.python_version is not None)
        self.use_button.clicked.connect(lambda: self.use_requested.emit(self.path))
        head.addWidget(self.use_button)
        layout.addLayout(head)
        # The doctor's own words, in the window's language (core.messages).
        text = (self.tr("Checking…") if status is None or probe is None
                else status.summary(replace(probe, error=probe.error and said_after(
                    probe.error, probe.python))))
        self.summary = text_label(text, "muted")
        layout.addWidget(self.summary)
        if status and status.aliases:
            layout.addWidget(text_label(self.tr("Also started as: {paths}").format(
                paths=", ".join(status.aliases)), "muted"))


class MachineView(QWidget):
    """Signals: ``gpus_found(list[(index, name)])``, ``interpreters_found(list[str])``,
    ``use_interpreter(str)`` (a card's "Use for this job": the interpreter's path)."""

    gpus_found = Signal(list)
    interpreters_found = Signal(list)
    use_interpreter = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, nvml: object = None) -> None:
        super().__init__(parent)
        self._nvml = nvml
        self.report: GpuReport | None = None
        self.findings: list[Finding] = []
        self.gpu_cards: dict[int, GpuCard] = {}
        self._process: QProcess | None = None
        self._queue: list[tuple[str, ...]] = []  # the fix's programs still to run
        self.checking = False

        title = text_label(self.tr("Machine"), "pageTitle")
        self.refresh_button = QPushButton(self.tr("Check again"))
        #: When the last check ran and how long it took (a check answered from the probe cache
        #: takes a moment: without this, "Check again" looks as if it did nothing).
        self.checked_label = ElidedLabel(self.tr("Not checked yet"))
        self.checked_label.setObjectName("muted")
        self._started = 0.0
        head = QHBoxLayout()
        head.addWidget(title)
        head.addStretch(1)
        head.addWidget(self.checked_label)
        head.addWidget(self.refresh_button)
        self.env_button = QPushButton(self.tr("Make a TensorFlow environment…"))
        self.env_button.setToolTip(self.tr("Build the TensorFlow environment that uses this "
                                           "machine's GPU, check it, and add it here"))
        self.env_button.clicked.connect(self.open_env_dialog)
        self.env_dialog = None
        # The dialogs' buttons on a row of their own: beside the title and "Check again" they
        # made the page scroll sideways at 1024x700 150%.
        tools = QHBoxLayout()
        tools.addWidget(self.env_button)
        self.explain_button = QPushButton(self.tr("Explain an error…"))
        self.explain_button.setToolTip(self.tr("Paste an error output or open a log: the doctor "
                                               "names the cause and the fix"))
        self.explain_button.clicked.connect(self.open_explain_dialog)
        self.explain_dialog: ExplainDialog | None = None
        tools.addWidget(self.explain_button)
        tools.addStretch(1)
        self.gpu_grid = QGridLayout()
        self.interpreters = QVBoxLayout()
        self.findings_box = QVBoxLayout()
        self.fix_output = QPlainTextEdit()
        self.fix_output.setObjectName("log")
        self.fix_output.setReadOnly(True)
        self.fix_output.setFont(monospace_font())
        self.fix_output.setMaximumHeight(180)
        self.fix_output.hide()

        body = QWidget()
        column = QVBoxLayout(body)
        column.addLayout(head)
        column.addLayout(tools)
        for heading, layout in ((self.tr("GPUs"), self.gpu_grid),
                                (self.tr("Training interpreters"), self.interpreters),
                                (self.tr("Findings"), self.findings_box)):
            column.addWidget(text_label(heading, "cardTitle"))
            column.addLayout(layout)
        column.addWidget(self.fix_output)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 8, 12, 8)
        outer.addWidget(scroll)
        self.refresh_button.clicked.connect(self.refresh)

    def open_env_dialog(self) -> None:
        """The environment builder; a built and registered env is checked here at once."""
        from gui.envcreate_dialog import EnvCreateDialog

        self.env_dialog = EnvCreateDialog(self, nvml=self._nvml)
        self.env_dialog.built.connect(lambda _python: self.refresh())
        self.env_dialog.show()

    def open_explain_dialog(self) -> None:
        """One dialog, kept when closed (its paste and answer stay), raised when asked again."""
        if self.explain_dialog is None:
            from gui.explain_dialog import ExplainDialog

            self.explain_dialog = ExplainDialog(self)
        self.explain_dialog.show()
        self.explain_dialog.raise_()
        self.explain_dialog.activateWindow()

    # --- checking -----------------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the GPUs and find interpreters (fast), then probe each (slow), off the GUI
        thread."""
        if self.checking:
            return
        self.checking = True
        self.refresh_button.setEnabled(False)
        self._started = time.monotonic()
        self.checked_label.setText(self.tr("Checking… (started {time})").format(
            time=QTime.currentTime().toString("HH:mm:ss")))
        clear_layout(self.findings_box)
        self.findings_box.addWidget(text_label(self.tr("Checking this machine…"), "muted"))
        nvml = self._nvml

        def look():
            from core.gpu import read_gpus
            from core.interpreters.discover import discover_interpreters

            # With the Pythons inside WSL 2 (none and no cost without wsl.exe).
            return (read_gpus(nvml, processes=False),
                    discover_interpreters(use_conda=True, wsl=True))

        run_in_background(look, self._on_looked, self._on_failed)

    def _on_looked(self, found) -> None:
        report, interpreters = found
        self.show_gpus(report)
        paths = [i.path for i in interpreters]
        self.interpreters_found.emit(paths)
        self.show_interpreters([(i.path, i.kind) for i in interpreters])

        def probe():
            from core.doctor.machine import diagnose_machine
            from core.interpreters.probe import cached_probe

            probes = [cached_probe(p) for p in paths]
            return probes, diagnose_machine(report, probes)

        run_in_background(probe, lambda result: self._on_probed(interpreters, *result),
                          self._on_failed)

    def _on_probed(self, interpreters, probes, findings) -> None:
        from core.doctor.machine import interpreter_statuses

        kinds = {i.path: i.kind for i in interpreters}
        by_path = {p.python: p for p in probes}
        statuses = interpreter_statuses(self.report, probes, findings)
        self.show_interpreters([(st.python, kinds[st.python], by_path[st.python], st)
                                for st in statuses])
        self.show_findings(findings)
        self._done(self.tr("Checked at {time} ({seconds:.1f} s): {n} interpreter(s), "
                           "{m} finding(s)"), n=len(statuses), m=len(findings))

    def _on_failed(self, exc: BaseException) -> None:
        clear_layout(self.findings_box)
        self.findings_box.addWidget(text_label(self.tr("The check failed: {error}").format(
            error=f"{type(exc).__name__}: {exc}"), "problem"))
        self._done(self.tr("Check failed at {time} ({seconds:.1f} s)"))

    def _done(self, message: str, **values: int) -> None:
        self.checking = False
        self.refresh_button.setEnabled(True)
        self.checked_label.setText(message.format(
            time=QTime.currentTime().toString("HH:mm:ss"),
            seconds=time.monotonic() - self._started, **values))

    # --- showing ------------------------------------------------------------------------------

    def show_gpus(self, report: GpuReport) -> None:
        self.report = report
        clear_layout(self.gpu_grid)
        self.gpu_cards.clear()
        if report.state != GpuState.OK:
            frame, layout = new_card()
            head = QHBoxLayout()
            head.addWidget(status_dot("warning" if report.state == GpuState.NO_GPU else "error"))
            head.addWidget(text_label(self._gpu_state_title(report.state), "cardTitle"), 1)
            layout.addLayout(head)
            layout.addWidget(text_label(core_text(report.message), "muted"))
            layout.addWidget(text_label(self.tr("Training still runs on the CPU."), "muted"))
            self.gpu_grid.addWidget(frame, 0, 0, 1, 2)
        for i, gpu in enumerate(report.gpus):
            card = GpuCard(gpu, report)
            self.gpu_cards[gpu.index] = card
            self.gpu_grid.addWidget(card, i // 2, i % 2)
        self.gpus_found.emit([(g.index, g.name or "GPU") for g in report.gpus])

    def _gpu_state_title(self, state: GpuState) -> str:
        return {
            GpuState.NO_DRIVER: self.tr("No NVIDIA driver"),
            GpuState.DRIVER_NOT_LOADED: self.tr("The NVIDIA driver is not running"),
            GpuState.DRIVER_MISMATCH: self.tr("NVIDIA driver mismatch: reboot"),
            GpuState.NO_GPU: self.tr("No NVIDIA GPU"),
        }.get(state, self.tr("The GPUs could not be read"))

    @Slot(object)
    def update_sample(self, sample) -> None:
        """A live :class:`GpuSample`: refresh the cards' numbers."""
        for gpu in sample.gpus:
            card = self.gpu_cards.get(gpu.index)
            if card is not None:
                card.update_gpu(gpu)

    def show_interpreters(self, rows: list[tuple]) -> None:
        """One card per row: (path, kind) while probing, (path, kind, probe, status) after."""
        clear_layout(self.interpreters)
        if not rows:
            self.interpreters.addWidget(text_label(self.tr("No Python found. Install Python with "
                                                       "TensorFlow, or add one in the Cluster "
                                                       "view's Interpreter field."), "problem"))
        for row in rows:
            card = InterpreterCard(*row)
            card.use_requested.connect(self.use_interpreter)
            self.interpreters.addWidget(card)

    def show_findings(self, findings: list[Finding]) -> None:
        self.findings = findings
        clear_layout(self.findings_box)
        if not findings:
            self.findings_box.addWidget(text_label(self.tr("Nothing to fix: no problem found."),
                                               "muted"))
        for finding in findings:
            card = FindingCard(finding)
            card.run_requested.connect(self.run_fix)
            self.findings_box.addWidget(card)

    # --- running a fix ------------------------------------------------------------------------

    def run_fix(self, step: FixStep, confirm: bool = True) -> None:
        programs = fix_programs(step)
        if programs is None or (self._process is not None):
            return
        if confirm:
            answer = QMessageBox.question(
                self, self.tr("Run this command?"),
                self.tr("TensorDeck will run:\n\n{command}\n\nIt may change your system. "
                        "Continue?").format(command=step.command))
            if answer != QMessageBox.StandardButton.Yes:
                return
        self.fix_output.show()
        self.fix_output.appendPlainText("\n".join(plain(f"$ {line}")
                                                  for line in step.command.splitlines()))
        self._queue = list(programs)
        self._start_next()

    def _start_next(self) -> None:
        argv = self._queue.pop(0)
        try:
            self._process = start_process(self, list(argv), self._on_fix_output,
                                          self._on_fix_finished, self._on_fix_error)
        except ValueError as exc:  # a program that cannot be run without a shell
            self.fix_output.appendPlainText(self.tr("[could not start: {error}]").format(
                error=exc))
            self._queue.clear()

    def _on_fix_output(self) -> None:
        if self._process is not None:
            data = bytes(self._process.readAllStandardOutput().data())
            # pip and conda draw bars with \r and colours: shown, never obeyed.
            text = data.decode("utf-8", "replace").replace("\r\n", "\n").rstrip("\n")
            if text:
                self.fix_output.appendPlainText("\n".join(
                    plain(line.rsplit("\r", 1)[-1]) for line in text.split("\n")))

    def _on_fix_finished(self, code: int, _status) -> None:
        self._on_fix_output()
        self.fix_output.appendPlainText(self.tr("[exit code {code}]").format(code=code))
        self._process = None
        if code == 0 and self._queue:
            self._start_next()
        else:
            self._queue.clear()

    def _on_fix_error(self, error) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self.fix_output.appendPlainText(self.tr("[could not start: {error}]").format(
                error=self._process.errorString() if self._process else ""))
            self._process = None
            self._queue.clear()

