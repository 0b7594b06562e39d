"""``tensordeck --run`` / ``run`` / ``validate``: the headless face of a run."""

from __future__ import annotations

import os
import shlex
import sys
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when used: the watchdog starts before them (see run_command)
    from core.config import ConfigError
    from core.topology import RunPlan

EXIT_CONFIG = 2
#: Problems printed for one config; a generated file can have thousands, one is enough to act.
MAX_SHOWN = 50
DOCTOR_REFUSED = (
    "tensordeck: nothing was started: fix the errors above, or pass --no-doctor to start anyway."
)


def _report_config_error(exc: ConfigError) -> int:
    from core.config import show

    source = show(exc.source, None)
    for problem in exc.problems[:MAX_SHOWN]:
        print(f"{source}: {show(str(problem), None)}", file=sys.stderr)  # one line, always
    if len(exc.problems) > MAX_SHOWN:
        print(f"{source}: ... and {len(exc.problems) - MAX_SHOWN} more problems", file=sys.stderr)
    print("tensordeck: nothing was started.", file=sys.stderr)
    return EXIT_CONFIG


def _prepare(file: str, run_dir: str | None) -> RunPlan:
    """Load, check and plan: everything that can be wrong with a run is found here, including
    an interpreter that is no Python (run briefly, even with --no-doctor)."""
    from core.config import load_config
    from core.topology import plan_run

    cfg = load_config(file)
    return plan_run(cfg, Path(file), run_dir=run_dir, probe_python=True)


def validate_command(file: str) -> int:
    from core.config import ConfigError

    try:
        plan = _prepare(file, None)
    except ConfigError as exc:
        return _report_config_error(exc)
    plan.release_ports()
    if not preflight(plan):
        print(DOCTOR_REFUSED, file=sys.stderr)  # the same verdict as --run's
        return EXIT_CONFIG
    from core.config import show

    print(
        f"{show(file, None)}: ok ({len(plan.tasks)} task{'s' if len(plan.tasks) != 1 else ''}, "
        f"strategy {plan.config.strategy})"
    )
    return 0


def validate_cli(args) -> int:
    return validate_command(args.file)


def describe_plan(plan: RunPlan) -> str:
    """What --dry-run prints: per task, the command line and the variables TensorDeck sets
    (secret-looking values masked; control characters shown, not sent to the terminal)."""
    from core.output import visible
    from core.secrets import masked_env

    out = [f"run folder: {plan.run_dir}", f"interpreter: {plan.python}"]
    if plan.cluster:
        out.append("cluster: " + ", ".join(f"{k}={v}" for k, v in plan.cluster.items()))
    for task in plan.tasks:
        out.append("")
        out.append(f"[{task.name}]" + (f" listens on {task.address}" if task.address else ""))
        out.append("  command: " + " ".join(shlex.quote(a) for a in task.argv))
        env = masked_env(task.env)
        for key in sorted(env):
            out.append(f"  {key}={env[key]}")
    return "\n".join(visible(line) for line in out)


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


def _quiet_if_gone(stream) -> None:
    """Point a stream whose reader went away (``| head``, a closed terminal) at the null device,
    so the last words and Python's flush at exit cannot turn a finished run into an error."""
    try:
        stream.flush()
    except (OSError, ValueError):
        with suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def _last_words(text: str) -> None:
    """The run's result line on stderr, which may be gone as well."""
    try:
        print(text, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        _quiet_if_gone(sys.stderr)


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
    from core.config import ConfigError, ConfigProblem
    from core.console import ConsoleSink
    from core.exitcodes import describe, launcher_exit_code
    from core.proctree import listen_for_windows_stop
    from core.run import Run, RunFolderError
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
        print(DOCTOR_REFUSED, file=sys.stderr)
        return EXIT_CONFIG
    if dry_run:
        plan.release_ports()
        print(describe_plan(plan))
        return 0
    try:
        run = Run(plan, ConsoleSink(sys.stdout, [t.key for t in plan.tasks]), watchdog=watchdog)
    except RunFolderError as exc:
        plan.release_ports()
        where = "--run-dir" if run_dir is not None else "run_dir"
        problem = ConfigProblem(where=where, message=str(exc))
        return _report_config_error(ConfigError(str(plan.config_path), [problem]))
    restore = install_signal_handlers(run.supervisor)
    listen_for_windows_stop()  # started by a program that stops it as TensorDeck stops tasks
    try:
        result = run.execute()
    finally:
        restore()
    seconds = result.ended_at - result.started_at
    _quiet_if_gone(sys.stdout)
    _last_words(
        f"tensordeck: {plan.config.name} {result.status.value} in {seconds:.1f} s "
        f"({result.reason}); run folder: {run.dir}"
    )
    code = launcher_exit_code(result.exit_code)
    if code != result.exit_code:  # a Windows status code: say what the small number stands for
        _last_words(f"tensordeck: exit code {code} for the task's {describe(result.exit_code)}")
    return code
