"""The plan of a run: every task's role, address, GPUs and placement, and from those, by one
function (:meth:`RunPlan.launched`), every task's command and environment.

Immutable: what a target learns (a node's ports and run folder, a Slurm job's hosts, another
run folder) gives a new plan (:meth:`RunPlan.with_node_ports`, :meth:`RunPlan.on_hosts`,
:meth:`RunPlan.placed`, :meth:`RunPlan.relocated`). How a task starts on each target is that
target's placement (``core.placements``); how it learns its cluster is ``core.cluster_rule``.
``core.topology`` makes the first plan of a config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from core.cluster_rule import cluster_of, render
from core.config import SINGLE_PROCESS, JobConfig
from core.placements import Placement
from core.placements.here import HERE
from core.placements.node import NodePlace, OnNode
from core.ports import PortReservation

#: Start order: servers first, so that clients find them listening sooner.
ROLE_ORDER = ("ps", "worker", "chief", "evaluator")


@dataclass(frozen=True)
class TaskPlan:
    """One process of the run: where it serves (``host``, ``port``) and, worked out from the
    plan by :meth:`RunPlan.launched`, how it starts (its placement's ``LaunchSpec``)."""

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
    #: The task's own command where it runs (a stand-in's task: on its node or Slurm step).
    command: list[str] = field(default_factory=list)
    #: For a task with a stand-in: the stand-in's own variables.
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


@dataclass(frozen=True)
class RunPlan:
    """Everything needed to start a run, resolved: no defaults left to guess."""

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
    #: By task key: where the task runs (core.placements); absent: this machine.
    placements: Mapping[str, Placement] = field(default_factory=dict)
    #: The Slurm job that runs the tasks (core.slurm.launch), reported in summary.json.
    slurm_job: str | None = None

    @property
    def node_tasks(self) -> list[TaskPlan]:
        return [t for t in self.tasks if t.node is not None]

    @property
    def node_places(self) -> dict[str, NodePlace]:
        """Per node of the run: its run folder and script there (planned, or prepared)."""
        return {p.node: p.place for p in self.placements.values() if isinstance(p, OnNode)}

    def placement(self, task: TaskPlan) -> Placement:
        return self.placements.get(task.key, HERE)

    def runs_here(self, task: TaskPlan) -> bool:
        """Whether ``task``'s files and environment are this machine's (else a node's, or the
        Slurm cluster's behind its login node: the task's local process is a stand-in)."""
        return self.placement(task).here

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
                        placements: Mapping[str, Placement] | None = None) -> RunPlan:
        """What the nodes said: each node task's port (checked or picked there, in the order
        of :meth:`node_ports`) and, once prepared, its placement there."""
        given = {name: iter(p) for name, p in ports.items()}
        tasks = tuple(
            replace(t, port=None if t.role == "evaluator" else next(given[t.node]))
            if t.node is not None else t
            for t in self.tasks)
        return replace(self, tasks=tasks,
                       placements={**self.placements, **(placements or {})}).launched()

    def on_hosts(self, places: Mapping[str, tuple[str, int | None]], *, job: str,
                 defaults: Mapping[str, str]) -> RunPlan:
        """Where Slurm's job ``job`` put each task (by key: host, port), known only once it was
        granted (core.slurm.launch)."""
        tasks = tuple(replace(t, host=places[t.key][0], port=places[t.key][1])
                      for t in self.tasks)
        return replace(self, tasks=tasks, slurm_job=job, defaults=defaults).launched()

    def placed(self, placements: Mapping[str, Placement]) -> RunPlan:
        """The plan with these tasks (by key) placed anew."""
        return replace(self, placements={**self.placements, **placements}).launched()

    def relocated(self, run_dir: Path) -> RunPlan:
        """The plan in ``run_dir`` instead of the planned folder (its name was taken
        meanwhile): the local tasks' TENSORDECK_RUN_DIR and ``{run_dir}`` arguments follow."""
        return replace(self, run_dir=run_dir).launched()

    def launched(self) -> RunPlan:
        """The plan with the cluster and every task's environment and commands worked out by
        its placement from the ports and places known now."""
        cluster = ({} if self.config.strategy in SINGLE_PROCESS
                   else cluster_of((t.role, t.index, t.address) for t in self.tasks))
        return replace(self, cluster=cluster,
                       tasks=tuple(self._launch(task, cluster) for task in self.tasks))

    def _launch(self, task: TaskPlan, cluster: dict[str, list[str]]) -> TaskPlan:
        placement = self.placement(task)
        rule = render(self.config, task.role, task.index, cluster, placement.run_dir(self))
        spec = placement.launch(self, task, rule)
        return replace(task, argv=list(spec.argv), env=dict(spec.env),
                       command=list(spec.command), launcher_env=dict(spec.launcher_env))

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
