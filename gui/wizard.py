"""The first-start wizard (and File > New): interpreter check, strategy in plain words, tasks
and GPUs, script, review. It produces a config dict in the same form the Cluster view saves:
core's strategies, starter tasks, defaults and key order (:mod:`core.jobfile`)."""

from __future__ import annotations

import contextlib
import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from core.config import SINGLE_PROCESS
from core.jobfile import STARTER_TASKS, STRATEGIES, new_job
from gui.background import run_in_background
from gui.style import monospace_font
from gui.views.cluster import strategy_help
from gui.widgets.args_edit import ArgsEdit
from gui.widgets.task_editor import TaskEditor


def _muted(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("muted")
    label.setWordWrap(True)
    return label


class InterpreterPage(QWizardPage):
    """``look=False``: do not search for and probe interpreters (tests, screenshots)."""

    def __init__(self, look: bool = True) -> None:
        super().__init__()
        self.setTitle(self.tr("Welcome to TensorDeck"))
        self.setSubTitle(self.tr("First, the Python that will run your training. It needs "
                                 "TensorFlow; TensorDeck itself does not."))
        self.python = QComboBox()
        self.python.setEditable(True)
        self.python.addItem(self.tr("The Python running TensorDeck"), None)
        self.status = _muted(self.tr("Looking for Python installations…"))
        self.check_button = QPushButton(self.tr("Full check (imports TensorFlow)"))
        self.findings = _muted("")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(self.tr("Training interpreter")))
        layout.addWidget(self.python)
        layout.addWidget(self.status)
        layout.addWidget(self.check_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.findings)
        layout.addStretch(1)
        self.python.currentIndexChanged.connect(self._on_python_changed)
        self.check_button.clicked.connect(self._full_check)
        self._look = look
        self._looked = False

    def _on_python_changed(self) -> None:
        if self._look:
            self._quick_check()

    def initializePage(self) -> None:
        if self._looked or not self._look:
            return
        self._looked = True

        def discover():
            from core.interpreters.discover import discover_interpreters

            return [i.path for i in discover_interpreters(use_conda=True)]

        run_in_background(discover, self.set_interpreters,
                          lambda exc: self.status.setText(str(exc)))

    def set_interpreters(self, paths: list[str]) -> None:
        for path in paths:
            if self.python.findText(path) < 0:
                self.python.addItem(path, path)
        self._on_python_changed()

    def chosen(self) -> str | None:
        """The interpreter for the config: a path, or None for TensorDeck's own."""
        text = self.python.currentText().strip()
        if self.python.currentIndex() == 0 and text == self.python.itemText(0):
            return None
        return text or None

    def _target(self) -> str:
        import sys

        return self.chosen() or sys.executable

    def _quick_check(self) -> None:
        python = self._target()
        self.status.setText(self.tr("Checking {python}…").format(python=python))

        def probe():
            from core.interpreters.probe import cached_probe

            return cached_probe(python, import_tf=False)

        run_in_background(probe, self._show_probe)

    def _show_probe(self, probe) -> None:
        if probe.error:
            self.status.setText(self.tr("Problem: {error}").format(error=probe.error))
        elif not probe.tf_version:
            self.status.setText(self.tr("Python {version}: TensorFlow is not installed. "
                                        "Install it, or choose another Python.").format(
                version=probe.python_version))
        else:
            self.status.setText(self.tr("Python {version} with TensorFlow {tf}.").format(
                version=probe.python_version, tf=probe.tf_version))

    def _full_check(self) -> None:
        python = self._target()
        self.check_button.setEnabled(False)
        self.findings.setText(self.tr("Importing TensorFlow in {python}…").format(python=python))

        def diagnose():
            from core.doctor.machine import diagnose_machine
            from core.gpu import read_gpus
            from core.interpreters.probe import cached_probe

            return diagnose_machine(read_gpus(processes=False), [cached_probe(python)])

        def show(findings) -> None:
            self.check_button.setEnabled(True)
            if not findings:
                self.findings.setText(self.tr("No problem found."))
                return
            self.findings.setText("\n".join(f"• [{f.severity}] {f.title}" for f in findings)
                                  + "\n" + self.tr("The Machine view shows each fix."))

        run_in_background(diagnose, show)


