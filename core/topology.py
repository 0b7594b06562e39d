"""From a validated config to the first plan of a run (``core.plan``): the paths resolved and
checked (``core.job_paths``), every task's role, address, port and GPUs, the thread budget.

:func:`plan_run` is pure but for the checks that act on this machine (``core.local_checks``:
the interpreter's probe, the script's compile, the ports' binds): everything that can be wrong
with a run on this machine is found here, and nothing is made on any machine. It never talks
to nodes (this module does not import ``core.remote``): a node's tasks keep their planned
placement until ``core.remote.prepare`` gets their node ready.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from core.config import SINGLE_PROCESS, ConfigError, ConfigProblem, JobConfig
from core.job_paths import (
    default_run_dir,
    path_problem,
    resolve_python,
    run_dir_problem,
    script_problem,
)
from core.local_checks import (
    command_problem,
    interpreter_check,
    launcher_version,
    open_files_problem,
    port_problems,
    reserve_ports,
    syntax_problem_for,
)
from core.placements import Placement
from core.placements.node import OnNode, planned_place
from core.placements.wsl import InWsl
from core.plan import RunPlan, TaskPlan, expand_tasks
from core.wsl.paths import is_wsl_spec, to_linux_path
from core.wsl.refusals import WslPathError, WslRefusal


def available_cores() -> int:
    """CPU cores this process may use (respects affinity masks and containers' cpusets)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


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
    problems = list(files.problems)
    if is_wsl_spec(files.python):
        files, wsl_problems = _in_wsl(files)
        problems += wsl_problems
    if files.wsl is not None or not is_wsl_spec(files.python):  # a refused WSL: said
        problems += _acting_problems(cfg, files, probe_python)
    if problems:
        raise ConfigError(str(config_path), problems)
    plan = _with_local_ports(_pure_plan(cfg, config_path, files, base_env, cores)).launched()
    for task in plan.tasks:  # the processes this machine starts (a node's: once prepared)
        env = plan.task_env(task)
        if task.argv and (problem := command_problem(task.name, task.argv, env, cfg)):
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
    #: The job's interpreter is inside WSL: every task runs there.
    wsl: InWsl | None = None


def _in_wsl(files: _Files) -> tuple[_Files, list[ConfigProblem]]:
    """The WSL distribution of the job's ``wsl://`` interpreter, asked of this machine's
    wsl.exe (it may not be installed, know no such distribution, or run it as WSL 1), and
    the script and run folder as the distribution reaches them."""
    from core.wsl.command import interpreter_target  # runs wsl.exe: only for such a job

    try:
        target, python = interpreter_target(files.python)
        placement = InWsl(target.distro.name, python)
        problems = []
        for where, path in (("script", files.script), ("run_dir", files.run_dir)):
            try:
                to_linux_path(str(path), placement.distro)
            except WslPathError as exc:
                problems.append(ConfigProblem(where=where, message=str(exc)))
    except WslRefusal as exc:
        return files, [ConfigProblem(where="python", message=str(exc))]
    return replace(files, wsl=placement), problems


def _resolve_files(cfg: JobConfig, config_path: Path, run_dir: str | Path | None) -> _Files:
    base = config_path.parent
    problems: list[ConfigProblem] = []
    script = Path(os.path.expanduser(cfg.script))
    script = script if script.is_absolute() else base / script
    if problem := path_problem(script) or script_problem(script):
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

    env0 = dict(base_env) if base_env is not None else clean_base_env()
    if files.wsl is None:  # an interpreter inside WSL gets its own environment there
        env0 = activation_env(files.python, env0)
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
    return RunPlan(
        config=cfg, config_path=config_path, python=files.python, script=files.script,
        run_dir=files.run_dir, tasks=tasks, base_env=env0,
        run_dir_default=files.run_dir_default, defaults=defaults,
        placements=_placements(cfg, files, tasks))


def _placements(cfg: JobConfig, files: _Files, tasks: tuple[TaskPlan, ...]
                ) -> dict[str, Placement]:
    """Where each task runs, as far as planning knows: a node's (its planned folder there),
    inside WSL, or (absent) this machine."""
    if files.wsl is not None:
        return {t.key: files.wsl for t in tasks}
    return {t.key: OnNode(t.node, planned_place(cfg.nodes[t.node], files.script,
                                                files.run_dir.name))
            for t in tasks if t.node is not None}


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
