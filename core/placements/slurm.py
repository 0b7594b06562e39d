"""A step of a Slurm job: this machine starts a stand-in (``tensordeck _slurm-task``,
core.slurm.stand_in) that runs the task as an ``srun`` step on the host Slurm gave it, with the
plan's files (a cluster that shares this machine's file system) or, through the cluster's login
node (``--slurm-login``), with the run's copy on the cluster's shared file system."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from core.model import to_data
from core.placements import (
    LaunchSpec,
    encode_spec,
    remote_defaults,
    task_variables,
)
from core.placements.here import HERE
from core.placements.node import NodePlace

if TYPE_CHECKING:
    from core.cluster_rule import TaskCluster
    from core.config import Node
    from core.plan import RunPlan, TaskPlan

#: The spec of a step run through the login node: in the stand-in's environment.
LOGIN_VARIABLE = "TENSORDECK_SLURM_LOGIN"


@dataclass(frozen=True)
class ClusterPlace(NodePlace):
    """Where a Slurm cluster reached through its login node keeps one run, on the file system
    its login and compute nodes share: the run folder, the script, TensorDeck's runtime module
    (a folder for PYTHONPATH), the interpreter the tasks run with there, and the login node
    (``login``: its name in the config, or None for ``--slurm-login user@host``)."""

    runtime: str
    python: str
    login: str | None
    node: Node


@dataclass(frozen=True)
class InSlurmJob:
    """The task as a step of the job: ``step``, the stand-in and srun words that start it on its
    host; ``cluster``: the run's place through the login node (None: this machine's files)."""

    step: tuple[str, ...]
    cluster: ClusterPlace | None = None

    @property
    def here(self) -> bool:
        return self.cluster is None

    def run_dir(self, plan: RunPlan) -> str:
        return self.cluster.run_dir if self.cluster else str(plan.run_dir)

    def launch(self, plan: RunPlan, task: TaskPlan, rule: TaskCluster) -> LaunchSpec:
        place = self.cluster
        if place is None:  # this machine's files: the task as here, started as a step
            spec = HERE.launch(plan, task, rule)
            return replace(spec, argv=(*self.step, *spec.argv))
        cfg = plan.config
        pythonpath = ":".join(filter(None, [place.runtime, cfg.env.get("PYTHONPATH")]))
        env = {**task_variables(plan, task, place.run_dir, remote_defaults(plan), pythonpath),
               **rule.env}
        command = (place.python, place.script, *rule.args)
        login = {"node_name": place.login, "node": to_data(place.node), "env": env,
                 "cwd": place.run_dir}
        return LaunchSpec(argv=(*self.step, *command), command=command, env=env,
                          cwd=place.run_dir, launcher_env={LOGIN_VARIABLE: encode_spec(login)})
