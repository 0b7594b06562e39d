"""From a validated config to the exact processes of a run: command line, environment,
cluster description (TF_CONFIG or legacy flags), ports and GPUs of every task.

:func:`plan_run` is the ``prepare()`` step: everything that can be wrong with a run (missing
script or interpreter, a port in use) is found here, before anything is spawned or any folder
is made.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.config import SINGLE_PROCESS, ConfigError, ConfigProblem, JobConfig
from core.paths import resource, user_data_dir
from core.ports import PortReservation, port_problem

if TYPE_CHECKING:
    from core.remote.prepare import NodePrep

#: Start order: servers first, so that clients find them listening sooner.
ROLE_ORDER = ("ps", "worker", "chief", "evaluator")
CLUSTER_PLACEHOLDERS = ("{job_name}", "{task_index}", "{ps_hosts}", "{worker_hosts}")
LOCAL_HOST = "localhost"


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
    #: For a node's task: the command on the node (``argv`` starts the local stand-in).
    remote_argv: list[str] | None = None

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

    def task_env(self, task: TaskPlan) -> dict[str, str]:
        """The environment of the local process of ``task``. A node's task gets its variables
        on the node; its local stand-in gets only the ones that name it."""
        if task.node is None:
            return {**self.base_env, **task.env}
        return {
            **self.base_env,
            "TENSORDECK_RUN_DIR": str(self.run_dir),
            "TENSORDECK_TASK": task.key,
        }

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
                    "argv": t.remote_argv or t.argv,
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
    expanded = os.path.expandvars(os.path.expanduser(spec))
    if os.sep in expanded or (os.altsep and os.altsep in expanded):
        path = Path(expanded)
        path = path if path.is_absolute() else base / path
        if path.is_dir():
            # A conda env or venv folder: its interpreter.
            for candidate in ("python.exe", "bin/python", "Scripts/python.exe", "bin/python3"):
                if (path / candidate).is_file():
                    return str(path / candidate)
        if path.is_file():
            return str(path)
        raise ConfigError(
            str(base),
            [
                ConfigProblem(
                    where="python",
                    message=f"{path} does not exist; give the path of python(.exe) "
                    "in the training environment",
                )
            ],
        )
    found = shutil.which(expanded)
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


def default_run_dir(config_path: Path, name: str, now: float | None = None) -> Path:
    """``<config folder>/runs/<stamp>-<name>``; for a config in a read-only folder (an example
    inside an installed package), the same under the user's data folder."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    folder = config_path.parent
    if not os.access(folder, os.W_OK):
        folder = user_data_dir()
    base = folder / "runs" / f"{stamp}-{name}"
    candidate, n = base, 2
    while candidate.exists():
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


def _cluster(tasks: list[TaskPlan]) -> dict[str, list[str]]:
    cluster: dict[str, list[str]] = {}
    for task in sorted(tasks, key=lambda t: (t.role, t.index)):
        if task.address:
            cluster.setdefault(task.role, []).append(task.address)
    return cluster


def _substitute(args: list[str], values: Mapping[str, str]) -> list[str]:
    out = []
    for arg in args:
        for placeholder, value in values.items():
            arg = arg.replace(placeholder, value)
        out.append(arg)
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


PrepareNodes = Callable[..., "dict[str, NodePrep]"]


def _prepare_remote(
    source: str,
    cfg: JobConfig,
    tasks: list[TaskPlan],
    script: Path,
    run_name: str,
    prepare_nodes: PrepareNodes | None,
    reservation: PortReservation | None,
) -> dict[str, NodePrep]:
    """Get the nodes ready and give their tasks ports (checked or picked on the node)."""
    remote = [t for t in tasks if t.node is not None]
    if not remote:
        return {}
    wanted: dict[str, list[int | None]] = {}
    for task in remote:
        wanted.setdefault(task.node, []).append(  # type: ignore[arg-type]
            None if task.role == "evaluator" else task.port
        )
    from core.remote.prepare import NodesNotReady

    if prepare_nodes is None:
        from core.remote.prepare import prepare_nodes
    try:
        preps = prepare_nodes(cfg, script, run_name, wanted)
    except NodesNotReady as exc:
        if reservation:
            reservation.release()
        problems = [ConfigProblem(where=f"nodes.{e.node}", message=e.args[0]) for e in exc.errors]
        raise ConfigError(source, problems) from None
    given = {name: iter(prep.ports) for name, prep in preps.items()}
    for task in remote:
        port = next(given[task.node])  # type: ignore[index]
        task.port = None if task.role == "evaluator" else port
    return preps


def _remote_stand_in(cfg: JobConfig, task: TaskPlan, prep: NodePrep) -> list[str]:
    """The local process that runs ``task`` on its node (core.remote.run_task)."""
    from core.remote.run_task import encode_spec

    assert task.node and task.remote_argv
    spec = {
        "node_name": task.node,
        "node": cfg.nodes[task.node].model_dump(),
        "shell": prep.shell,
        "argv": task.remote_argv,
        "env": task.env,
        "cwd": prep.run_dir,
    }
    head = [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "core"]
    return [*head, "_remote-task", encode_spec(spec)]


