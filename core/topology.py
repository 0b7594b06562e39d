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
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from core.cluster_rule import RUN_DIR_PLACEHOLDER, cluster_of, fill_run_dir, render
from core.config import SINGLE_PROCESS, ConfigError, ConfigProblem, JobConfig, Node, show
from core.fsio import foreign_owner
from core.paths import resource, user_data_dir
from core.ports import PortReservation, port_problem

#: Start order: servers first, so that clients find them listening sooner.
ROLE_ORDER = ("ps", "worker", "chief", "evaluator")
LOCAL_HOST = "localhost"
IS_WINDOWS = sys.platform == "win32"
#: Open files one local task holds at its peak: its output pipe, its log file, its reserved
#: port's socket until the start, the spawn's short-lived error pipe.
FILES_PER_TASK = 4
#: Open files the launcher needs beside its tasks: stdio, the watchdog, imports, caches.
FILES_RESERVED = 64
#: Not for files: kernel state (/proc, /sys) and devices (/dev, its tmpfs gone at boot).
_PSEUDO_FS = ("/proc", "/sys", "/dev")


@dataclass
class TaskPlan:
    """One process of the run."""

    role: str
    index: int
    host: str
    port: int | None
    gpus: list[int] | None
    argv: list[str] = field(default_factory=list)
    #: What TensorDeck adds to the base environment for this task (shown by --dry-run).
    env: dict[str, str] = field(default_factory=dict)
    #: The node (config ``nodes``) that runs the task; None: this machine.
    node: str | None = None
    #: For a node's task: the command on the node (``argv`` starts the local stand-in, made
    #: when the node is prepared: empty until then).
    remote_argv: list[str] | None = None
    #: For a node's task: variables of the local stand-in only (its spec: not on a command
    #: line, where every user of the machine could read it).
    launcher_env: dict[str, str] = field(default_factory=dict)
    #: For a local task: ``argv`` before ``{run_dir}`` is substituted (see RunPlan.relocate).
    argv_template: list[str] = field(default_factory=list)

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