class StrategyPage(QWizardPage):
    def __init__(self) -> None:
        super().__init__()
        self.setTitle(self.tr("How should it train?"))
        self.setSubTitle(self.tr("Pick the simplest that fits; you can change it later."))
        self.group = QButtonGroup(self)
        layout = QVBoxLayout(self)
        labels = {
            "single": self.tr("One GPU (or the CPU)"),
            "mirrored": self.tr("All GPUs of this machine"),
            "multi_worker_mirrored": self.tr("Several processes, all GPUs in step"),
            "parameter_server": self.tr("Several processes with parameter servers"),
            "between_graph": self.tr("A TensorFlow 1 cluster script"),
        }
        self.buttons: dict[str, QRadioButton] = {}
        for strategy in STRATEGIES:
            button = QRadioButton(labels.get(strategy, strategy))
            self.group.addButton(button)
            self.buttons[strategy] = button
            layout.addWidget(button)
            help_label = _muted(strategy_help(strategy))
            help_label.setContentsMargins(24, 0, 0, 6)
            layout.addWidget(help_label)
        layout.addStretch(1)
        self.buttons["single"].setChecked(True)

    def strategy(self) -> str:
        return next(s for s, b in self.buttons.items() if b.isChecked())


class TasksPage(QWizardPage):
    def __init__(self, strategy_page: StrategyPage) -> None:
        super().__init__()
        self.setTitle(self.tr("Tasks and GPUs"))
        self._strategy_page = strategy_page
        self._for_strategy: str | None = None
        self.editor = TaskEditor()
        self.explain = _muted("")
        self.no_gpu = _muted(self.tr("No NVIDIA GPU was found on this machine: the tasks will "
                                     "run on the CPU."))
        layout = QVBoxLayout(self)
        layout.addWidget(self.explain)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.no_gpu)

    def set_machine_gpus(self, gpus: list[tuple[int, str]]) -> None:
        self.editor.set_machine_gpus(gpus)
        self.no_gpu.setVisible(not gpus)

    def initializePage(self) -> None:
        strategy = self._strategy_page.strategy()
        if strategy != self._for_strategy:  # keep the user's edits when coming back
            self._for_strategy = strategy
            self.editor.set_value(STARTER_TASKS[strategy])
        single = strategy in SINGLE_PROCESS
        self.editor.add_button.setEnabled(not single)
        self.editor.remove_button.setEnabled(not single)
        self.setSubTitle(self.tr("One process. Choose the GPUs it may use.") if single else
                         self.tr("Each row is one kind of process. Ports: 'auto' picks a free "
                                 "one at each start."))
        self.explain.setText(strategy_help(strategy))


class ScriptPage(QWizardPage):
    def __init__(self) -> None:
        super().__init__()
        self.setTitle(self.tr("The training script"))
        self.setSubTitle(self.tr("The Python file to run, and its arguments."))
        self.script = QLineEdit()
        browse = QPushButton(self.tr("Browse…"))
        self.args = ArgsEdit()
        self.args.setPlaceholderText("--epochs 5")
        self.args_problem = QLabel()
        self.args_problem.setObjectName("problem")
        self.args_problem.setWordWrap(True)
        self.args_problem.hide()
        self.quiet = QCheckBox(self.tr("Hide TensorFlow's information messages "
                                       "(TF_CPP_MIN_LOG_LEVEL=1)"))
        self.quiet.setChecked(True)
        row = QHBoxLayout()
        row.addWidget(self.script, 1)
        row.addWidget(browse)
        form = QFormLayout(self)
        form.addRow(self.tr("Script"), row)
        form.addRow(self.tr("Arguments"), self.args)
        form.addRow("", self.args_problem)
        form.addRow(self.quiet)
        browse.clicked.connect(self._browse)
        self.args.textChanged.connect(self._check_args)
        self.registerField("script*", self.script)

    def isComplete(self) -> bool:
        return super().isComplete() and self.args.problem() is None

    def _check_args(self) -> None:
        problem = self.args.problem()
        self.args_problem.setText(problem or "")
        self.args_problem.setVisible(problem is not None)
        self.completeChanged.emit()

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Training script"), "",
                                              self.tr("Python scripts (*.py)"))
        if path:
            self.script.setText(path)


