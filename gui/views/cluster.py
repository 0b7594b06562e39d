"""The Cluster view: the config file as forms, validated as you type, with the exact JSON it
saves. What it saves is the config file the CLI runs (``tensordeck --run FILE``). The choices,
defaults, bounds and key order come from core's config model (:mod:`core.jobfile`); a file is
opened with core's reader, and what the user has not edited is saved as the file said it."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import shiboken6
from PySide6.QtCore import QCoreApplication, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.config import (
    ConfigError,
    ConfigProblem,
    JobConfig,
    RestartPolicy,
    SlurmOptions,
    check_config,
    read_config_data,
)
from core.fsio import write_private
from core.jobfile import (
    CLUSTER_SPECS,
    CROSS_DEVICE_OPS,
    KEY_ORDER,
    RESTART_POLICIES,
    SLURM_KEYS,
    STRATEGIES,
    bounds,
    default,
    in_file_order,
    kind,
    new_job,
    run_problems,
)
from core.remote.shell import ENABLE_WINDOWS_SSHD
from gui.background import run_in_background
from gui.i18n import core_text
from gui.style import monospace_font
from gui.widgets.args_edit import ArgsEdit
from gui.widgets.env_editor import EnvEditor
from gui.widgets.node_editor import NodeEditor
from gui.widgets.task_editor import TaskEditor

#: Keys the forms leave out of the file while they hold core's default.
OMITTED_AT_DEFAULT = ("nodes", "address", "cross_device_ops", "slurm")
#: Qt's largest spin box value, for a number core does not bound.
_SPIN_MAX = 2**31 - 1
#: Marks a combo item added to show a value of the file that core does not accept.
_FILE_VALUE = Qt.ItemDataRole.UserRole + 1


def strategy_help(strategy: object) -> str:
    """One plain sentence per strategy ("" for a value that is not one)."""
    texts = {
        "single": QCoreApplication.translate(
            "Strategy", "One process on one GPU (or the CPU). The simplest way to train."),
        "mirrored": QCoreApplication.translate(
            "Strategy", "One process that uses every GPU of this machine and keeps a copy of "
            "the model on each (MirroredStrategy)."),
        "multi_worker_mirrored": QCoreApplication.translate(
            "Strategy", "Several worker processes, each with its GPUs, training one model in "
            "step (MultiWorkerMirroredStrategy)."),
        "parameter_server": QCoreApplication.translate(
            "Strategy", "A chief coordinates, workers compute, ps tasks hold the model's "
            "variables (TF2 ParameterServerStrategy)."),
        "between_graph": QCoreApplication.translate(
            "Strategy", "Classic TensorFlow 1 scripts that read --job_name, --task_index, "
            "--ps_hosts and --worker_hosts (replica_device_setter)."),
    }
    return texts.get(strategy, "") if isinstance(strategy, str) else ""


def _problem_label() -> QLabel:
    label = QLabel()
    label.setObjectName("problem")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)  # it quotes the file: no markup from there
    label.hide()
    return label


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(value: object) -> str:
    """A file's value for a text field: a string as it is, anything else as its JSON."""
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False)


def _select(combo: QComboBox, value: object) -> None:
    """Show ``value`` in ``combo``. A value the combo does not offer (one core refuses) gets an
    item of its own, so the form shows what the file says; it goes at the next select."""
    for index in reversed(range(combo.count())):
        if combo.itemData(index, _FILE_VALUE):
            combo.removeItem(index)
    index = combo.findData(value)
    if index < 0:
        combo.addItem(_text(value), value)
        index = combo.count() - 1
        combo.setItemData(index, True, _FILE_VALUE)
    combo.setCurrentIndex(index)


def _set_bounds(spin: QSpinBox | QDoubleSpinBox, model: type, field: str) -> None:
    low, high = bounds(model, field)
    spin.setRange(low or 0, _SPIN_MAX if high is None else high)


#: The config file's pane may be this narrow before the page scrolls sideways.
PREVIEW_MIN_WIDTH = 160


class _FormsArea(QScrollArea):
    """The forms scroll up and down only, and are never narrower than their widest row: the
    splitter gives the config file's pane less room instead, then the page scrolls (a
    sideways-scrolled form hid its Browse buttons behind its right edge at 1024x700)."""

    def __init__(self) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        forms = self.widget()
        if forms is None:
            return hint
        width = forms.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width()
        return QSize(max(hint.width(), width), hint.height())