@dataclass
class RunPlan:
    """Everything needed to start a run, resolved: no defaults left to guess."""

    config: JobConfig
    config_path: Path
    python: str
    script: Path
    run_dir: Path
    cluster: dict[str, list[str]]
    tasks: list[TaskPlan]
    #: The environment every task starts from (TensorDeck's own, cleaned; plus env activation).
    base_env: dict[str, str]
    #: Ports picked by TensorDeck, held until just before the tasks start.
    reservation: PortReservation | None = None
    #: The run folder is the default one (runs/<stamp>-<name>), not one the user named: if
    #: another launcher takes that name first, the run may take the next one.
    run_dir_default: bool = False
    #: What TensorDeck sets for every task unless the user or the environment did (threads).
    defaults: dict[str, str] = field(default_factory=dict)
    #: Per node: its run folder and script (planned; resolved there by the node's prepare).
    node_places: dict[str, NodePlace] = field(default_factory=dict)
    #: The Slurm job that runs the tasks (core.slurm.launch), reported in summary.json.
    slurm_job: str | None = None
    #: A Slurm run through the cluster's login node (``--slurm-login``): every task's run
    #: folder and script on the cluster's shared file system (see :meth:`place_on_cluster`).
    cluster_place: ClusterPlace | None = None

    @property
    def node_tasks(self) -> list[TaskPlan]:
        return [t for t in self.tasks if t.node is not None]

    def runs_here(self, task: TaskPlan) -> bool:
        """Whether ``task``'s files and environment are this machine's (else a node's, or the
        Slurm cluster's behind its login node: the task's local process is a stand-in)."""
        return task.node is None and self.cluster_place is None

    def place_on_cluster(self, place: ClusterPlace) -> None:
        """A Slurm cluster reached through its login node (core.slurm.login): the tasks run
        from ``place`` on its shared file system. Commands follow with the hosts
        (:meth:`place_on_hosts`)."""
        self.cluster_place = place

    def node_ports(self) -> dict[str, list[int | None]]:
        """Per node, the port the config names for each of its tasks (in plan order); None:
        pick one there (the evaluator serves nothing: None as well)."""
        wanted: dict[str, list[int | None]] = {}
        for task, _ in expand_tasks(self.config):
            if task.node is not None:
                port = None if task.role == "evaluator" else task.port
                wanted.setdefault(task.node, []).append(port)
        return wanted

    def place_on_nodes(
        self, ports: Mapping[str, list[int]], places: Mapping[str, NodePlace] | None = None
    ) -> None:
        """What the nodes said: each node task's port (checked or picked there, in the order
        of :meth:`node_ports`) and, once prepared, the node's run folder and script. The
        cluster, environment and arguments of every task follow."""
        given = {name: iter(p) for name, p in ports.items()}
        for task in self.node_tasks:
            port = next(given[task.node])  # type: ignore[index]
            task.port = None if task.role == "evaluator" else port
        self.node_places.update(places or {})
        self._commands()

    def place_on_hosts(self, places: Mapping[str, tuple[str, int | None]]) -> None:
        """Where a scheduler put each task (by key: host, port), known only once it did
        (core.slurm.launch). The ports reserved here are released; every task's cluster, environment
        and arguments follow."""
        self.release_ports()
        for task in self.tasks:
            task.host, task.port = places[task.key]
        self._commands()

    def _commands(self) -> None:
        """Every task's environment and command line, from the ports and places known now."""
        cfg = self.config
        self.cluster = (cluster_of((t.role, t.index, t.address) for t in self.tasks)
                        if cfg.strategy not in SINGLE_PROCESS else {})
        cross_ops = resolve_cross_device_ops(cfg.cross_device_ops)
        for task in self.tasks:
            place = self.node_places.get(task.node) if task.node else self.cluster_place
            task_run_dir = place.run_dir if place else str(self.run_dir)
            if place:  # the node's own environment decides; its cores are its own
                env = {k: self.defaults[k] for k in ("PYTHONUNBUFFERED", "PYTHONUTF8")}
            else:
                env = {
                    k: v
                    for k, v in self.defaults.items()
                    if k not in self.base_env and k not in cfg.env
                }
            env.update(cfg.env)
            env["TENSORDECK_RUN_DIR"] = task_run_dir
            env["TENSORDECK_TASK"] = task.key
            env["TENSORDECK_CROSS_DEVICE_OPS"] = cross_ops
            if not place:
                env["PYTHONPATH"] = _with_runtime(
                    cfg.env.get("PYTHONPATH", self.base_env.get("PYTHONPATH", ""))
                )
            elif isinstance(place, ClusterPlace):  # a node's agent adds its own copy
                env["PYTHONPATH"] = ":".join(filter(None, [place.runtime,
                                                           cfg.env.get("PYTHONPATH")]))
            if task.gpus is not None:
                env["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, task.gpus)) if task.gpus else "-1"
            # {run_dir} is left in the arguments of this machine's tasks: see RunPlan.relocate.
            rule = render(cfg, task.role, task.index, self.cluster,
                          task_run_dir if place else RUN_DIR_PLACEHOLDER)
            task.env = {**env, **rule.env}
            if place and task.node:
                task.remote_argv = [cfg.nodes[task.node].python, place.script, *rule.args]
            elif isinstance(place, ClusterPlace):  # started through srun as it is
                task.argv_template = []
                task.argv = [place.python, place.script, *rule.args]
            else:
                task.argv_template = [self.python, str(self.script), *rule.args]
                task.argv = fill_run_dir(task.argv_template, task_run_dir)

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

    def relocate(self, run_dir: Path) -> None:
        """Use ``run_dir`` instead of the planned folder (its name was taken meanwhile): the
        local tasks' TENSORDECK_RUN_DIR and ``{run_dir}`` arguments follow."""
        self.run_dir = run_dir
        for task in self.tasks:
            if self.runs_here(task):
                task.env["TENSORDECK_RUN_DIR"] = str(run_dir)
            if self.runs_here(task) and task.argv_template:
                task.argv = fill_run_dir(task.argv_template, str(run_dir))

    def release_ports(self) -> None:
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


def _length(text: str) -> int:
    """A name's length as the OS limits count it: bytes on POSIX, UTF-16 units on Windows."""
    if IS_WINDOWS:
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
    try:
        return len(os.fsencode(text))
    except UnicodeEncodeError:  # a lone surrogate from an API caller: the OS refuses it anyway
        return len(text.encode("utf-8", "surrogatepass"))


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
    longest = max(path.parts, key=_length, default="")
    if _length(longest) > name_max:
        return (
            f"the name '{show(longest, 24)}' in the path is {_length(longest)} characters long; "
            f"this system allows {name_max}: shorten it"
        )
    if _length(str(path)) >= path_max:
        return (
            f"the path is {_length(str(path))} characters long; this system allows "
            f"{path_max - 1}: shorten it"
        )
    return None


def run_dir_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a run folder (None: it can). A run folder is new or empty, so no
    file of the user's is ever overwritten, on a disk, where this user may create it. Nothing
    is made here: validate and --dry-run write nothing."""
    if problem := path_problem(path):
        return problem
    if sys.platform.startswith("linux"):
        real = os.path.realpath(path)
        for fs in _PSEUDO_FS:
            if real == fs or real.startswith(fs + "/"):
                return f"{path} is in {fs}, which is not for files; choose a folder on a disk"
    writable = os.W_OK | os.X_OK
    if os.path.lexists(path):
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
        return None if os.access(path, writable) else f"{path} is read-only for you"
    ancestor = next((p for p in path.parents if os.path.lexists(p)), None)
    if ancestor is None:
        return f"cannot create {path}"
    if not os.path.isdir(ancestor):
        return f"{path} is under {ancestor}, which is a file; choose a folder"
    if not os.access(ancestor, writable):
        return f"cannot create {path}: {ancestor} is read-only for you; choose another folder"
    return None


def open_files_problem(n_local: int) -> str | None:
    """Whether this process may open the files ``n_local`` tasks need; the soft limit is raised
    to what is needed when the hard one allows (a launcher of 300 tasks should just work)."""
    try:
        import resource
    except ImportError:  # Windows: no such per-process limit on handles
        return None
    needed = FILES_RESERVED + FILES_PER_TASK * n_local
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or needed <= soft:
        return None
    if hard == resource.RLIM_INFINITY or needed <= hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
            return None
        except (OSError, ValueError):
            pass
    return (
        f"{n_local} tasks need about {needed} open files, but this process may open {soft} "
        f"(ulimit -n); raise the limit (ulimit -n {needed}) or run fewer tasks"
    )


def _command_problem(
    task: TaskPlan, env: Mapping[str, str], cfg: JobConfig
) -> ConfigProblem | None:
    """Whether the OS can start the task's command line and environment at all (E2BIG: the
    task would fail at its start, after the run folder was made)."""
    if IS_WINDOWS:
        import subprocess

        line_max = one_max = 32766  # CreateProcess's command line; one variable's value
        length = len(subprocess.list2cmdline(task.argv))
        var = {k: len(v) for k, v in env.items()}
        args = [length]
        total = length
    else:
        try:
            line_max = os.sysconf("SC_ARG_MAX")
        except (OSError, ValueError, AttributeError):
            line_max = 131072
        one_max = 131072 if sys.platform.startswith("linux") else line_max  # MAX_ARG_STRLEN
        args = [_length(a) + 1 for a in task.argv]
        var = {k: _length(k) + _length(v) + 2 for k, v in env.items()}
        total = sum(args) + sum(var.values()) + 8 * (len(args) + len(var) + 2)  # + pointers
    mine = sum(var.get(k, 0) for k in cfg.env)
    if max(args) > one_max or (total > line_max and sum(args) >= mine):
        return ConfigProblem(
            where="args",
            message=f"the command line of {task.name} is longer than this system allows "
            f"({line_max} bytes, {one_max} for one argument); shorten the arguments",
        )
    for key in cfg.env:
        if var.get(key, 0) > one_max:
            return ConfigProblem(
                where=f"env.{show(key, 40)}",
                message=f"is longer than this system allows for one variable ({one_max})",
            )
    if total > line_max:
        return ConfigProblem(
            where="env",
            message=f"the environment of {task.name} is longer than this system allows "
            f"({line_max} bytes with the command line); shorten it",
        )
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


def _assign_ports(cfg: JobConfig, tasks: list[tuple[TaskPlan, int]]) -> PortReservation | None:
    """Check the ports the config names; pick free ones for the rest. The evaluator is not part
    of the cluster and serves nothing."""
    if cfg.strategy in SINGLE_PROCESS:
        for task, _ in tasks:
            task.port = None
        return None
    tasks = [(t, e) for t, e in tasks if t.node is None]  # a node checks its own ports
    problems = []
    for task, entry in tasks:
        if task.port is not None and task.role != "evaluator":
            problem = port_problem(task.port)
            if problem:
                problems.append(
                    ConfigProblem(
                        where=f"tasks[{entry}].port",
                        message=f"{problem}; free it, or choose another port "
                        "(or omit 'port' to let TensorDeck pick a free one)",
                    )
                )
    if problems:
        raise ConfigError("config", problems)
    reservation = PortReservation()
    for task, _ in tasks:
        if task.role == "evaluator":
            task.port = None
        elif task.port is None:
            task.port = reservation.pick()
    return reservation


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
    """Resolve a config into a :class:`RunPlan`, checking files and ports. Raises ConfigError.

    Pure: no folder is made and no node is contacted. A node's tasks keep the ports the config
    names (None: picked on the node) and have no local command yet: ``core.remote.prepare``
    fills them in (:meth:`RunPlan.place_on_nodes`). ``probe_python``: run the interpreter
    (briefly, cached) to be sure it is a Python, and learn its version.
    The caller owns the returned plan's port reservation (``release_ports``)."""
    config_path = Path(config_path).resolve()
    base = config_path.parent
    problems: list[ConfigProblem] = []
    script = Path(os.path.expanduser(cfg.script))
    script = script if script.is_absolute() else base / script
    script_problem = path_problem(script) or _script_problem(script)
    if script_problem:
        problems.append(ConfigProblem(where="script", message=script_problem))
    try:
        python = resolve_python(cfg.python, base)
    except ConfigError as exc:
        problems += exc.problems
        python = ""
    version = _launcher_version() if python == sys.executable else None
    if python and probe_python:
        from core.interpreters.probe import cached_probe, interpreter_problem

        if problem := interpreter_problem(python):
            problems.append(ConfigProblem(where="python", message=problem))
        else:
            version = version_of(cached_probe(python, import_tf=False).python_version)
    # Compiled by this Python: a newer task Python may accept syntax this one refuses, and a
    # node's interpreter is unknown here (the doctor's warning stays for those).
    runs_here = any(g.node is None for g in cfg.tasks)
    if not script_problem and runs_here and (problem := syntax_problem_for(script, version)):
        problems.append(ConfigProblem(where="script", message=problem))

    chosen_dir = run_dir if run_dir is not None else cfg.run_dir
    if chosen_dir is not None:
        resolved_dir = Path(os.path.expanduser(str(chosen_dir)))
        resolved_dir = Path(os.path.abspath(base / resolved_dir))  # base: if relative
    else:
        resolved_dir = default_run_dir(config_path, cfg.name)
    if problem := run_dir_problem(resolved_dir):
        where = "--run-dir" if run_dir is not None else "run_dir"
        problems.append(ConfigProblem(where=where, message=problem))
    # Every task is a local process: a node's task has its local stand-in.
    if problem := open_files_problem(sum(g.count for g in cfg.tasks)):
        problems.append(ConfigProblem(where="tasks", message=problem))
    if problems:
        raise ConfigError(str(config_path), problems)

    from core.interpreters.activation import activation_env, clean_base_env

    env0 = dict(base_env) if base_env is not None else clean_base_env()
    env0 = activation_env(python, env0)

    expanded = expand_tasks(cfg)
    try:
        reservation = _assign_ports(cfg, expanded)
    except ConfigError as exc:
        raise ConfigError(str(config_path), exc.problems) from None
    tasks = [t for t, _ in expanded]
    local = [t for t in tasks if t.node is None]
    defaults = {
        "PYTHONUNBUFFERED": "1",
        "PYTHONUTF8": "1",
        **_thread_budget(len(local), cores or available_cores()),
    }
    if len([t for t in tasks if t.gpus is None]) > 1:
        # Several processes on the same GPUs: without this each grabs all GPU memory at start.
        defaults["TF_FORCE_GPU_ALLOW_GROWTH"] = "true"
    plan = RunPlan(
        cfg,
        config_path,
        python,
        script,
        resolved_dir,
        {},
        tasks,
        env0,
        reservation,
        run_dir_default=chosen_dir is None,
        defaults=defaults,
        node_places={
            name: planned_place(cfg.nodes[name], script, resolved_dir.name)
            for name in dict.fromkeys(t.node for t in tasks if t.node is not None)
        },
    )
    plan._commands()
    for task in local:
        if problem := _command_problem(task, {**env0, **task.env}, cfg):
            plan.release_ports()
            raise ConfigError(str(config_path), [problem])
    return plan