class ReviewPage(QWizardPage):
    def __init__(self, wizard: ConfigWizard) -> None:
        super().__init__()
        self.setTitle(self.tr("Review and save"))
        self.setSubTitle(self.tr("This is the config file TensorDeck will save. The command "
                                 "line runs the same file: tensordeck --run FILE"))
        self._wizard = wizard
        self.name = QLineEdit("my-job")
        self.path = QLineEdit()
        browse = QPushButton(self.tr("Save as…"))
        self.preview = QPlainTextEdit()
        self.preview.setReadOnly(True)
        self.preview.setFont(monospace_font())
        self.run_now = QCheckBox(self.tr("Start the run when I press Finish"))
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form = QFormLayout()
        form.addRow(self.tr("Job name"), self.name)
        form.addRow(self.tr("Config file"), row)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview, 1)
        layout.addWidget(self.run_now)
        browse.clicked.connect(self._browse)
        self.name.textChanged.connect(self._update)
        self.path.textChanged.connect(self._update)

    def initializePage(self) -> None:
        if not self.path.text():
            script = self._wizard.script_page.script.text()
            folder = os.path.dirname(os.path.abspath(script)) if script else os.getcwd()
            self.path.setText(os.path.join(folder, "job.json"))
        self._update()

    def isComplete(self) -> bool:
        return bool(self.path.text().strip()) and bool(self.name.text().strip())

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save the config"), self.path.text(),
                                              self.tr("TensorDeck config (*.json)"))
        if path:
            self.path.setText(path)

    def _update(self) -> None:
        import json

        self.preview.setPlainText(json.dumps(self._wizard.config(), indent=2))
        self.completeChanged.emit()


class ConfigWizard(QWizard):
    """After ``exec()``: :meth:`config` (the dict), ``review_page.path`` (where to save it) and
    ``review_page.run_now``."""

    def __init__(self, parent: QWidget | None = None, *, look: bool = True) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("New TensorDeck job"))
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setMinimumSize(720, 540)
        self.interpreter_page = InterpreterPage(look)
        self.strategy_page = StrategyPage()
        self.tasks_page = TasksPage(self.strategy_page)
        self.script_page = ScriptPage()
        self.review_page = ReviewPage(self)
        for page in (self.interpreter_page, self.strategy_page, self.tasks_page,
                     self.script_page, self.review_page):
            self.addPage(page)

    def _script(self) -> str:
        """The script as the saved file names it: relative to the config's folder if it can."""
        script = self.script_page.script.text().strip()
        target = self.review_page.path.text().strip()
        if script and target and os.path.isabs(script):
            with contextlib.suppress(ValueError):  # another drive on Windows: keep it absolute
                return os.path.relpath(script, os.path.dirname(os.path.abspath(target)))
        return script

    def config(self) -> dict:
        """The config the answers describe (the Cluster view's key order and defaults)."""
        strategy = self.strategy_page.strategy()
        env = {}
        if strategy == "parameter_server":
            # TF's advice for PS training: fail RPCs fast so a lost worker is noticed.
            env["GRPC_FAIL_FAST"] = "use_caller"
        if self.script_page.quiet.isChecked():
            env["TF_CPP_MIN_LOG_LEVEL"] = "1"
        return new_job(self.review_page.name.text().strip(), strategy, self._script(),
                       args=self.script_page.args.args(), python=self.interpreter_page.chosen(),
                       tasks=self.tasks_page.editor.value(), env=env)
