"""The first-start wizard (and File > New): interpreter check, strategy in plain words, the
machines of the LAN, tasks and GPUs, script, review. It produces a config dict in the same form
the Cluster view saves: core's strategies, starter tasks, defaults and key order
(:mod:`core.jobfile`)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from core.config import SINGLE_PROCESS
from core.jobfile import STARTER_TASKS, STRATEGIES, new_job
from core.paths import resource
from core.remote.shell import ENABLE_WINDOWS_SSHD
from gui.background import run_in_background
from gui.i18n import core_text
from gui.style import monospace_font
from gui.views.job_form import strategy_help
from gui.widgets.args_edit import ArgsEdit
from gui.widgets.node_editor import NodeEditor
from gui.widgets.screen_fit import within_screen
from gui.widgets.task_editor import TaskEditor

#: Strategies that need NVIDIA GPUs to mean anything: not offered on a machine without one.
NEEDS_GPUS = ("mirrored",)
#: Page ids: the machines page is skipped for the strategies that run one process.
INTERPRETER, STRATEGY, MACHINES, TASKS, SCRIPT, REVIEW = range(6)


def _muted(text: str, rich: bool = False) -> QLabel:
    """A note. Plain text unless ``rich``: a path or a program's words in it (``<b>`` in a
    folder name) are shown as they are, never as markup."""
    label = QLabel(text)
    label.setObjectName("muted")
    label.setWordWrap(True)
    if not rich:
        label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def _problem() -> QLabel:
    label = _muted("")
    label.setObjectName("problem")
    label.hide()
    return label


def _show(label: QLabel, text: str | None) -> None:
    label.setText(text or "")
    label.setVisible(bool(text))


def bundled_example(strategy: str) -> tuple[Path, list[str]] | None:
    """The shipped example (resources/examples) for ``strategy``: its script and arguments.
    A one-process strategy gets the MirroredStrategy example, which runs on one device too."""
    wanted = "mirrored" if strategy in SINGLE_PROCESS else strategy
    folder = resource("examples")
    for config in sorted(folder.glob("*.json")):
        data = json.loads(config.read_text(encoding="utf-8"))
        if data.get("strategy") == wanted:
            return folder / data["script"], list(data.get("args", []))
    return None


class InterpreterPage(QWizardPage):
    """The training interpreter, chosen from those found or typed. Each choice is run (the
    cached metadata probe behind :func:`core.interpreters.probe.interpreter_problem`, the
    check the command line makes) and Next waits until it proved to be a Python.
    ``look=False``: do not search the machine for interpreters and GPUs (tests, screenshots)."""

    #: The machine's GPUs, when the search (``look``) has read them: list[(index, name)].
    gpus_found = Signal(list)

    def __init__(self, look: bool = True) -> None:
        super().__init__()
        self.setTitle(self.tr("Welcome to TensorDeck"))
        self.setSubTitle(self.tr("First, the Python that will run your training. It needs "
                                 "TensorFlow; TensorDeck itself does not."))
        self.python = QComboBox()
        self.python.setEditable(True)
        self.python.addItem(self.tr("The Python running TensorDeck"), None)
        self.python.lineEdit().installEventFilter(self)
        self.status = _muted("")
        self.check_button = QPushButton(self.tr("Full check (imports TensorFlow)"))
        self.findings = _muted("")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(self.tr("Training interpreter")))
        layout.addWidget(self.python)
        layout.addWidget(self.status)
        layout.addWidget(self.check_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.findings)
        layout.addStretch(1)
        self._typing = QTimer(self)  # a typed path is checked once the typing pauses
        self._typing.setSingleShot(True)
        self._typing.setInterval(400)
        self._typing.timeout.connect(self._quick_check)
        # activated too: choosing the item already current after typing over it
        self.python.currentIndexChanged.connect(self._quick_check)
        self.python.activated.connect(self._quick_check)
        self.python.lineEdit().textEdited.connect(self._on_typed)
        self.check_button.clicked.connect(self._full_check)
        self._look = look
        self._looked = False
        self._asked: str | None = None  # the interpreter the latest check is for
        self._proved: str | None = None  # the one the latest finished check proved a Python
        #: The proved interpreter's version ("3.10.12"), None until proved.
        self.python_version: str | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Return in the path field checks the path; it must not press the wizard's Next.
        if (event.type() == QEvent.Type.KeyPress
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)):
            self._typing.stop()
            self._quick_check()
            return True
        return super().eventFilter(watched, event)

    def _on_typed(self) -> None:
        self._asked = self._proved = self.python_version = None
        self.status.setText(self.tr("Checking {python}…").format(python=self._target()))
        self.completeChanged.emit()
        self._typing.start()

    def initializePage(self) -> None:
        if self._asked is None:
            self._quick_check()
        if self._looked or not self._look:
            return
        self._looked = True
        self.status.setText(self.tr("Looking for Python installations…"))

        def discover() -> tuple[list[str], list[tuple[int, str]]]:
            from core.gpu import read_gpus

            gpus = [(g.index, g.name or "GPU") for g in read_gpus(processes=False).gpus]
            return distinct_interpreters(), gpus

        def found(result: tuple[list[str], list[tuple[int, str]]]) -> None:
            self.set_interpreters(result[0])
            self.gpus_found.emit(result[1])
            self._quick_check()  # the status line said "Looking…"

        run_in_background(discover, found, lambda exc: self.status.setText(str(exc)))

    def set_interpreters(self, paths: list[str]) -> None:
        self.python.blockSignals(True)  # new choices change nothing the user chose
        for path in paths:
            if self.python.findText(path) < 0:
                self.python.addItem(path, path)
        self.python.blockSignals(False)

    def chosen(self) -> str | None:
        """The interpreter for the config: a path, or None for TensorDeck's own."""
        text = self.python.currentText().strip()
        if text == self.python.itemText(0):
            return None
        return text or None

    def _target(self) -> str:
        return self.chosen() or sys.executable

    def isComplete(self) -> bool:
        return self._proved is not None and self._proved == self._target()

    def _quick_check(self) -> None:
        python = self._target()
        self._asked, self._proved, self.python_version = python, None, None
        self.completeChanged.emit()
        self.status.setText(self.tr("Checking {python}…").format(python=python))

        def probe():
            from core.interpreters.probe import cached_probe, interpreter_problem

            problem = interpreter_problem(python)
            return problem, None if problem else cached_probe(python, import_tf=False)

        run_in_background(probe, lambda result: self._show_probe(python, *result))

    def _show_probe(self, python: str, problem: str | None, probe) -> None:
        if not shiboken6.isValid(self) or python != self._asked:
            return  # the wizard closed, or another interpreter was chosen, meanwhile
        if problem:
            self.status.setText(core_text(problem))
        else:
            self._proved, self.python_version = python, probe.python_version
            if not probe.tf_version:
                self.status.setText(self.tr("Python {version}: TensorFlow is not installed. "
                                            "Install it, or choose another Python.").format(
                    version=probe.python_version))
            else:
                self.status.setText(self.tr("Python {version} with TensorFlow {tf}.").format(
                    version=probe.python_version, tf=probe.tf_version))
        self.completeChanged.emit()

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
            self.findings.setText("\n".join(f"• [{f.severity}] {f.title_in()}" for f in findings)
                                  + "\n" + self.tr("The Machine view shows each fix."))

        run_in_background(diagnose, show)


