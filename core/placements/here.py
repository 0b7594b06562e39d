"""This machine: the task runs as the plan's interpreter on the plan's script, in the script's
folder, with the thread budget that shares this machine's cores among its tasks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.placements import LaunchSpec, task_variables, with_runtime

if TYPE_CHECKING:
    from core.cluster_rule import TaskCluster
    from core.plan import RunPlan, TaskPlan


@dataclass(frozen=True)
class ThisMachine:
    here = True

    def run_dir(self, plan: RunPlan) -> str:
        return str(plan.run_dir)

    def launch(self, plan: RunPlan, task: TaskPlan, rule: TaskCluster) -> LaunchSpec:
        cfg = plan.config
        # A default the user or the environment set is theirs.
        defaults = {k: v for k, v in plan.defaults.items()
                    if k not in plan.base_env and k not in cfg.env}
        pythonpath = with_runtime(cfg.env.get("PYTHONPATH", plan.base_env.get("PYTHONPATH", "")))
        env = {**task_variables(plan, task, self.run_dir(plan), defaults, pythonpath),
               **rule.env}
        command = (plan.python, str(plan.script), *rule.args)
        return LaunchSpec(argv=command, command=command, env=env, cwd=str(plan.script.parent))


HERE = ThisMachine()
