"""A LAN node over SSH: the task runs there as the node's interpreter on the script in the run's
folder there; this machine starts its stand-in (``tensordeck _remote-task``,
core.remote.run_task), which runs it through the node agent and relays its output."""

from __future__ import annotations

import ntpath
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.model import to_data
from core.placements import LaunchSpec, encode_spec, remote_defaults, stand_in_head, task_variables
from core.shellwords import Shell

if TYPE_CHECKING:
    from core.cluster_rule import TaskCluster
    from core.config import Node
    from core.plan import RunPlan, TaskPlan

#: The stand-in's spec: in its environment, never on its command line (it holds the task's
#: environment, secrets included).
SPEC_VARIABLE = "TENSORDECK_REMOTE_TASK"


@dataclass(frozen=True)
class NodePlace:
    """Where a node keeps one run (paths on the node): its run folder, the script there."""

    run_dir: str
    script: str


def planned_place(node: Node, script: Path, run_name: str) -> NodePlace:
    """The node's run folder ``<workdir>/runs/<run name>`` and the script in it (or the node's
    own ``script``), as the config names them; the node's prepare resolves them there."""
    join = ntpath.join if "\\" in node.workdir else posixpath.join
    run_dir = join(node.workdir, "runs", run_name)
    return NodePlace(run_dir, node.script or join(run_dir, script.name))


@dataclass(frozen=True)
class OnNode:
    """Task on the config's node ``node``, in ``place`` there. ``shell``: the node's shell, once
    the node is prepared (core.remote.prepare); until then (planned) there is no stand-in."""

    node: str
    place: NodePlace
    shell: Shell | None = None
    here = False

    def run_dir(self, plan: RunPlan) -> str:
        return self.place.run_dir

    def launch(self, plan: RunPlan, task: TaskPlan, rule: TaskCluster) -> LaunchSpec:
        node = plan.config.nodes[self.node]
        # The node's own environment decides the rest; its cores are its own.
        env = {**task_variables(plan, task, self.place.run_dir, remote_defaults(plan)),
               **rule.env}
        command = (node.python, self.place.script, *rule.args)
        if self.shell is None:
            return LaunchSpec(argv=(), command=command, env=env, cwd=self.place.run_dir)
        spec = {"node_name": self.node, "node": to_data(node), "shell": self.shell,
                "argv": list(command), "env": env, "cwd": self.place.run_dir}
        return LaunchSpec(argv=tuple(stand_in_head("_remote-task")), command=command, env=env,
                          cwd=self.place.run_dir,
                          launcher_env={SPEC_VARIABLE: encode_spec(spec)})