def _launcher_version() -> tuple[int, int]:
    return sys.version_info[:2]


def version_of(text: str | None) -> tuple[int, int] | None:
    """``3.10.12`` -> (3, 10); None when unknown."""
    try:
        major, minor = (text or "").split(".")[:2]
        return int(major), int(minor)
    except ValueError:
        return None


def syntax_problem_for(script: Path, task_python: tuple[int, int] | None) -> str | None:
    """:func:`syntax_problem` where this Python's verdict holds for the task's Python
    (``task_python``, its version): a newer one may accept syntax this one refuses, and an
    unknown one (a node's) is the doctor's to warn about."""
    if task_python is None or task_python > _launcher_version():
        return None
    return syntax_problem(script)


def syntax_problem(script: Path) -> str | None:
    """``file:line: message`` when this Python cannot compile ``script`` (None: it can, or the
    file cannot be read, which the other checks report)."""
    try:
        source = script.read_bytes()
    except OSError:
        return None
    try:
        with warnings.catch_warnings():  # an invalid escape's SyntaxWarning is the task's to print
            warnings.simplefilter("ignore")
            compile(source, str(script), "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f"{script}:{exc.lineno}" if exc.lineno else str(script)
        return f"{where}: {exc.msg}; fix the script (Python cannot run it: every task would fail)"
    except ValueError as exc:  # null bytes (Python 3.11; 3.12 raises SyntaxError)
        return f"{script}: {exc}; fix the script (Python cannot run it)"
    except (RecursionError, MemoryError):  # too deep to compile here: the doctor says so
        return None
    return None


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