class StrategyPage(QWizardPage):
    def __init__(self) -> None:
        super().__init__()
        self.setTitle(self.tr("How should it train?"))
        self.setSubTitle(self.tr("Pick the simplest that fits; you can change it later."))
        self.group = QButtonGroup(self)
        # The choices scroll on a small screen instead of squeezing their help text.
        content = QWidget()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(content)
        scroll.viewport().setAutoFillBackground(False)  # the page's own background
        content.setAutoFillBackground(False)
        QVBoxLayout(self).addWidget(scroll)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        labels = {
            "single": self.tr("One GPU (or the CPU)"),
            "mirrored": self.tr("All GPUs of this machine"),
            "multi_worker_mirrored": self.tr("Several processes, all GPUs in step"),
            "parameter_server": self.tr("Several processes with parameter servers"),
            "between_graph": self.tr("A TensorFlow 1 cluster script"),
        }
        self.buttons: dict[str, QRadioButton] = {}
        self.help: dict[str, QLabel] = {}
        for strategy in STRATEGIES:
            button = QRadioButton(labels.get(strategy, strategy))
            self.group.addButton(button)
            self.buttons[strategy] = button
            layout.addWidget(button)
            self.help[strategy] = _muted(strategy_help(strategy))
            self.help[strategy].setContentsMargins(24, 0, 0, 6)
            layout.addWidget(self.help[strategy])
        layout.addStretch(1)
        self.buttons["single"].setChecked(True)

    def set_machine_gpus(self, gpus: list[tuple[int, str]]) -> None:
        """Without a GPU, the strategies that need GPUs are not offered (they say why)."""
        for strategy in NEEDS_GPUS:
            button = self.buttons[strategy]
            button.setEnabled(bool(gpus))
            note = "" if gpus else " " + self.tr("Needs NVIDIA GPUs: none was found on this "
                                                 "machine.")
            self.help[strategy].setText(strategy_help(strategy) + note)
            if not gpus and button.isChecked():
                self.buttons["single"].setChecked(True)

    def strategy(self) -> str:
        return next(s for s, b in self.buttons.items() if b.isChecked())

    def nextId(self) -> int:
        return TASKS if self.strategy() in SINGLE_PROCESS else MACHINES