class ClusterView(QWidget):
    """Signals: ``changed()`` on any edit (the document is then unsaved),
    ``validity(bool)`` after each validation (True: checked as ``tensordeck validate`` does,
    and valid), ``checked()`` when that deeper check is shown, ``preflight_requested()`` (the
    window saves the config, then checks its machines)."""

    changed = Signal()
    validity = Signal(bool)
    checked = Signal()
    preflight_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path: Path | None = None
        self.dirty = False
        self._loading = False
        self._raw: dict = {}  # the document as loaded: what is saved for keys not edited since
        self._edited: set[str] = set()
        #: What the forms said when the document was loaded or saved: an edit undone by hand
        #: (a value typed back) leaves nothing to save.
        self._clean_form: dict = {}
        self._clean_raw: dict = {}
        self.problems: list[ConfigProblem] = []
        #: What validate() found at once, before the deeper check adds its own.
        self._fast_problems: list[ConfigProblem] = []

        self.name = QLineEdit()
        self.strategy = QComboBox()
        for strategy in STRATEGIES:
            self.strategy.addItem(strategy, strategy)
        self.strategy_help = QLabel()
        self.strategy_help.setObjectName("muted")
        self.strategy_help.setWordWrap(True)
        self.script = QLineEdit()
        self.script.setPlaceholderText(self.tr("train.py (relative to the config file's folder)"))
        script_browse = QPushButton(self.tr("Browse…"))
        self.args = ArgsEdit()
        self.args.setPlaceholderText(self.tr("--epochs 5 --data {run_dir}/data"))
        args_file = QPushButton(self.tr("Add file…"))
        self.python = QComboBox()
        self.python.setEditable(True)
        self.python.lineEdit().setPlaceholderText(
            self.tr("Default: the Python running TensorDeck"))
        python_browse = QPushButton(self.tr("Browse…"))
        self.tasks = TaskEditor()
        self.no_gpu_note = QLabel(self.tr("No NVIDIA GPU was found on this machine: tasks run "
                                          "on the CPU."))
        self.no_gpu_note.setObjectName("muted")
        self.env = EnvEditor()
        self.nodes = NodeEditor()
        self.address = QLineEdit()
        self.address.setPlaceholderText(self.tr("Only when tasks run on other machines too, "
                                                "e.g. 192.168.1.10"))
        sshd_hint = QLabel(self.tr("Each machine needs an SSH server. On Windows 10/11, in an "
                                   "administrator PowerShell:") + f"<br><code>{ENABLE_WINDOWS_SSHD}"
                           "</code>")
        sshd_hint.setObjectName("muted")
        sshd_hint.setWordWrap(True)
        sshd_hint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.preflight_button = QPushButton(self.tr("Preflight"))
        self.preflight_button.setToolTip(self.tr("Check every machine and the connections "
                                                 "between them before a run"))
        self.restart_policy = QComboBox()
        policy_labels = {"never": self.tr("Never: the first failure fails the run"),
                         "on_failure": self.tr("On failure: restart the task")}
        for policy in RESTART_POLICIES:
            self.restart_policy.addItem(policy_labels.get(policy, policy), policy)
        self.max_restarts = QSpinBox()
        _set_bounds(self.max_restarts, RestartPolicy, "max_restarts")
        self.backoff = QDoubleSpinBox()
        _set_bounds(self.backoff, RestartPolicy, "backoff_seconds")
        self.backoff.setSuffix(" s")
        self.grace = QDoubleSpinBox()
        _set_bounds(self.grace, JobConfig, "stop_grace_seconds")
        self.grace.setSuffix(" s")
        self.cluster_spec = QComboBox()
        self.cluster_spec.addItem(self.tr("Default for the strategy"), None)
        spec_labels = {"tf_config": self.tr("TF_CONFIG variable"),
                       "flags": self.tr("--job_name/--task_index flags"), "both": self.tr("Both")}
        for spec in CLUSTER_SPECS:
            self.cluster_spec.addItem(spec_labels.get(spec, spec), spec)
        self.cross_ops = QComboBox()
        ops_labels = {"auto": self.tr("auto (hierarchical copy on Windows)"), "nccl": "NCCL",
                      "hierarchical_copy": "hierarchical copy",
                      "reduction_to_one_device": "reduce to one device"}
        for ops in CROSS_DEVICE_OPS:
            self.cross_ops.addItem(ops_labels.get(ops, ops), ops)
        self.run_dir = QLineEdit()
        self.run_dir.setPlaceholderText(self.tr("Default: runs/<time>-<name> next to the config"))

        # The ``slurm`` block's fields (core's SlurmOptions), by key.
        self.slurm_fields: dict[str, QLineEdit | QSpinBox | QPlainTextEdit] = {
            key: self._slurm_field(key) for key in SLURM_KEYS}
        self._slurm_edited: set[str] = set()

        self.problem_labels: dict[str, QLabel] = {
            key: _problem_label() for key in (
                "", "name", "strategy", "script", "args", "python", "tasks", "nodes", "address",
                "env", "restart", "stop_grace_seconds", "advanced", "slurm")}

        job = QGroupBox(self.tr("Job"))
        form = QFormLayout(job)
        form.addRow(self.problem_labels[""])
        form.addRow(self.tr("Name"), self._with_problem(self.name, "name"))
        form.addRow(self.tr("Strategy"), self._stack(self.strategy, self.strategy_help,
                                                     self.problem_labels["strategy"]))
        form.addRow(self.tr("Script"), self._stack(self._row(self.script, script_browse),
                                                   self.problem_labels["script"]))
        form.addRow(self.tr("Arguments"), self._stack(self._row(self.args, args_file),
                                                      self.problem_labels["args"]))
        form.addRow(self.tr("Interpreter"), self._stack(self._row(self.python, python_browse),
                                                        self.problem_labels["python"]))
        tasks_box = QGroupBox(self.tr("Tasks"))
        tasks_layout = QVBoxLayout(tasks_box)
        tasks_layout.addWidget(self.tasks)
        tasks_layout.addWidget(self.no_gpu_note)
        tasks_layout.addWidget(self.problem_labels["tasks"])
        machines = QGroupBox(self.tr("Machines"))
        machines_layout = QVBoxLayout(machines)
        machines_layout.addWidget(QLabel(self.tr("Other machines of the LAN that run tasks "
                                                 "(choose them in the tasks' Node column).")))
        machines_layout.addWidget(self.nodes)
        machines_layout.addWidget(self.problem_labels["nodes"])
        address_form = QFormLayout()
        address_form.addRow(self.tr("This machine's address"),
                            self._with_problem(self.address, "address"))
        machines_layout.addLayout(address_form)
        machines_layout.addWidget(sshd_hint)
        machines_layout.addWidget(self.preflight_button, 0, Qt.AlignmentFlag.AlignLeft)
        slurm_box = QGroupBox(self.tr("Slurm"))
        slurm_form = QFormLayout(slurm_box)
        slurm_hint = QLabel(self.tr("Used when the Run view's \"Run on\" is a Slurm cluster "
                                    "(tensordeck --run FILE --slurm). Empty: the cluster's "
                                    "default."))
        slurm_hint.setObjectName("muted")
        slurm_hint.setWordWrap(True)
        slurm_form.addRow(slurm_hint)
        slurm_labels = {"partition": self.tr("Partition"), "account": self.tr("Account"),
                        "time_limit": self.tr("Time limit"),
                        "gpus_per_task": self.tr("GPUs per task"),
                        "extra_sbatch": self.tr("More #SBATCH lines")}
        for key, widget in self.slurm_fields.items():
            slurm_form.addRow(slurm_labels.get(key, key), widget)
        slurm_form.addRow(self.problem_labels["slurm"])
        env_box = QGroupBox(self.tr("Environment variables"))
        env_layout = QVBoxLayout(env_box)
        env_layout.addWidget(self.env)
        env_layout.addWidget(self.problem_labels["env"])
        behaviour = QGroupBox(self.tr("Failures and stopping"))
        behaviour_form = QFormLayout(behaviour)
        behaviour_form.addRow(self.tr("Restart policy"), self.restart_policy)
        behaviour_form.addRow(self.tr("Max restarts per task"), self.max_restarts)
        behaviour_form.addRow(self.tr("First restart after"), self.backoff)
        behaviour_form.addRow(self.problem_labels["restart"])
        behaviour_form.addRow(self.tr("Stop grace period"),
                              self._with_problem(self.grace, "stop_grace_seconds"))
        advanced = QGroupBox(self.tr("Advanced"))
        advanced_form = QFormLayout(advanced)
        advanced_form.addRow(self.tr("Cluster description"), self.cluster_spec)
        advanced_form.addRow(self.tr("All-reduce"), self.cross_ops)
        advanced_form.addRow(self.tr("Run folder"), self.run_dir)
        advanced_form.addRow(self.problem_labels["advanced"])

        forms = QWidget()
        forms_layout = QVBoxLayout(forms)
        for box in (job, tasks_box, machines, slurm_box, env_box, behaviour, advanced):
            forms_layout.addWidget(box)
        forms_layout.addStretch(1)
        scroll = _FormsArea()
        scroll.setWidget(forms)

        self.preview = QPlainTextEdit()
        self.preview.setReadOnly(True)
        self.preview.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.preview.setFont(monospace_font())
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # the doctor's titles quote paths
        self.status.setWordWrap(True)
        preview_box = QGroupBox(self.tr("The config file (read-only)"))
        preview_layout = QVBoxLayout(preview_box)
        preview_layout.addWidget(self.status)
        # Keys core does not know are kept as the file says them, and refused by validate:
        # the one way to drop them without an editor.
        self.remove_unknown = QPushButton()
        self.remove_unknown.hide()
        self.remove_unknown.clicked.connect(self._remove_unknown_keys)
        preview_layout.addWidget(self.remove_unknown, 0, Qt.AlignmentFlag.AlignLeft)
        preview_layout.addWidget(self.preview, 1)

        # The file's pane gives way first (its text scrolls): the forms keep their width.
        preview_box.setMinimumWidth(PREVIEW_MIN_WIDTH)
        splitter = QSplitter()
        splitter.addWidget(scroll)
        splitter.addWidget(preview_box)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        title = QLabel(self.tr("Cluster"))
        title.setObjectName("pageTitle")
        self.path_label = QLabel()
        self.path_label.setObjectName("muted")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.addWidget(title)
        layout.addWidget(self.path_label)
        layout.addWidget(splitter, 1)

        self._validate_timer = QTimer(self)
        self._validate_timer.setSingleShot(True)
        self._validate_timer.setInterval(150)
        self._validate_timer.timeout.connect(self.validate)
        self._generation = 0
        self._check_timer = QTimer(self)  # the deep check waits for a pause in the typing
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(400)
        self._check_timer.timeout.connect(self._deep_check)
        for signal, key in (
                (self.name.textChanged, "name"), (self.script.textChanged, "script"),
                (self.args.textChanged, "args"), (self.python.currentTextChanged, "python"),
                (self.tasks.changed, "tasks"), (self.env.changed, "env"),
                (self.nodes.changed, "nodes"), (self.address.textChanged, "address"),
                (self.restart_policy.currentIndexChanged, "restart"),
                (self.max_restarts.valueChanged, "restart"),
                (self.backoff.valueChanged, "restart"),
                (self.grace.valueChanged, "stop_grace_seconds"),
                (self.cluster_spec.currentIndexChanged, "cluster_spec"),
                (self.cross_ops.currentIndexChanged, "cross_device_ops"),
                (self.run_dir.textChanged, "run_dir")):
            signal.connect(lambda *_, key=key: self._on_edit(key))
        self.strategy.currentIndexChanged.connect(self._on_strategy)
        script_browse.clicked.connect(self._browse_script)
        args_file.clicked.connect(self._add_arg_file)
        python_browse.clicked.connect(self._browse_python)
        self.nodes.changed.connect(self._on_nodes)
        self.preflight_button.clicked.connect(self.preflight_requested)
        self.set_machine_gpus([])
        self.load(new_job("my-job", "single", "train.py"), None)

    def _slurm_field(self, key: str) -> QLineEdit | QSpinBox | QPlainTextEdit:
        """The editor of ``slurm.KEY``, as core's model types it; an edit changes that key."""
        hints = {"partition": self.tr("The cluster's default partition"),
                 "account": self.tr("Your default account"),
                 "time_limit": self.tr("The partition's; e.g. 90, 2:00:00 or 1-12:00:00"),
                 "gpus_per_task": self.tr("None"),
                 "extra_sbatch": self.tr("One option a line, e.g. --qos=normal")}
        field_kind = kind(SlurmOptions, key)
        widget: QLineEdit | QSpinBox | QPlainTextEdit
        if field_kind == "lines":
            widget = QPlainTextEdit()
            widget.setPlaceholderText(hints.get(key, ""))
            widget.setTabChangesFocus(True)
            widget.setFixedHeight(widget.fontMetrics().lineSpacing() * 4)
            widget.textChanged.connect(lambda: self._on_slurm_edit(key))
        elif field_kind == "integer":
            widget = QSpinBox()
            _set_bounds(widget, SlurmOptions, key)
            if default(SlurmOptions, key) is None:  # its lowest value: left out, as by default
                widget.setSpecialValueText(hints.get(key, self.tr("Not set")))
            widget.valueChanged.connect(lambda: self._on_slurm_edit(key))
        else:
            widget = QLineEdit()
            widget.setPlaceholderText(hints.get(key, ""))
            widget.textChanged.connect(lambda: self._on_slurm_edit(key))
        return widget

    def _on_slurm_edit(self, key: str) -> None:
        if not self._loading:
            self._slurm_edited.add(key)
        self._on_edit("slurm")

    def _slurm_value(self) -> dict | None:
        """The ``slurm`` block: as loaded, with the fields the user edited as the forms say
        them (at core's default: left out); None when it is left empty."""
        raw = self._raw.get("slurm")
        data = dict(raw) if isinstance(raw, dict) else {}
        for key in self._slurm_edited:
            value = self._slurm_form_value(key)
            if value == default(SlurmOptions, key):
                data.pop(key, None)
            else:
                data[key] = value
        known = {key: data[key] for key in SLURM_KEYS if key in data}
        return {**known, **{k: v for k, v in data.items() if k not in known}} or None

    def _slurm_form_value(self, key: str) -> object:
        """What the form of ``slurm.KEY`` says: lines, a number (its special value: the
        default) or a text (empty: None)."""
        widget = self.slurm_fields[key]
        if isinstance(widget, QPlainTextEdit):
            return [line.strip() for line in widget.toPlainText().splitlines() if line.strip()]
        if isinstance(widget, QSpinBox):
            if widget.specialValueText() and widget.value() == widget.minimum():
                return default(SlurmOptions, key)
            return widget.value()
        return widget.text().strip() or None

    def _load_slurm(self, slurm: object) -> None:
        values = slurm if isinstance(slurm, dict) else {}
        for key, widget in self.slurm_fields.items():
            value = values.get(key, default(SlurmOptions, key))
            if isinstance(widget, QPlainTextEdit):
                widget.setPlainText("\n".join(_text(v) for v in value) if isinstance(value, list)
                                    else _text(value))
            elif isinstance(widget, QSpinBox):
                widget.setValue(value if _is_number(value) else widget.minimum())
            else:
                widget.setText(_text(value))

    # --- layout helpers -----------------------------------------------------------------------

    @staticmethod
    def _row(*widgets: QWidget) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(widgets[0], 1)
        for widget in widgets[1:]:
            row.addWidget(widget)
        return box

    @staticmethod
    def _stack(*widgets: QWidget) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        for widget in widgets:
            column.addWidget(widget)
        return box

    def _with_problem(self, widget: QWidget, key: str) -> QWidget:
        return self._stack(widget, self.problem_labels[key])

    # --- the document -------------------------------------------------------------------------

    def set_machine_gpus(self, gpus: list[tuple[int, str]]) -> None:
        loading, self._loading = self._loading, True  # new GPU choices are not an edit
        self.tasks.set_machine_gpus(gpus)
        self._loading = loading
        self.no_gpu_note.setVisible(not gpus)

    def use_interpreter(self, path: str) -> None:
        """Make ``path`` the job's interpreter, as if typed (an edit: the file is unsaved)."""
        self.python.setEditText(path)

    def set_interpreters(self, paths: list[str]) -> None:
        current = self.python.currentText()
        self.python.blockSignals(True)
        self.python.clear()
        self.python.addItems(paths)
        self.python.setEditText(current)
        self.python.blockSignals(False)

    def machines(self) -> tuple[list[str], bool]:
        """The LAN as the forms say it: the other machines' names, and whether a task runs
        on one of them (then the config runs on the LAN)."""
        names = [name for name in self.nodes.names() if name]
        return names, any(task.get("node") for task in self.tasks.value()
                          if isinstance(task, dict))

    def load(self, data: dict, path: Path | None) -> None:
        """Show ``data`` (a parsed config file, valid or not) in the forms. Until the user edits
        a field, its key is saved as ``data`` says it, values the forms cannot show included."""
        self._loading = True
        self.path = path
        self._raw = dict(data)
        self._edited = set()
        self.name.setText(_text(data.get("name", "")))
        _select(self.strategy, data.get("strategy"))
        self.script.setText(_text(data.get("script", "")))
        args = data.get("args")
        self.args.set_args([a for a in args if isinstance(a, str)] if isinstance(args, list)
                           else [])
        self.python.setEditText(_text(data.get("python")))
        tasks = data.get("tasks")
        self.tasks.set_value(tasks if isinstance(tasks, list) else default(JobConfig, "tasks"))
        nodes = data.get("nodes")
        self.nodes.set_value(nodes if isinstance(nodes, dict) else {})
        self.address.setText(_text(data.get("address")))
        env = data.get("env")
        self.env.set_value(env if isinstance(env, dict) else {})
        restart = data.get("restart")
        restart = restart if isinstance(restart, dict) else {}
        _select(self.restart_policy, restart.get("policy", default(RestartPolicy, "policy")))
        for spin, value, field in (
                (self.max_restarts, restart.get("max_restarts"), "max_restarts"),
                (self.backoff, restart.get("backoff_seconds"), "backoff_seconds")):
            spin.setValue(value if _is_number(value) else default(RestartPolicy, field))
        grace = data.get("stop_grace_seconds")
        self.grace.setValue(grace if _is_number(grace)
                            else default(JobConfig, "stop_grace_seconds"))
        _select(self.cluster_spec, data.get("cluster_spec"))
        _select(self.cross_ops, data.get("cross_device_ops", default(JobConfig,
                                                                     "cross_device_ops")))
        self.run_dir.setText(_text(data.get("run_dir")))
        self._slurm_edited = set()
        self._load_slurm(data.get("slurm"))
        self._loading = False
        self._mark_clean()
        self._update_strategy_help()
        self.validate()

    def _mark_clean(self) -> None:
        self._clean_form = self._form_values()
        self._clean_raw = dict(self._raw)
        self.dirty = False
        self._update_path_label()
        self._show_unknown_keys()

    def unknown_keys(self) -> list[str]:
        """The document's top-level keys that core does not know (kept until removed)."""
        return [key for key in self._raw if key not in KEY_ORDER]

    def _show_unknown_keys(self) -> None:
        unknown = self.unknown_keys()
        self.remove_unknown.setText(self.tr("Remove the unknown keys: {keys}").format(
            keys=", ".join(unknown)))
        self.remove_unknown.setVisible(bool(unknown))

    def _remove_unknown_keys(self) -> None:
        for key in self.unknown_keys():
            del self._raw[key]
        self._show_unknown_keys()
        self._update_dirty()
        self.changed.emit()
        self.validate()

    def load_file(self, path: str | Path) -> None:
        """Open a config file with core's reader; raises ConfigError, with the CLI's messages,
        when it cannot be shown as fields (not JSON, a duplicate key ...: the forms keep
        theirs). Problems of its fields show next to them."""
        self.load(read_config_data(path), Path(path).resolve())

    def _form_values(self) -> dict:
        """Every key the forms edit, as they say it."""
        restart: dict = {"policy": self.restart_policy.currentData(),
                         "max_restarts": self.max_restarts.value()}
        if self.backoff.value() != default(RestartPolicy, "backoff_seconds"):
            restart["backoff_seconds"] = _number(self.backoff.value())
        return {
            "name": self.name.text(),
            "strategy": self.strategy.currentData(),
            "script": self.script.text().strip(),
            "args": self.args.args(),
            "python": self.python.currentText().strip() or None,
            "cluster_spec": self.cluster_spec.currentData(),
            "tasks": self.tasks.value(),
            "nodes": self.nodes.value(),
            "address": self.address.text().strip() or None,
            "env": self.env.value(),
            "cross_device_ops": self.cross_ops.currentData(),
            "restart": restart,
            "stop_grace_seconds": _number(self.grace.value()),
            "run_dir": self.run_dir.text().strip() or None,
            "slurm": self._slurm_value(),
        }

    def to_dict(self) -> dict:
        """The config file: each key the user edited as the forms say it, the others as the
        loaded document said them; keys in core's order, unknown keys kept after them."""
        form = self._form_values()
        data = dict(self._raw)
        for key in self._edited:
            if key in OMITTED_AT_DEFAULT and form[key] == default(JobConfig, key):
                data.pop(key, None)
            else:
                data[key] = form[key]
        return in_file_order(data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def save(self, path: str | Path | None = None) -> Path:
        """Write the config file (to ``path``, or where it came from). Relative script paths
        stay relative to the file's folder. Written whole (a failed write leaves the old file
        as it was); a new file is 0600, as it can hold the job's environment (tokens), and a
        file that was there keeps its permissions: the user chose them."""
        target = Path(path).resolve() if path else self.path
        if target is None:
            raise ValueError("no file name: use save(path)")
        script = self.script.text().strip()
        if script and os.path.isabs(script):
            with contextlib.suppress(ValueError):  # another drive on Windows: keep it absolute
                self.script.setText(os.path.relpath(script, target.parent))
        if target == self.path and not self.dirty and target.exists():
            return target  # nothing edited: the file stays byte for byte as the user wrote it
        try:
            write_private(target, self.to_json(), keep_mode=True)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(target)) from exc
        self.path = target
        self._mark_clean()
        self.validate()  # a new folder: the script, the run folder and the checks may differ
        return target

    # --- validation ---------------------------------------------------------------------------

    def validate(self) -> list[ConfigProblem]:
        """Check the forms at once (core's model, the script's existence, the arguments, the
        machines' names) and show each problem next to its field; then, when they pass and
        the document has a folder, check it as ``tensordeck validate`` does (the interpreter
        run, the ports, the doctor), off the UI thread and a moment after the last edit, and
        show those problems too (``checked`` then). Every problem at once: that check also
        runs while fields are wrong, on the keys that are right, as ``validate`` does."""
        data = self.to_dict()
        try:
            check_config(data)
            problems: list[ConfigProblem] = []
        except ConfigError as exc:
            problems = list(exc.problems)
        problems += self._script_problem(data.get("script", ""))
        if (args_problem := self.args.problem()) is not None:
            problems.append(ConfigProblem(where="args", message=args_problem))
        problems += [ConfigProblem(where="nodes", message=self.tr(
            "two machines are named {name!r}: give each its own name").format(name=name)
            if name else self.tr("a machine has no name: give it one"))
            for name in self.nodes.duplicate_names()]
        self._generation += 1  # a deep check of an older document is no longer shown
        self._fast_problems = problems
        self._show_problems(problems, self.tr("Checking the interpreter, the ports and the "
                                              "doctor's pre-run checks…"))
        self._check_timer.start()
        return problems

    def _deep_check(self) -> None:
        if self.path is None:  # its script and run folder are found from the file's folder
            if not self._fast_problems:
                self._show_problems([], self.tr("No problem in the fields. Saved, the file is "
                                                "also checked as `tensordeck validate` does."))
            self.checked.emit()
            return
        generation, data, path = self._generation, self.to_dict(), self.path
        fast = self._fast_problems

        def show(result: tuple[list[ConfigProblem], list]) -> None:
            if not shiboken6.isValid(self) or generation != self._generation:
                return  # the view closed, or the document changed, meanwhile
            found, warnings = result
            self._show_problems([*fast, *(p for p in found if p not in fast)], None, warnings)
            self.checked.emit()

        run_in_background(lambda: run_problems(data, path), show)

    def _show_problems(self, problems: list[ConfigProblem], pending: str | None,
                       warnings: list | None = None) -> None:
        """Show ``problems`` next to their fields and in the status line; ``pending``: what
        the status says while the deeper check runs (when there is no problem yet)."""
        self.problems = problems
        grouped: dict[str, list[str]] = {key: [] for key in self.problem_labels}
        for problem in problems:
            key, text = self._field_of(problem)
            grouped[key].append(text)
        for key, label in self.problem_labels.items():
            label.setText("\n".join(grouped[key]))
            label.setVisible(bool(grouped[key]))
        for widget, key in ((self.name, "name"), (self.script, "script"), (self.args, "args"),
                            (self.python, "python"), (self.address, "address")):
            widget.setProperty("invalid", bool(grouped[key]))
            widget.style().unpolish(widget)
            widget.style().polish(widget)
        self.preview.setPlainText(self.to_json())
        if problems:
            self.status.setText(self.tr("{n} problem(s) to fix before this config can run.")
                                .format(n=len(problems)))
            self.status.setObjectName("problem")
        elif pending is not None:
            self.status.setText(pending)
            self.status.setObjectName("muted")
        else:
            text = self.tr("Valid: this is exactly the file `tensordeck --run` reads.")
            if warnings:
                text += "\n" + self.tr("The doctor warns: {titles}").format(
                    titles="; ".join(f.title_in() for f in warnings))
            self.status.setText(text)
            self.status.setObjectName("muted")
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)
        self.validity.emit(not problems and pending is None)

    def script_path(self) -> Path | None:
        """The form's script as an absolute path (a relative one only once the config has a
        file to be relative to)."""
        text = self.script.text().strip()
        return self._absolute_script(text) if text else None

    def _absolute_script(self, script: str) -> Path | None:
        path = Path(os.path.expanduser(script))
        if path.is_absolute():
            return path
        return self.path.parent / path if self.path is not None else None

    def _script_problem(self, script: object) -> list[ConfigProblem]:
        if not script or not isinstance(script, str):
            return []  # a script that is not text is core's problem, listed already
        path = self._absolute_script(script)
        if path is None or path.is_file():
            return []
        return [ConfigProblem(where="script", message=self.tr("{path} does not exist").format(
            path=path))]

    def _field_of(self, problem: ConfigProblem) -> tuple[str, str]:
        """Which label shows ``problem``, and its text there."""
        where = problem.where
        if where.startswith("tasks["):
            index = where[len("tasks["):].split("]")[0]
            field = where.split("]", 1)[1].lstrip(".")
            row = int(index) + 1 if index.isdigit() else index
            prefix = self.tr("Row {row}").format(row=row) + (f" ({field})" if field else "")
            return "tasks", f"{prefix}: {core_text(problem.message)}"
        if where.startswith("nodes."):
            _, name, *field = where.split(".", 2)
            place = f"{name} ({field[0]})" if field else name
            return "nodes", f"{place}: {core_text(problem.message)}"
        head = where.split(".")[0].split("[")[0]
        if head in ("cluster_spec", "cross_device_ops", "run_dir"):
            return "advanced", f"{head}: {core_text(problem.message)}"
        if head == "slurm":
            field = where.removeprefix("slurm").lstrip(".")
            return "slurm", f"{field}: {core_text(problem.message)}" if field else core_text(
                problem.message)
        if head in self.problem_labels and head:
            return head, core_text(problem.message)
        return "", str(problem)

    # --- editing ------------------------------------------------------------------------------

    def _on_edit(self, key: str) -> None:
        if self._loading:
            return
        self._edited.add(key)
        self._update_dirty()
        self.changed.emit()
        self._validate_timer.start()

    def _on_strategy(self) -> None:
        self._update_strategy_help()
        self._on_edit("strategy")

    def _on_nodes(self) -> None:
        self.tasks.set_nodes(self.nodes.names())
        self.preflight_button.setEnabled(bool(self.nodes.names()))

    def _update_strategy_help(self) -> None:
        self.strategy_help.setText(strategy_help(self.strategy.currentData()))

    def _update_dirty(self) -> None:
        """Edited: a form says something else than when the document was loaded or saved, or
        a key was removed."""
        form = self._form_values()
        self.dirty = self._raw != self._clean_raw or any(
            form[key] != self._clean_form.get(key) for key in self._edited)
        self._update_path_label()

    def _update_path_label(self) -> None:
        name = str(self.path) if self.path else self.tr("Not saved yet")
        self.path_label.setText(name + (" *" if self.dirty else ""))

    def _browse_script(self) -> None:
        start = str(self.path.parent) if self.path else ""
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Training script"), start,
                                              self.tr("Python scripts (*.py);;All files (*)"))
        if path:
            self.script.setText(self._relative(path))

    def _add_arg_file(self) -> None:
        start = str(self.path.parent) if self.path else ""
        path, _ = QFileDialog.getOpenFileName(self, self.tr("File argument"), start)
        if path:
            self.args.add_arg(self._relative(path))

    def _browse_python(self) -> None:
        pattern = "python.exe" if os.name == "nt" else "python*"
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Training interpreter"), "",
                                              self.tr("Python ({pattern});;All files (*)")
                                              .format(pattern=pattern))
        if path:
            self.python.setEditText(path)

    def _relative(self, path: str) -> str:
        if self.path is None:
            return path
        try:
            return os.path.relpath(path, self.path.parent)
        except ValueError:
            return path