def plan_run(
    cfg: JobConfig,
    config_path: Path,
    *,
    run_dir: str | Path | None = None,
    base_env: Mapping[str, str] | None = None,
    cores: int | None = None,
    prepare_nodes: PrepareNodes | None = None,
) -> RunPlan:
    """Resolve a config into a :class:`RunPlan`, checking files and ports. Raises ConfigError.

    Tasks on other nodes need those nodes ready (connection, script, ports): that is
    ``prepare_nodes`` (default :func:`core.remote.prepare.prepare_nodes`, over SSH).
    The caller owns the returned plan's port reservation (``release_ports``)."""
    config_path = Path(config_path).resolve()
    base = config_path.parent
    problems: list[ConfigProblem] = []
    script = Path(os.path.expanduser(cfg.script))
    script = script if script.is_absolute() else base / script
    if not script.is_file():
        problems.append(ConfigProblem(where="script", message=f"{script} does not exist"))
    try:
        python = resolve_python(cfg.python, base)
    except ConfigError as exc:
        problems += exc.problems
        python = ""
    if problems:
        raise ConfigError(str(config_path), problems)

    from core.interpreters.activation import activation_env, clean_base_env

    env0 = dict(base_env) if base_env is not None else clean_base_env()
    env0 = activation_env(python, env0)

    chosen_dir = run_dir if run_dir is not None else cfg.run_dir
    if chosen_dir is not None:
        resolved_dir = Path(os.path.expanduser(str(chosen_dir)))
        resolved_dir = resolved_dir if resolved_dir.is_absolute() else base / resolved_dir
    else:
        resolved_dir = default_run_dir(config_path, cfg.name)

    expanded = expand_tasks(cfg)
    try:
        reservation = _assign_ports(cfg, expanded)
    except ConfigError as exc:
        raise ConfigError(str(config_path), exc.problems) from None
    tasks = [t for t, _ in expanded]
    preps = _prepare_remote(
        str(config_path), cfg, tasks, script, resolved_dir.name, prepare_nodes, reservation
    )
    cluster = _cluster(tasks) if cfg.strategy not in SINGLE_PROCESS else {}
    local = [t for t in tasks if t.node is None]
    defaults = {
        "PYTHONUNBUFFERED": "1",
        "PYTHONUTF8": "1",
        **_thread_budget(len(local), cores or available_cores()),
    }
    gpu_sharers = [t for t in tasks if t.gpus is None]
    if len(gpu_sharers) > 1:
        # Several processes on the same GPUs: without this each grabs all GPU memory at start.
        defaults["TF_FORCE_GPU_ALLOW_GROWTH"] = "true"
    spec = cfg.effective_cluster_spec
    cross_ops = resolve_cross_device_ops(cfg.cross_device_ops)
    for task in tasks:
        prep = preps.get(task.node) if task.node else None
        task_run_dir = prep.run_dir if prep else str(resolved_dir)
        if prep:  # the node's own environment decides; its cores are its own
            env = {k: defaults[k] for k in ("PYTHONUNBUFFERED", "PYTHONUTF8")}
        else:
            env = {k: v for k, v in defaults.items() if k not in env0 and k not in cfg.env}
        env.update(cfg.env)
        env["TENSORDECK_RUN_DIR"] = task_run_dir
        env["TENSORDECK_TASK"] = task.key
        env["TENSORDECK_CROSS_DEVICE_OPS"] = cross_ops
        if not prep:
            env["PYTHONPATH"] = _with_runtime(cfg.env.get("PYTHONPATH", env0.get("PYTHONPATH", "")))
        if task.gpus is not None:
            env["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, task.gpus)) if task.gpus else "-1"
        values = {
            "{job_name}": task.role,
            "{task_index}": str(task.index),
            "{ps_hosts}": ",".join(cluster.get("ps", [])),
            "{worker_hosts}": ",".join(cluster.get("worker", [])),
            "{run_dir}": task_run_dir,
        }
        args = _substitute(cfg.args, values)
        if cluster:
            if spec in ("tf_config", "both"):
                env["TF_CONFIG"] = json.dumps(
                    {"cluster": cluster, "task": {"type": task.role, "index": task.index}}
                )
            uses_placeholders = any(p in a for a in cfg.args for p in CLUSTER_PLACEHOLDERS)
            if spec in ("flags", "both") and not uses_placeholders:
                args += [
                    f"--job_name={task.role}",
                    f"--task_index={task.index}",
                    f"--ps_hosts={values['{ps_hosts}']}",
                    f"--worker_hosts={values['{worker_hosts}']}",
                ]
        task.env = env
        if prep and task.node:
            task.remote_argv = [cfg.nodes[task.node].python, prep.script, *args]
            task.argv = _remote_stand_in(cfg, task, prep)
        else:
            task.argv = [python, str(script), *args]
    return RunPlan(
        cfg, config_path, python, script, resolved_dir, cluster, tasks, env0, reservation
    )