class MachinesPage(QWizardPage):
    """Other machines of the LAN that run tasks (optional): the config's ``nodes``."""

    def __init__(self) -> None:
        super().__init__()
        self.setTitle(self.tr("Other machines of the LAN"))
        self.setSubTitle(self.tr("Only if some tasks should run on other computers. Leave it "
                                 "empty to run everything on this machine."))
        self.editor = NodeEditor()
        self.problem = _problem()
        hint = _muted(self.tr("Each machine needs an SSH server. On Windows 10/11, in an "
                              "administrator PowerShell:") + f"<br><code>{ENABLE_WINDOWS_SSHD}"
                      "</code>", rich=True)
        hint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.problem)
        layout.addWidget(hint)
        self.editor.changed.connect(self._check)

    def _check(self) -> None:
        names = self.editor.duplicate_names()
        _show(self.problem, "; ".join(
            self.tr("two machines are named {name!r}: give each its own name").format(name=n)
            if n else self.tr("a machine has no name: give it one") for n in names))
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return not self.editor.duplicate_names()


class TasksPage(QWizardPage):
    def __init__(self, strategy_page: StrategyPage, machines_page: MachinesPage) -> None:
        super().__init__()
        self.setTitle(self.tr("Tasks and GPUs"))
        self._strategy_page = strategy_page
        self._machines_page = machines_page
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
        self.editor.set_nodes([] if single else self._machines_page.editor.names())
        self.editor.add_button.setEnabled(not single)
        self.editor.remove_button.setEnabled(not single)
        self.setSubTitle(self.tr("One process. Choose the GPUs it may use.") if single else
                         self.tr("Each row is one kind of process. Ports: empty ('auto') picks "
                                 "a free one at each start."))
        self.explain.setText(strategy_help(strategy))


class ScriptPage(QWizardPage):
    def __init__(self, strategy_page: StrategyPage, interpreter_page: InterpreterPage) -> None:
        super().__init__()
        self.setTitle(self.tr("The training script"))
        self.setSubTitle(self.tr("The Python file to run, and its arguments."))
        self._strategy_page = strategy_page
        self._interpreter_page = interpreter_page
        self.script = QLineEdit()
        browse = QPushButton(self.tr("Browse…"))
        self.example = QPushButton(self.tr("Use the bundled example"))
        self.example.setToolTip(self.tr("A small script that ships with TensorDeck and trains "
                                        "on made-up data with the chosen strategy"))
        self.script_problem = _problem()
        self.args = ArgsEdit()
        self.args.setPlaceholderText("--epochs 5")
        self.args_problem = _problem()
        self.quiet = QCheckBox(self.tr("Hide TensorFlow's information messages "
                                       "(TF_CPP_MIN_LOG_LEVEL=1)"))
        self.quiet.setChecked(True)
        row = QHBoxLayout()
        row.addWidget(self.script, 1)
        row.addWidget(browse)
        row.addWidget(self.example)
        form = QFormLayout(self)
        form.addRow(self.tr("Script"), row)
        form.addRow("", self.script_problem)
        form.addRow(self.tr("Arguments"), self.args)
        form.addRow("", self.args_problem)
        form.addRow(self.quiet)
        browse.clicked.connect(self._browse)
        self.example.clicked.connect(self._use_example)
        self.args.textChanged.connect(self._check)
        self.script.textChanged.connect(self._check)

    def path(self) -> Path | None:
        """The script as an absolute path (a relative one is from the current folder)."""
        text = self.script.text().strip()
        return Path(os.path.abspath(os.path.expanduser(text))) if text else None

    def problem(self) -> str | None:
        path = self.path()
        if path is None:
            return None  # nothing typed yet: Next waits, without a complaint
        if path.is_dir():
            return self.tr("{path} is a folder: choose the training script in it").format(
                path=path)
        if not path.is_file():
            return self.tr("{path} does not exist").format(path=path)
        # As Start would refuse it (every task would fail at once), where this Python's
        # verdict holds for the chosen one.
        from core.local_checks import syntax_problem_for, version_of

        problem = syntax_problem_for(path, version_of(self._interpreter_page.python_version))
        return core_text(problem) if problem else None

    def initializePage(self) -> None:
        self.example.setEnabled(bundled_example(self._strategy_page.strategy()) is not None)
        self._check()

    def isComplete(self) -> bool:
        return self.path() is not None and self.problem() is None and \
            self.args.problem() is None

    def _check(self) -> None:
        _show(self.script_problem, self.problem())
        _show(self.args_problem, self.args.problem())
        self.completeChanged.emit()

    def _use_example(self) -> None:
        example = bundled_example(self._strategy_page.strategy())
        if example is not None:
            self.script.setText(str(example[0]))
            self.args.set_args(example[1])

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Training script"), "",
                                              self.tr("Python scripts (*.py)"))
        if path:
            self.script.setText(path)


