"""Where a task runs, and how this machine starts it: one placement per target.

A placement is a small immutable value the plan holds for each task (``RunPlan.placements``;
none: this machine) with one pure function, :meth:`Placement.launch`: from the plan, the task
and what the cluster rule (``core.cluster_rule``) tells it, the task's :class:`LaunchSpec`.

    core.placements.here    this machine
    core.placements.node    a LAN node over SSH (its local stand-in: core.remote.run_task)
    core.placements.slurm   a step of a Slurm job (its stand-in: core.slurm.stand_in)
    core.placements.wsl     inside a WSL 2 distribution (its stand-in: core.wsl.run_task)

What a target learns by acting (a node's ports and run folder, a Slurm job's hosts) is found by
its own module (``core.remote.prepare``, ``core.slurm.launch``), which gives the plan new
placements; a placement never acts, so the plan stays pure and every target's environment is
worked out by the same few lines (:func:`task_variables`).
"""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from core.paths import resource

if TYPE_CHECKING:
    from core.cluster_rule import TaskCluster
    from core.plan import RunPlan, TaskPlan


@dataclass(frozen=True)
class LaunchSpec:
    """How one task starts: ``argv``, what this machine starts (the task, or its stand-in:
    empty while the target is not ready), with ``launcher_env`` added to its environment;
    ``command``, ``env`` and ``cwd``: the task's own command, what TensorDeck adds to its
    environment and its folder, where it runs."""

    argv: tuple[str, ...]
    command: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str
    launcher_env: Mapping[str, str] = field(default_factory=dict)


class Placement(Protocol):
    """One target's placement of a task (see the module's docstring)."""

    @property
    def here(self) -> bool:
        """Whether the task's files and environment are this machine's (else its local
        process is a stand-in that gets only the variables naming it)."""
        ...

    def run_dir(self, plan: RunPlan) -> str:
        """The run folder as the task sees it (TENSORDECK_RUN_DIR, ``{run_dir}``)."""
        ...

    def launch(self, plan: RunPlan, task: TaskPlan, rule: TaskCluster) -> LaunchSpec:
        """``task``'s spec on this target (pure)."""
        ...


def task_variables(plan: RunPlan, task: TaskPlan, run_dir: str, defaults: Mapping[str, str],
                   pythonpath: str | None = None) -> dict[str, str]:
    """What TensorDeck adds to every task's environment wherever it runs, TF_CONFIG aside:
    ``defaults``, then the config's ``env``, then the task's identity, its run folder, the
    placement's ``pythonpath`` (None: the task's machine adds it) and its GPUs."""
    cfg = plan.config
    env = {**defaults, **cfg.env}
    env["TENSORDECK_RUN_DIR"] = run_dir
    env["TENSORDECK_TASK"] = task.key
    env["TENSORDECK_CROSS_DEVICE_OPS"] = resolve_cross_device_ops(cfg.cross_device_ops)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    if task.gpus is not None:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, task.gpus)) if task.gpus else "-1"
    return env


#: What a task on another machine gets of the defaults: its machine's own cores and
#: environment decide the rest (threads, GPU memory growth).
REMOTE_DEFAULTS = ("PYTHONUNBUFFERED", "PYTHONUTF8")


def remote_defaults(plan: RunPlan) -> dict[str, str]:
    return {k: plan.defaults[k] for k in REMOTE_DEFAULTS if k in plan.defaults}


def with_runtime(pythonpath: str) -> str:
    """TensorDeck's task-side module (``import tensordeck_runtime``: metrics reporting) first on
    a task's import path on this machine, keeping the user's entries."""
    runtime = str(resource("runtime"))
    return os.pathsep.join([runtime, pythonpath]) if pythonpath else runtime


def resolve_cross_device_ops(choice: str, platform: str = sys.platform) -> str:
    """``auto`` means hierarchical copy on Windows, where TF has no NCCL; elsewhere TF decides."""
    if choice == "auto" and platform.startswith("win"):
        return "hierarchical_copy"
    return choice


def stand_in_head(command: str) -> list[str]:
    """The command line of TensorDeck's hidden ``command`` (a stand-in), as this process runs."""
    head = [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "core"]
    return [*head, command]


def encode_spec(spec: dict) -> str:
    """A stand-in's spec as its variable's value (it goes in the environment: a command line
    is readable by every user of the machine, /proc/PID/cmdline; the environment is not)."""
    return base64.urlsafe_b64encode(json.dumps(spec).encode()).decode()


def decode_spec(text: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(text.encode()))
