"""``tensordeck --run`` / ``run`` / ``validate``: the headless face of a run."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when used: the watchdog starts before them (see run_command)
    from core.config import ConfigError
    from core.topology import RunPlan

EXIT_CONFIG = 2


def _report_config_error(exc: ConfigError) -> int:
    for problem in exc.problems:
        print(f"{exc.source}: {problem}", file=sys.stderr)
    print("tensordeck: nothing was started.", file=sys.stderr)
    return EXIT_CONFIG


def _prepare(file: str, run_dir: str | None) -> RunPlan:
    from core.config import load_config
    from core.topology import plan_run

    cfg = load_config(file)
    return plan_run(cfg, Path(file), run_dir=run_dir)


def validate_command(file: str) -> int:
    from core.config import ConfigError

    try:
        plan = _prepare(file, None)
    except ConfigError as exc:
        return _report_config_error(exc)
    plan.release_ports()
    if not preflight(plan):
        return EXIT_CONFIG
    print(
        f"{file}: ok ({len(plan.tasks)} task{'s' if len(plan.tasks) != 1 else ''}, "
        f"strategy {plan.config.strategy})"
    )
    return 0


def validate_cli(args) -> int:
    return validate_command(args.file)


def describe_plan(plan: RunPlan) -> str:
    """What --dry-run prints: per task, the command line and the variables TensorDeck sets."""
    out = [f"run folder: {plan.run_dir}", f"interpreter: {plan.python}"]
    if plan.cluster:
        out.append("cluster: " + ", ".join(f"{k}={v}" for k, v in plan.cluster.items()))
    for task in plan.tasks:
        out.append(f"\n[{task.name}]" + (f" listens on {task.address}" if task.address else ""))
        out.append("  command: " + " ".join(shlex.quote(a) for a in task.argv))
        for key in sorted(task.env):
            out.append(f"  {key}={task.env[key]}")
    return "\n".join(out)


def preflight(plan: RunPlan) -> bool:
    """The doctor's pre-run checks (interpreter, TF version vs script and strategy, GPUs when the
    config asks for them). Prints warnings and errors; True when the run can start."""
    from core.doctor.prerun import prerun_findings
    from core.doctor.report import render_finding

    findings = prerun_findings(
        plan.python,
        strategy=plan.config.strategy,
        script=plan.script,
        wants_gpus=any(t.gpus for t in plan.tasks),
        env=plan.task_env(plan.tasks[0]),
    )
    for finding in findings:
        if finding.severity != "info":
            print(render_finding(finding), file=sys.stderr)
    return not any(f.severity == "error" for f in findings)


def run_command(
    file: str, *, run_dir: str | None = None, dry_run: bool = False, check: bool = True
) -> int:
    from core.proctree import make_watchdog

    # The orphan watchdog is a separate process: started first, its start-up overlaps the
    # imports and checks below instead of adding to them. Closed unused if nothing starts.
    watchdog = None if dry_run else make_watchdog()
    try:
        return _run(file, run_dir, dry_run, check, watchdog)
    finally:
        if watchdog:
            watchdog.close()


def _run(file: str, run_dir: str | None, dry_run: bool, check: bool, watchdog) -> int:
    from core.config import ConfigError
    from core.console import ConsoleSink
    from core.exitcodes import describe, launcher_exit_code
    from core.proctree import listen_for_windows_stop
    from core.run import Run
    from core.supervisor import install_signal_handlers

    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")  # task output may not fit a cp1252 console
    try:
        plan = _prepare(file, run_dir)
    except ConfigError as exc:
        return _report_config_error(exc)
    if check and not preflight(plan):
        plan.release_ports()
        print(
            "tensordeck: nothing was started: fix the errors above, or pass --no-doctor to "
            "start anyway.",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    if dry_run:
        plan.release_ports()
        print(describe_plan(plan))
        return 0
    run = Run(plan, ConsoleSink(sys.stdout, [t.key for t in plan.tasks]), watchdog=watchdog)
    restore = install_signal_handlers(run.supervisor)
    listen_for_windows_stop()  # started by a program that stops it as TensorDeck stops tasks
    try:
        result = run.execute()
    finally:
        restore()
    seconds = result.ended_at - result.started_at
    print(
        f"tensordeck: {plan.config.name} {result.status.value} in {seconds:.1f} s "
        f"({result.reason}); run folder: {run.dir}",
        file=sys.stderr,
    )
    code = launcher_exit_code(result.exit_code)
    if code != result.exit_code:  # a Windows status code: say what the small number stands for
        print(
            f"tensordeck: exit code {code} for the task's {describe(result.exit_code)}",
            file=sys.stderr,
        )
    return code