def distinct_interpreters() -> list[str]:
    """The training interpreters found here, each once: paths that start the same interpreter
    (``python`` and ``python3``, a pyenv shim) as the Machine view folds them, and none that
    is the Python running TensorDeck (the list's first choice already)."""
    from core.doctor.machine import unique_probes
    from core.interpreters.discover import discover_interpreters
    from core.interpreters.probe import cached_probe

    found = discover_interpreters(use_conda=True, wsl=True)
    paths = [sys.executable, *(i.path for i in found)]
    return [probe.python for probe in
            unique_probes([cached_probe(path, import_tf=False) for path in paths])[1:]]


def _free_name(folder: Path, stem: str = "job") -> Path:
    """``folder/job.json``, or the first of job-2.json, job-3.json ... that does not exist."""
    candidate, number = folder / f"{stem}.json", 1
    while candidate.exists():
        number += 1
        candidate = folder / f"{stem}-{number}.json"
    return candidate


def default_config_folder(script: Path | None) -> Path:
    """Where a new config goes: next to its script, unless there is none yet or it is one
    TensorDeck ships (its folder may be read-only and belongs to the app): then the user's
    documents, never the current folder (the app's own, when it was started by a double-click
    or from the Start menu)."""
    if script is None or resource("examples") in script.parents:
        import platformdirs

        return Path(platformdirs.user_documents_dir()) / "TensorDeck"
    return script.parent


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
        self.path_note = _muted("")
        self.path_problem = _problem()
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
        form.addRow("", self.path_note)
        form.addRow("", self.path_problem)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview, 1)
        layout.addWidget(self.run_now)
        browse.clicked.connect(self._browse)
        self.name.textChanged.connect(self._update)
        self.path.textChanged.connect(self._update)

    def initializePage(self) -> None:
        if not self.path.text():
            folder = default_config_folder(self._wizard.script_page.path())
            self.path.setText(str(_free_name(folder)))
        self._update()

    def target(self) -> Path | None:
        text = self.path.text().strip()
        return Path(os.path.abspath(os.path.expanduser(text))) if text else None

    def _path_problem(self) -> str | None:
        target = self.target()
        if target is None:
            return None
        if target.is_dir():
            return self.tr("{path} is a folder: add a file name, e.g. job.json").format(
                path=target)
        existing = next((p for p in target.parents if p.exists()), None)
        if existing is not None and not existing.is_dir():
            return self.tr("{path} is a file, not a folder").format(path=existing)
        return None

    def _path_note(self) -> str:
        target = self.target()
        if target is None:
            return ""
        if target.exists():
            return self.tr("{path} exists: Finish asks before replacing it.").format(
                path=target)
        if not target.parent.exists():
            return self.tr("Finish creates the folder {folder}.").format(folder=target.parent)
        return ""

    def isComplete(self) -> bool:
        return (self.target() is not None and self._path_problem() is None
                and bool(self.name.text().strip()))

    def validatePage(self) -> bool:
        """Finish: an existing file is replaced only when the user says so."""
        target = self.target()
        if target is None or not target.exists():
            return True
        answer = QMessageBox.question(
            self, self.tr("Replace the file?"),
            self.tr("{path} exists. Replace it with this config?").format(path=target),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def _browse(self) -> None:
        # Finish asks before replacing a file: the dialog asking too would ask twice.
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save the config"), self.path.text(),
            self.tr("TensorDeck config (*.json)"),
            options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.path.setText(path)

    def _update(self) -> None:
        _show(self.path_problem, self._path_problem())
        _show(self.path_note, self._path_note())
        self.preview.setPlainText(json.dumps(self._wizard.config(), indent=2,
                                             ensure_ascii=False))
        self.completeChanged.emit()


class ConfigWizard(QWizard):
    """After ``exec()``: :meth:`config` (the dict), ``review_page.target()`` (where to save
    it; the user agreed to replace it if it exists) and ``review_page.run_now``."""

    def __init__(self, parent: QWidget | None = None, *, look: bool = True) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("New TensorDeck job"))
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        # 640x480 where the screen has room; on a small or scaled screen (1024x700 at 150% is
        # 683x467) less, so that Next and Finish stay on it.
        self.setMinimumSize(within_screen(self, 640, 480))
        self.interpreter_page = InterpreterPage(look)
        self.strategy_page = StrategyPage()
        self.machines_page = MachinesPage()
        self.tasks_page = TasksPage(self.strategy_page, self.machines_page)
        self.script_page = ScriptPage(self.strategy_page, self.interpreter_page)
        self.review_page = ReviewPage(self)
        for page_id, page in ((INTERPRETER, self.interpreter_page),
                              (STRATEGY, self.strategy_page), (MACHINES, self.machines_page),
                              (TASKS, self.tasks_page), (SCRIPT, self.script_page),
                              (REVIEW, self.review_page)):
            self.setPage(page_id, page)
        self.interpreter_page.gpus_found.connect(self.set_machine_gpus)

    def set_machine_gpus(self, gpus: list[tuple[int, str]]) -> None:
        """This machine's GPUs: the tasks' GPU choices, and the strategies offered."""
        self.strategy_page.set_machine_gpus(gpus)
        self.tasks_page.set_machine_gpus(gpus)

    def example_copy(self) -> tuple[Path, Path] | None:
        """``(example, copy)`` when the script is one TensorDeck ships: Finish copies it beside
        the job (the app's folder is not the user's: read-only, replaced by an update), and
        the job names the copy."""
        script, target = self.script_page.path(), self.review_page.target()
        if script is None or target is None or resource("examples") not in script.parents:
            return None
        copy, number = target.parent / script.name, 1
        while copy.exists() and copy.read_bytes() != script.read_bytes():
            number += 1
            copy = target.parent / f"{script.stem}-{number}{script.suffix}"
        return script, copy

    def _script(self) -> str:
        """The script as the saved file names it: relative to the config's folder if it can."""
        script = self.script_page.path()
        target = self.review_page.target()
        if script is None:
            return ""
        if (example := self.example_copy()) is not None:
            return example[1].name
        if target is not None:
            with contextlib.suppress(ValueError):  # another drive on Windows: keep it absolute
                return os.path.relpath(script, target.parent)
        return str(script)

    def config(self) -> dict:
        """The config the answers describe (the Cluster view's key order and defaults)."""
        strategy = self.strategy_page.strategy()
        env = {}
        if strategy == "parameter_server":
            # TF's advice for PS training: fail RPCs fast so a lost worker is noticed.
            env["GRPC_FAIL_FAST"] = "use_caller"
        if self.script_page.quiet.isChecked():
            env["TF_CPP_MIN_LOG_LEVEL"] = "1"
        values: dict = {"args": self.script_page.args.args(),
                        "python": self.interpreter_page.chosen(),
                        "tasks": self.tasks_page.editor.value(), "env": env}
        nodes = {} if strategy in SINGLE_PROCESS else self.machines_page.editor.value()
        if nodes:
            values["nodes"] = nodes
        return new_job(self.review_page.name.text().strip(), strategy, self._script(),
                       **values)
