"""From a validated config to the exact processes of a run: command line, environment,
cluster description (TF_CONFIG or legacy flags), ports and GPUs of every task.

:func:`plan_run` is pure: everything that can be wrong with a run on this machine (missing
script or interpreter, a syntax error, a port in use) is found here, and nothing is made on any
machine. It never talks to nodes (this module does not import ``core.remote``): a node's tasks
get their ports, run folder and local stand-in from ``core.remote.prepare``, through
:meth:`RunPlan.place_on_nodes`, and only a run prepares nodes.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import shutil
import stat
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from core.cluster_rule import cluster_of, render
from core.config import SINGLE_PROCESS, ConfigError, ConfigProblem, JobConfig, Node, show
from core.fsio import foreign_owner
from core.local_checks import (
    command_problem,
    interpreter_check,
    launcher_version,
    open_files_problem,
    os_length,
    port_problems,
    reserve_ports,
    syntax_problem_for,
)
from core.paths import resource, user_data_dir
from core.ports import PortReservation

#: Start order: servers first, so that clients find them listening sooner.
ROLE_ORDER = ("ps", "worker", "chief", "evaluator")
LOCAL_HOST = "localhost"
IS_WINDOWS = sys.platform == "win32"
#: Not for files: kernel state (/proc, /sys) and devices (/dev, its tmpfs gone at boot).
_PSEUDO_FS = ("/proc", "/sys", "/dev")


@dataclass(frozen=True)
class TaskPlan:
    """One process of the run: where it serves (``host``, ``port``) and, worked out from the
    plan by :meth:`RunPlan.launched`, how it starts."""

    role: str
    index: int
    host: str
    port: int | None
    gpus: list[int] | None
    #: The node (config ``nodes``) that runs the task; None: this machine.
    node: str | None = None
    #: The command this machine starts: the task's, or its stand-in's (a node's task: empty
    #: until the node is prepared).
    argv: list[str] = field(default_factory=list)
    #: What TensorDeck adds to the base environment for this task (shown by --dry-run).
    env: dict[str, str] = field(default_factory=dict)
    #: For a node's task: the command on the node.
    remote_argv: list[str] | None = None
    #: For a task with a stand-in: the stand-in's own variables (see :class:`Launcher`).
    launcher_env: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """``worker:1``: the id in events, summaries and TENSORDECK_TASK."""
        return f"{self.role}:{self.index}"

    @property
    def name(self) -> str:
        """``worker-1``: the log prefix and log file stem."""
        return f"{self.role}-{self.index}"

    @property
    def address(self) -> str | None:
        return f"{self.host}:{self.port}" if self.port is not None else None

    @property
    def command(self) -> list[str]:
        """The command that runs the task where it runs (on its node, for a node's task)."""
        return self.remote_argv if self.remote_argv is not None else self.argv


@dataclass(frozen=True)
class Launcher:
    """How this machine starts a task that runs elsewhere: a stand-in's own command (``argv``:
    a LAN node's task) or the words before the task's command (``prefix``: a Slurm step), and
    the stand-in's variables, which go in its environment (a command line is readable by every
    user of the machine)."""

    argv: tuple[str, ...] = ()
    prefix: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class NodePlace:
    """Where a node keeps one run (paths on the node): its run folder, the script there."""

    run_dir: str
    script: str


@dataclass(frozen=True)
class ClusterPlace(NodePlace):
    """Where a Slurm cluster reached through its login node keeps one run, on the file system
    its login and compute nodes share: the run folder, the script, TensorDeck's runtime module
    (a folder for PYTHONPATH) and the interpreter the tasks run with there."""

    runtime: str
    python: str


def planned_place(node: Node, script: Path, run_name: str) -> NodePlace:
    """The node's run folder ``<workdir>/runs/<run name>`` and the script in it (or the node's
    own ``script``), as the config names them; the node's prepare resolves them there."""
    join = ntpath.join if "\\" in node.workdir else posixpath.join
    run_dir = join(node.workdir, "runs", run_name)
    return NodePlace(run_dir, node.script or join(run_dir, script.name))


@dataclass(frozen=True)
class RunPlan:
    """Everything needed to start a run, resolved: no defaults left to guess. Immutable: what
    a target learns (a node's ports, a Slurm job's hosts, another run folder) gives a new plan
    (:meth:`with_node_ports`, :meth:`on_hosts`, :meth:`with_launchers`, :meth:`relocated`),
    whose tasks' commands are worked out again by one function (:meth:`launched`)."""

    config: JobConfig
    config_path: Path
    python: str
    script: Path
    run_dir: Path
    tasks: tuple[TaskPlan, ...]
    #: The environment every task starts from (TensorDeck's own, cleaned; plus env activation).
    base_env: Mapping[str, str]
    #: role -> addresses: what every task is told (core.cluster_rule).
    cluster: dict[str, list[str]] = field(default_factory=dict)
    #: Ports picked by TensorDeck, held until just before the tasks start; owned by the run's
    #: session (``core.session``), which releases them when no run starts.
    reservation: PortReservation | None = None
    #: The run folder is the default one (runs/<stamp>-<name>), not one the user named: if
    #: another launcher takes that name first, the run may take the next one.
    run_dir_default: bool = False
    #: What TensorDeck sets for every task unless the user or the environment did (threads).
    defaults: Mapping[str, str] = field(default_factory=dict)
    #: Per node: its run folder and script (planned; resolved there by the node's prepare).
    node_places: Mapping[str, NodePlace] = field(default_factory=dict)
    #: The Slurm job that runs the tasks (core.slurm.launch), reported in summary.json.
    slurm_job: str | None = None
    #: A Slurm run through the cluster's login node (``--slurm-login``): every task's run
    #: folder and script on the cluster's shared file system.
    cluster_place: ClusterPlace | None = None
    #: By task key: how this machine starts a task that runs elsewhere.
    launchers: Mapping[str, Launcher] = field(default_factory=dict)

    @property
    def node_tasks(self) -> list[TaskPlan]:
        return [t for t in self.tasks if t.node is not None]

    def runs_here(self, task: TaskPlan) -> bool:
        """Whether ``task``'s files and environment are this machine's (else a node's, or the
        Slurm cluster's behind its login node: the task's local process is a stand-in)."""
        return task.node is None and self.cluster_place is None

    def node_ports(self) -> dict[str, list[int | None]]:
        """Per node, the port the config names for each of its tasks (in plan order); None:
        pick one there (the evaluator serves nothing: None as well)."""
        wanted: dict[str, list[int | None]] = {}
        for task, _ in expand_tasks(self.config):
            if task.node is not None:
                port = None if task.role == "evaluator" else task.port
                wanted.setdefault(task.node, []).append(port)
        return wanted

    def with_node_ports(self, ports: Mapping[str, list[int]],
                        places: Mapping[str, NodePlace] | None = None) -> RunPlan:
        """What the nodes said: each node task's port (checked or picked there, in the order
        of :meth:`node_ports`) and, once prepared, the node's run folder and script."""
        given = {name: iter(p) for name, p in ports.items()}
        tasks = tuple(
            replace(t, port=None if t.role == "evaluator" else next(given[t.node]))
            if t.node is not None else t
            for t in self.tasks)
        return replace(self, tasks=tasks,
                       node_places={**self.node_places, **(places or {})}).launched()

    def on_hosts(self, places: Mapping[str, tuple[str, int | None]], *, job: str,
                 cluster_place: ClusterPlace | None, defaults: Mapping[str, str]) -> RunPlan:
        """Where Slurm's job ``job`` put each task (by key: host, port), known only once it was
        granted (core.slurm.launch); ``cluster_place``: the run's folder on the cluster's
        shared file system, for a run through its login node."""
        tasks = tuple(replace(t, host=places[t.key][0], port=places[t.key][1])
                      for t in self.tasks)
        return replace(self, tasks=tasks, slurm_job=job, cluster_place=cluster_place,
                       defaults=defaults).launched()

    def with_launchers(self, launchers: Mapping[str, Launcher]) -> RunPlan:
        return replace(self, launchers={**self.launchers, **launchers}).launched()

    def relocated(self, run_dir: Path) -> RunPlan:
        """The plan in ``run_dir`` instead of the planned folder (its name was taken
        meanwhile): the local tasks' TENSORDECK_RUN_DIR and ``{run_dir}`` arguments follow."""
        return replace(self, run_dir=run_dir).launched()

    def launched(self) -> RunPlan:
        """The plan with the cluster and every task's environment and commands worked out from
        the ports, places and launchers known now."""
        cluster = ({} if self.config.strategy in SINGLE_PROCESS
                   else cluster_of((t.role, t.index, t.address) for t in self.tasks))
        return replace(self, cluster=cluster,
                       tasks=tuple(self._launch(task, cluster) for task in self.tasks))

    def _place(self, task: TaskPlan) -> NodePlace | None:
        """Where ``task``'s files are when not on this machine: its node's, or the cluster's."""
        return self.node_places.get(task.node) if task.node else self.cluster_place

    def _launch(self, task: TaskPlan, cluster: dict[str, list[str]]) -> TaskPlan:
        place = self._place(task)
        run_dir = place.run_dir if place else str(self.run_dir)
        rule = render(self.config, task.role, task.index, cluster, run_dir)
        env = {**self._env(task, place, run_dir), **rule.env}
        launcher = self.launchers.get(task.key, Launcher())
        if task.node is not None:
            assert place is not None  # every node has its planned place
            remote = [self.config.nodes[task.node].python, place.script, *rule.args]
            return replace(task, env=env, remote_argv=remote, argv=list(launcher.argv),
                           launcher_env=dict(launcher.env))
        if isinstance(place, ClusterPlace):  # started through srun as it is
            argv = [place.python, place.script, *rule.args]
        else:
            argv = [self.python, str(self.script), *rule.args]
        return replace(task, env=env, argv=[*launcher.prefix, *argv],
                       launcher_env=dict(launcher.env))

    def _env(self, task: TaskPlan, place: NodePlace | None, run_dir: str) -> dict[str, str]:
        """What TensorDeck adds to the task's environment, TF_CONFIG aside."""
        cfg = self.config
        if place:  # the node's own environment decides; its cores are its own
            env = {k: self.defaults[k] for k in ("PYTHONUNBUFFERED", "PYTHONUTF8")}
        else:
            env = {k: v for k, v in self.defaults.items()
                   if k not in self.base_env and k not in cfg.env}
        env.update(cfg.env)
        env["TENSORDECK_RUN_DIR"] = run_dir
        env["TENSORDECK_TASK"] = task.key
        env["TENSORDECK_CROSS_DEVICE_OPS"] = resolve_cross_device_ops(cfg.cross_device_ops)
        if not place:
            env["PYTHONPATH"] = _with_runtime(
                cfg.env.get("PYTHONPATH", self.base_env.get("PYTHONPATH", "")))
        elif isinstance(place, ClusterPlace):  # a node's agent adds its own copy
            env["PYTHONPATH"] = ":".join(filter(None, [place.runtime, cfg.env.get("PYTHONPATH")]))
        if task.gpus is not None:
            env["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, task.gpus)) if task.gpus else "-1"
        return env

    def task_env(self, task: TaskPlan) -> dict[str, str]:
        """The environment of the local process of ``task``. A node's task gets its variables
        on the node; its local stand-in gets only the ones that name it (so does a task of a
        Slurm run through a login node)."""
        if self.runs_here(task):
            return {**self.base_env, **task.env}
        return {
            **self.base_env,
            "TENSORDECK_RUN_DIR": str(self.run_dir),
            "TENSORDECK_TASK": task.key,
            **task.launcher_env,
        }

    def release_ports(self) -> None:
        """Let the reserved ports go (the session's to call: it owns the reservation)."""
        if self.reservation:
            self.reservation.release()

    def resolved_json(self) -> dict:
        """The resolved config written to the run folder: what really ran."""
        from core.config import config_to_json

        return {
            "config": config_to_json(self.config),
            "config_path": str(self.config_path),
            "python": self.python,
            "script": str(self.script),
            "run_dir": str(self.run_dir),
            "cluster": self.cluster,
            "tasks": [
                {
                    "task": t.key,
                    "role": t.role,
                    "index": t.index,
                    "host": t.host,
                    "port": t.port,
                    "gpus": t.gpus,
                    "node": t.node,
                    "argv": t.command,
                    "env": t.env,
                }
                for t in self.tasks
            ],
        }


def available_cores() -> int:
    """CPU cores this process may use (respects affinity masks and containers' cpusets)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def resolve_python(spec: str | None, base: Path) -> str:
    """The training interpreter: the config's ``python`` (a path, or a name on PATH), or the one
    running TensorDeck. Raises ConfigError when it does not exist."""
    if spec is None:
        if getattr(sys, "frozen", False):
            raise ConfigError(
                str(base),
                [
                    ConfigProblem(
                        where="python",
                        message="choose the training interpreter (a Python with "
                        "TensorFlow); the app's own executable cannot train",
                    )
                ],
            )
        return sys.executable
    # Only ~ is expanded, as in every other path of a config: %NAME% and $NAME are legal in
    # folder names, and a path names exactly the folder the user picked.
    expanded = os.path.expanduser(spec)
    if os.sep in expanded or (os.altsep and os.altsep in expanded):
        path = Path(expanded)
        path = path if path.is_absolute() else base / path
        if problem := path_problem(path):
            raise ConfigError(str(base), [ConfigProblem(where="python", message=problem)])
        # os.path's checks: Path's raise on EACCES, a folder this user may not enter.
        if os.path.isdir(path):
            # A conda env or venv folder: its interpreter.
            for candidate in ("python.exe", "bin/python", "Scripts/python.exe", "bin/python3"):
                if os.path.isfile(path / candidate):
                    return str(path / candidate)
            what = "is a folder without python(.exe), bin/python or Scripts/python.exe"
        elif os.path.isfile(path):
            return str(path)
        else:
            what = "is not a file" if os.path.exists(path) else "does not exist"
        raise ConfigError(
            str(base),
            [
                ConfigProblem(
                    where="python",
                    message=f"{path} {what}; give the path of python(.exe) "
                    "in the training environment",
                )
            ],
        )
    found = shutil.which(expanded) if not path_problem(Path(expanded)) else None
    if not found:
        raise ConfigError(
            str(base),
            [
                ConfigProblem(
                    where="python",
                    message=f"{spec!r} is not on PATH; give the interpreter's full path",
                )
            ],
        )
    return found


def _path_limits(path: Path) -> tuple[int, int]:
    """(longest name, longest path + 1) on the file system that would hold ``path``."""
    if IS_WINDOWS or not hasattr(os, "pathconf"):
        return 255, 260  # MAX_PATH counts the final NUL
    anchor = next((p for p in (path, *path.parents) if os.path.isdir(p)), Path(os.sep))
    try:
        name_max, path_max = os.pathconf(anchor, "PC_NAME_MAX"), os.pathconf(anchor, "PC_PATH_MAX")
    except (OSError, ValueError):
        return 255, 4096
    return (name_max if name_max > 0 else 255), (path_max if path_max > 0 else 4096)


def path_problem(path: Path) -> str | None:
    """Why the OS would refuse ``path`` as too long, as a whole or in one name (None: it fits).
    Checked before anything touches the path: the error would come at the start otherwise."""
    name_max, path_max = _path_limits(path)
    longest = max(path.parts, key=os_length, default="")
    if os_length(longest) > name_max:
        return (
            f"the name '{show(longest, 24)}' in the path is {os_length(longest)} characters long; "
            f"this system allows {name_max}: shorten it"
        )
    if os_length(str(path)) >= path_max:
        return (
            f"the path is {os_length(str(path))} characters long; this system allows "
            f"{path_max - 1}: shorten it"
        )
    return None


#: What a run folder needs of this user: to write in it, and to enter it.
_WRITABLE = os.W_OK | os.X_OK


def run_dir_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a run folder (None: it can). A run folder is new or empty, so no
    file of the user's is ever overwritten, on a disk, where this user may create it. Nothing
    is made here: validate and --dry-run write nothing."""
    if problem := path_problem(path) or _pseudo_fs_problem(path):
        return problem
    if os.path.lexists(path):
        return _existing_run_dir_problem(path)
    return _new_run_dir_problem(path)


def _pseudo_fs_problem(path: Path) -> str | None:
    """Why ``path`` is no place for files: it is in a Linux pseudo file system (/proc ...)."""
    if not sys.platform.startswith("linux"):
        return None
    real = os.path.realpath(path)
    for fs in _PSEUDO_FS:
        if real == fs or real.startswith(fs + "/"):
            return f"{path} is in {fs}, which is not for files; choose a folder on a disk"
    return None


def _existing_run_dir_problem(path: Path) -> str | None:
    """Why ``path``, which exists, cannot be a run folder: not an empty folder of this user's
    that they may write in."""
    if not os.path.isdir(path):
        return f"{path} is a file; choose a folder that is new or empty"
    try:
        entries = sorted(os.listdir(path))
    except OSError as exc:
        return f"cannot read {path} ({exc.strerror}); choose another folder"
    if entries:
        listed = ", ".join(show(e, 30) for e in entries[:3]) + (", ..." * (len(entries) > 3))
        return (
            f"{path} is not empty ({listed}); a run folder must be new or empty, so that "
            "no file in it is overwritten: choose another, or leave run_dir out"
        )
    if problem := foreign_owner(path):
        return problem
    return None if os.access(path, _WRITABLE) else f"{path} is read-only for you"


def _new_run_dir_problem(path: Path) -> str | None:
    """Why ``path``, which does not exist, cannot be made: its nearest existing ancestor is
    not a folder this user may write in."""
    ancestor = next((p for p in path.parents if os.path.lexists(p)), None)
    if ancestor is None:
        return f"cannot create {path}"
    if not os.path.isdir(ancestor):
        return f"{path} is under {ancestor}, which is a file; choose a folder"
    if not os.access(ancestor, _WRITABLE):
        return f"cannot create {path}: {ancestor} is read-only for you; choose another folder"
    return None


def default_run_dir(config_path: Path, name: str, now: float | None = None) -> Path:
    """``<config folder>/runs/<stamp>-<name>``; for a config in a read-only folder or among
    the examples TensorDeck ships (the app's own folder, or the source tree), the same under
    the user's data folder."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    folder = config_path.parent
    if not os.access(folder, os.W_OK) or folder.resolve() == resource("examples").resolve():
        folder = user_data_dir()
    base = folder / "runs" / f"{stamp}-{name}"
    candidate, n = base, 2
    while os.path.lexists(candidate):
        candidate, n = base.with_name(f"{base.name}-{n}"), n + 1
    return candidate


def expand_tasks(cfg: JobConfig) -> list[tuple[TaskPlan, int]]:
    """One TaskPlan per process, with the index of the config entry it came from. Its host is
    the address the other tasks reach it at."""
    next_index: dict[str, int] = {}
    out = []
    for entry_index, group in enumerate(cfg.tasks):
        if group.node is not None:
            host = cfg.nodes[group.node].tf_address
        else:
            host = cfg.address if any(g.node for g in cfg.tasks) and cfg.address else group.host
        for k in range(group.count):
            index = next_index.get(group.role, 0)
            next_index[group.role] = index + 1
            port = group.port + k if group.port is not None else None
            gpus = group.gpus if group.gpus is not None else ([] if group.role == "ps" else None)
            task = TaskPlan(group.role, index, host, port, gpus, node=group.node)
            out.append((task, entry_index))
    out.sort(key=lambda pair: ROLE_ORDER.index(pair[0].role))
    return out


def _thread_budget(n_local: int, cores: int) -> dict[str, str]:
    """Share the cores among the local tasks: by default every TF process sizes its thread
    pools for the whole machine, and N processes on C cores then fight over N*C threads."""
    intra = max(1, cores // max(1, n_local))
    # Never one inter-op thread: a TF2 parameter-server worker with a single inter-op thread
    # deadlocks on the coordinator's first step (seen on TF 2.21).
    inter = 2
    return {
        "TF_NUM_INTRAOP_THREADS": str(intra),
        "TF_NUM_INTEROP_THREADS": str(inter),
        "OMP_NUM_THREADS": str(intra),
    }


def _with_runtime(pythonpath: str) -> str:
    """Put TensorDeck's task-side module (``import tensordeck_runtime``: metrics reporting) first
    on the task's import path, keeping the user's entries."""
    runtime = str(resource("runtime"))
    return os.pathsep.join([runtime, pythonpath]) if pythonpath else runtime


def resolve_cross_device_ops(choice: str, platform: str = sys.platform) -> str:
    """``auto`` means hierarchical copy on Windows, where TF has no NCCL; elsewhere TF decides."""
    if choice == "auto" and platform.startswith("win"):
        return "hierarchical_copy"
    return choice


def plan_run(
    cfg: JobConfig,
    config_path: Path,
    *,
    run_dir: str | Path | None = None,
    base_env: Mapping[str, str] | None = None,
    cores: int | None = None,
    probe_python: bool = False,
) -> RunPlan:
    """Resolve a config into a :class:`RunPlan`, checking files and ports. Raises ConfigError
    naming every problem found.

    The plan itself is pure (:func:`_pure_plan`); the checks that act on this machine
    (``core.local_checks``) run beside it. No folder is made and no node is contacted: a
    node's tasks keep the ports the config names (None: picked on the node) and get their
    stand-ins when the node is prepared (``core.remote.prepare``). ``probe_python``: run the
    interpreter (briefly, cached) to be sure it is a Python, and learn its version. The
    caller owns the returned plan's port reservation (``release_ports``)."""
    config_path = Path(config_path).resolve()
    files = _resolve_files(cfg, config_path, run_dir)
    problems = [*files.problems, *_acting_problems(cfg, files, probe_python)]
    if problems:
        raise ConfigError(str(config_path), problems)
    plan = _with_local_ports(_pure_plan(cfg, config_path, files, base_env, cores)).launched()
    for task in plan.tasks:
        env = {**plan.base_env, **task.env}
        if task.node is None and (problem := command_problem(task.name, task.argv, env, cfg)):
            plan.release_ports()
            raise ConfigError(str(config_path), [problem])
    return plan


@dataclass(frozen=True)
class _Files:
    """What the config's paths resolve to, and why any of them cannot be used."""

    script: Path
    python: str
    run_dir: Path
    run_dir_default: bool
    problems: list[ConfigProblem]


def _resolve_files(cfg: JobConfig, config_path: Path, run_dir: str | Path | None) -> _Files:
    base = config_path.parent
    problems: list[ConfigProblem] = []
    script = Path(os.path.expanduser(cfg.script))
    script = script if script.is_absolute() else base / script
    if problem := path_problem(script) or _script_problem(script):
        problems.append(ConfigProblem(where="script", message=problem))
    try:
        python = resolve_python(cfg.python, base)
    except ConfigError as exc:
        problems += exc.problems
        python = ""
    chosen_dir = run_dir if run_dir is not None else cfg.run_dir
    if chosen_dir is not None:
        resolved_dir = Path(os.path.expanduser(str(chosen_dir)))
        resolved_dir = Path(os.path.abspath(base / resolved_dir))  # base: if relative
    else:
        resolved_dir = default_run_dir(config_path, cfg.name)
    if problem := run_dir_problem(resolved_dir):
        where = "--run-dir" if run_dir is not None else "run_dir"
        problems.append(ConfigProblem(where=where, message=problem))
    return _Files(script, python, resolved_dir, chosen_dir is None, problems)


def _acting_problems(cfg: JobConfig, files: _Files, probe_python: bool) -> list[ConfigProblem]:
    """The interpreter's probe, the script's compile and the open-files limit."""
    problems = []
    version = launcher_version() if files.python == sys.executable else None
    if files.python and probe_python:
        problem, probed = interpreter_check(files.python)
        if problem:
            problems.append(problem)
        else:
            version = probed
    # Compiled by this Python: a newer task Python may accept syntax this one refuses, and a
    # node's interpreter is unknown here (the doctor's warning stays for those).
    script_ok = not any(p.where == "script" for p in files.problems)
    runs_here = any(g.node is None for g in cfg.tasks)
    if script_ok and runs_here and (syntax := syntax_problem_for(files.script, version)):
        problems.append(ConfigProblem(where="script", message=syntax))
    # Every task is a local process: a node's task has its local stand-in.
    if too_many := open_files_problem(sum(g.count for g in cfg.tasks)):
        problems.append(ConfigProblem(where="tasks", message=too_many))
    return problems


def _pure_plan(cfg: JobConfig, config_path: Path, files: _Files,
               base_env: Mapping[str, str] | None, cores: int | None) -> RunPlan:
    """The plan before anything is asked of the machine: every task with the port the config
    wants (None: to pick; the evaluator and a single process serve nothing)."""
    from core.interpreters.activation import activation_env, clean_base_env

    env0 = activation_env(files.python,
                          dict(base_env) if base_env is not None else clean_base_env())
    single = cfg.strategy in SINGLE_PROCESS
    tasks = tuple(replace(t, port=None) if single or (t.role == "evaluator" and t.node is None)
                  else t for t, _ in expand_tasks(cfg))
    defaults = {
        "PYTHONUNBUFFERED": "1",
        "PYTHONUTF8": "1",
        **_thread_budget(sum(t.node is None for t in tasks), cores or available_cores()),
    }
    if sum(t.gpus is None for t in tasks) > 1:
        # Several processes on the same GPUs: without this each grabs all GPU memory at start.
        defaults["TF_FORCE_GPU_ALLOW_GROWTH"] = "true"
    nodes = dict.fromkeys(t.node for t in tasks if t.node is not None)
    return RunPlan(
        config=cfg, config_path=config_path, python=files.python, script=files.script,
        run_dir=files.run_dir, tasks=tasks, base_env=env0,
        run_dir_default=files.run_dir_default, defaults=defaults,
        node_places={name: planned_place(cfg.nodes[name], files.script, files.run_dir.name)
                     for name in nodes})


def _with_local_ports(plan: RunPlan) -> RunPlan:
    """The ports of this machine's serving tasks: the ones the config names checked, the
    others picked and held (the plan's reservation). A node checks its own ports."""
    if plan.config.strategy in SINGLE_PROCESS:
        return plan
    entries = {t.key: entry for t, entry in expand_tasks(plan.config)}
    serving = [t for t in plan.tasks if t.node is None and t.role != "evaluator"]
    named = [(entries[t.key], t.port) for t in serving if t.port is not None]
    if problems := port_problems(named):
        raise ConfigError(str(plan.config_path), problems)
    to_pick = [t.key for t in serving if t.port is None]
    reservation, ports = reserve_ports(len(to_pick))
    picked = dict(zip(to_pick, ports, strict=True))
    tasks = tuple(replace(t, port=picked[t.key]) if t.key in picked else t for t in plan.tasks)
    return replace(plan, tasks=tasks, reservation=reservation)


def _script_problem(script: Path) -> str | None:
    """A script is a regular file: a FIFO or a device would block or flood the doctor's scan."""
    try:
        mode = os.stat(script).st_mode
    except (OSError, ValueError):
        return f"{script} does not exist"
    if stat.S_ISDIR(mode):
        return f"{script} is a folder; give the training script (a .py file)"
    if not stat.S_ISREG(mode):
        return f"{script} is not a regular file (a pipe or a device?); give the training script"
    return None
