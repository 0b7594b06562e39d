"""A job's config as forms: one field per key of the file, in groups (the job, its tasks, the
machines of the LAN, Slurm, the environment, failures and stopping, advanced), each with the
label its problems show in. The choices, defaults and bounds come from core's config model
(:mod:`core.jobfile`). The Cluster view (gui/views/cluster.py) is this form with its file."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.config import ConfigProblem, JobConfig, RestartPolicy
from core.jobfile import CLUSTER_SPECS, CROSS_DEVICE_OPS, RESTART_POLICIES, STRATEGIES, default
from core.remote.shell import ENABLE_WINDOWS_SSHD
from gui.views.field_problems import PROBLEM_KEYS, field_of
from gui.views.slurm_form import SlurmForm
from gui.widgets.args_edit import ArgsEdit
from gui.widgets.env_editor import EnvEditor
from gui.widgets.form_layout import FormsArea, form, problem_label, row, shrinkable, stack
from gui.widgets.form_values import as_number, as_text, is_number, select, set_bounds
from gui.widgets.node_editor import NodeEditor
from gui.widgets.task_editor import TaskEditor


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


class JobForm(QWidget):
    """The fields, in :attr:`forms_area` (a subclass lays out the page around it).
    ``edited(key)``: the user changed the field of the file's ``key`` (not when a file is
    shown with :meth:`show_values`). ``path``: the config file, whose folder relative paths
    (the script, file arguments) start from; None until it has one."""

    edited = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path: Path | None = None
        self._loading = False
        self.problem_labels: dict[str, QLabel] = {key: problem_label() for key in PROBLEM_KEYS}
        self.slurm = SlurmForm(self.problem_labels["slurm"])
        self.slurm_fields = self.slurm.fields
        forms = QWidget()
        forms_layout = QVBoxLayout(forms)
        for box in (self._job_box(), self._tasks_box(), self._machines_box(), self.slurm,
                    self._env_box(), self._behaviour_box(), self._advanced_box()):
            forms_layout.addWidget(box)
        forms_layout.addStretch(1)
        self.forms_area = FormsArea()
        self.forms_area.setWidget(forms)
        self._connect_edits()

    # --- the groups ---------------------------------------------------------------------------

    def _job_box(self) -> QGroupBox:
        self.name = QLineEdit()
        self.strategy = shrinkable(QComboBox())
        for strategy in STRATEGIES:
            self.strategy.addItem(strategy, strategy)
        self.strategy_help = QLabel()
        self.strategy_help.setObjectName("muted")
        self.strategy_help.setWordWrap(True)
        self.script = QLineEdit()
        self.script.setPlaceholderText(self.tr("train.py (relative to the config file's folder)"))
        script_browse = QPushButton(self.tr("Browse…"))
        script_browse.clicked.connect(self._browse_script)
        self.args = ArgsEdit()
        self.args.setPlaceholderText(self.tr("--epochs 5 --data {run_dir}/data"))
        args_file = QPushButton(self.tr("Add file…"))
        args_file.clicked.connect(self._add_arg_file)
        self.python = shrinkable(QComboBox())
        self.python.setEditable(True)
        self.python.lineEdit().setPlaceholderText(
            self.tr("Default: the Python running TensorDeck"))
        python_browse = QPushButton(self.tr("Browse…"))
        python_browse.clicked.connect(self._browse_python)
        labels = self.problem_labels
        job = QGroupBox(self.tr("Job"))
        fields = form(job)
        fields.addRow(labels[""])
        fields.addRow(self.tr("Name"), stack(self.name, labels["name"]))
        fields.addRow(self.tr("Strategy"), stack(self.strategy, self.strategy_help,
                                                 labels["strategy"]))
        fields.addRow(self.tr("Script"), stack(row(self.script, script_browse),
                                               labels["script"]))
        fields.addRow(self.tr("Arguments"), stack(row(self.args, args_file), labels["args"]))
        fields.addRow(self.tr("Interpreter"), stack(row(self.python, python_browse),
                                                    labels["python"]))
        return job

    def _tasks_box(self) -> QGroupBox:
        self.tasks = TaskEditor()
        self.no_gpu_note = QLabel(self.tr("No NVIDIA GPU was found on this machine: tasks run "
                                          "on the CPU."))
        self.no_gpu_note.setObjectName("muted")
        self.no_gpu_note.setWordWrap(True)
        box = QGroupBox(self.tr("Tasks"))
        layout = QVBoxLayout(box)
        layout.addWidget(self.tasks)
        layout.addWidget(self.no_gpu_note)
        layout.addWidget(self.problem_labels["tasks"])
        return box

    def _machines_box(self) -> QGroupBox:
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
        box = QGroupBox(self.tr("Machines"))
        layout = QVBoxLayout(box)
        intro = QLabel(self.tr("Other machines of the LAN that run tasks (choose them in the "
                               "tasks' Node column)."))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        layout.addWidget(self.nodes)
        layout.addWidget(self.problem_labels["nodes"])
        address_form = form()
        address_form.addRow(self.tr("This machine's address"),
                            stack(self.address, self.problem_labels["address"]))
        layout.addLayout(address_form)
        layout.addWidget(sshd_hint)
        layout.addWidget(self.preflight_button, 0, Qt.AlignmentFlag.AlignLeft)
        return box

    def _env_box(self) -> QGroupBox:
        self.env = EnvEditor()
        box = QGroupBox(self.tr("Environment variables"))
        layout = QVBoxLayout(box)
        layout.addWidget(self.env)
        layout.addWidget(self.problem_labels["env"])
        return box

    def _behaviour_box(self) -> QGroupBox:
        self.restart_policy = shrinkable(QComboBox())
        policy_labels = {"never": self.tr("Never: the first failure fails the run"),
                         "on_failure": self.tr("On failure: restart the task")}
        for policy in RESTART_POLICIES:
            self.restart_policy.addItem(policy_labels.get(policy, policy), policy)
        self.max_restarts = QSpinBox()
        set_bounds(self.max_restarts, RestartPolicy, "max_restarts")
        self.backoff = QDoubleSpinBox()
        set_bounds(self.backoff, RestartPolicy, "backoff_seconds")
        self.backoff.setSuffix(" s")
        self.grace = QDoubleSpinBox()
        set_bounds(self.grace, JobConfig, "stop_grace_seconds")
        self.grace.setSuffix(" s")
        box = QGroupBox(self.tr("Failures and stopping"))
        fields = form(box)
        fields.addRow(self.tr("Restart policy"), self.restart_policy)
        fields.addRow(self.tr("Max restarts per task"), self.max_restarts)
        fields.addRow(self.tr("First restart after"), self.backoff)
        fields.addRow(self.problem_labels["restart"])
        fields.addRow(self.tr("Stop grace period"),
                      stack(self.grace, self.problem_labels["stop_grace_seconds"]))
        return box

    def _advanced_box(self) -> QGroupBox:
        self.cluster_spec = shrinkable(QComboBox())
        self.cluster_spec.addItem(self.tr("Default for the strategy"), None)
        spec_labels = {"tf_config": self.tr("TF_CONFIG variable"),
                       "flags": self.tr("--job_name/--task_index flags"), "both": self.tr("Both")}
        for spec in CLUSTER_SPECS:
            self.cluster_spec.addItem(spec_labels.get(spec, spec), spec)
        self.cross_ops = shrinkable(QComboBox())
        ops_labels = {"auto": self.tr("auto (hierarchical copy on Windows)"), "nccl": "NCCL",
                      "hierarchical_copy": "hierarchical copy",
                      "reduction_to_one_device": "reduce to one device"}
        for ops in CROSS_DEVICE_OPS:
            self.cross_ops.addItem(ops_labels.get(ops, ops), ops)
        self.run_dir = QLineEdit()
        self.run_dir.setPlaceholderText(self.tr("Default: runs/<time>-<name> next to the config"))
        box = QGroupBox(self.tr("Advanced"))
        fields = form(box)
        fields.addRow(self.tr("Cluster description"), self.cluster_spec)
        fields.addRow(self.tr("All-reduce"), self.cross_ops)
        fields.addRow(self.tr("Run folder"), self.run_dir)
        fields.addRow(self.problem_labels["advanced"])
        return box

    def _connect_edits(self) -> None:
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
                (self.run_dir.textChanged, "run_dir"), (self.slurm.edited, "slurm")):
            signal.connect(lambda *_, key=key: self._emit_edited(key))
        self.strategy.currentIndexChanged.connect(self._on_strategy)
        self.nodes.changed.connect(self._on_nodes)

    def _emit_edited(self, key: str) -> None:
        if not self._loading:
            self.edited.emit(key)

    def _on_strategy(self) -> None:
        self._update_strategy_help()
        self._emit_edited("strategy")

    def _on_nodes(self) -> None:
        self.tasks.set_nodes(self.nodes.names())
        self.preflight_button.setEnabled(bool(self.nodes.names()))

    def _update_strategy_help(self) -> None:
        self.strategy_help.setText(strategy_help(self.strategy.currentData()))

    # --- values -------------------------------------------------------------------------------

    def form_values(self, loaded: dict) -> dict:
        """Every key the forms edit, as they say it (``loaded``: the file as shown, whose
        ``slurm`` keys the user has not edited are kept as they are)."""
        restart: dict = {"policy": self.restart_policy.currentData(),
                         "max_restarts": self.max_restarts.value()}
        if self.backoff.value() != default(RestartPolicy, "backoff_seconds"):
            restart["backoff_seconds"] = as_number(self.backoff.value())
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
            "stop_grace_seconds": as_number(self.grace.value()),
            "run_dir": self.run_dir.text().strip() or None,
            "slurm": self.slurm.value(loaded.get("slurm")),
        }

    def show_values(self, data: dict) -> None:
        """Show ``data`` (a parsed config file, valid or not) in the fields; not an edit."""
        self._loading = True
        self.name.setText(as_text(data.get("name", "")))
        select(self.strategy, data.get("strategy"))
        self.script.setText(as_text(data.get("script", "")))
        args = data.get("args")
        self.args.set_args([a for a in args if isinstance(a, str)] if isinstance(args, list)
                           else [])
        self.python.setEditText(as_text(data.get("python")))
        tasks = data.get("tasks")
        self.tasks.set_value(tasks if isinstance(tasks, list) else default(JobConfig, "tasks"))
        nodes = data.get("nodes")
        self.nodes.set_value(nodes if isinstance(nodes, dict) else {})
        self.address.setText(as_text(data.get("address")))
        env = data.get("env")
        self.env.set_value(env if isinstance(env, dict) else {})
        self._show_behaviour(data)
        self.slurm.load(data.get("slurm"))
        self._loading = False
        self._update_strategy_help()

    def _show_behaviour(self, data: dict) -> None:
        """The groups Failures and stopping, and Advanced."""
        restart = data.get("restart")
        restart = restart if isinstance(restart, dict) else {}
        select(self.restart_policy, restart.get("policy", default(RestartPolicy, "policy")))
        for spin, value, field in (
                (self.max_restarts, restart.get("max_restarts"), "max_restarts"),
                (self.backoff, restart.get("backoff_seconds"), "backoff_seconds")):
            spin.setValue(value if is_number(value) else default(RestartPolicy, field))
        grace = data.get("stop_grace_seconds")
        self.grace.setValue(grace if is_number(grace)
                            else default(JobConfig, "stop_grace_seconds"))
        select(self.cluster_spec, data.get("cluster_spec"))
        select(self.cross_ops, data.get("cross_device_ops", default(JobConfig,
                                                                    "cross_device_ops")))
        self.run_dir.setText(as_text(data.get("run_dir")))

    def show_field_problems(self, problems: list[ConfigProblem]) -> None:
        """Each problem next to its field (the fields with one are marked invalid)."""
        grouped: dict[str, list[str]] = {key: [] for key in self.problem_labels}
        for problem in problems:
            key, text = field_of(problem)
            grouped[key].append(text)
        for key, label in self.problem_labels.items():
            label.setText("\n".join(grouped[key]))
            label.setVisible(bool(grouped[key]))
        for widget, key in ((self.name, "name"), (self.script, "script"), (self.args, "args"),
                            (self.python, "python"), (self.address, "address")):
            widget.setProperty("invalid", bool(grouped[key]))
            widget.style().unpolish(widget)
            widget.style().polish(widget)

    # --- what this machine offers -------------------------------------------------------------

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

    # --- files --------------------------------------------------------------------------------

    def script_path(self) -> Path | None:
        """The form's script as an absolute path (a relative one only once the config has a
        file to be relative to)."""
        text = self.script.text().strip()
        return self.absolute_script(text) if text else None

    def absolute_script(self, script: str) -> Path | None:
        path = Path(os.path.expanduser(script))
        if path.is_absolute():
            return path
        return self.path.parent / path if self.path is not None else None

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
