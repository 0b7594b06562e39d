"""Inside a WSL 2 distribution of this machine: the task runs there as the job's Linux
interpreter on the job's own script and run folder, reached through the drives WSL mounts
(``C:\\x`` -> ``/mnt/c/x``); this machine starts its stand-in (``tensordeck _wsl-task``,
core.wsl.run_task), which runs it through the node agent over a ``wsl.exe`` pipe.

The run folder, logs and metrics are this machine's (the task writes them through /mnt), and
the distribution shares this machine's cores: the thread budget holds as for a local task.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.placements import LaunchSpec, encode_spec, stand_in_head, task_variables
from core.wsl.paths import to_linux_path

if TYPE_CHECKING:
    from core.cluster_rule import TaskCluster
    from core.plan import RunPlan, TaskPlan

#: The stand-in's spec: in its environment (the task's environment holds secrets).
WSL_SPEC_VARIABLE = "TENSORDECK_WSL_TASK"


@dataclass(frozen=True)
class InWsl:
    """Task inside the distribution ``distro`` (its real name: the default one may change),
    run by the Linux interpreter ``python``."""

    distro: str
    python: str
    here = False

    def run_dir(self, plan: RunPlan) -> str:
        return to_linux_path(str(plan.run_dir), self.distro)

    def launch(self, plan: RunPlan, task: TaskPlan, rule: TaskCluster) -> LaunchSpec:
        cfg = plan.config
        script = to_linux_path(str(plan.script), self.distro)
        # This machine's variables do not cross into WSL: only the job's decide there.
        defaults = {k: v for k, v in plan.defaults.items() if k not in cfg.env}
        env = {**task_variables(plan, task, self.run_dir(plan), defaults), **rule.env}
        command = (self.python, script, *rule.args)
        cwd = posixpath.dirname(script)
        spec = {"distro": self.distro, "argv": list(command), "env": env, "cwd": cwd}
        return LaunchSpec(argv=tuple(stand_in_head("_wsl-task")), command=command, env=env,
                          cwd=cwd, launcher_env={WSL_SPEC_VARIABLE: encode_spec(spec)})
