"""``tensordeck --run`` / ``run`` / ``validate``: the headless face of a run (core.session)."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when used: the watchdog starts before them (see run_command)
    from core.config import ConfigError
    from core.findings import Finding
    from core.plan import RunPlan
    from core.run import Run
    from core.session import DoctorRefused, RunSession
    from core.supervisor import RunResult

EXIT_CONFIG = 2
#: Problems printed for one config; a generated file can have thousands, one is enough to act.
MAX_SHOWN = 50
WITHDRAWN = ("tensordeck: stopped while the Slurm job waited in the queue: it was cancelled; "
             "nothing ran.")
DOCTOR_REFUSED = (
    "tensordeck: nothing was started: fix the errors above, or pass --no-doctor to start anyway."
)


def _report_config_error(exc: ConfigError, session: RunSession | None = None) -> int:
    """Every problem, one line each, then that nothing was started. With the ``session`` whose
    config was refused: also what planning finds in the keys that were right (validate and
    --run list the same, all at once)."""
    from core.config import show

    if session is not None:
        from core.jobfile import partial_run_problems

        exc.problems += partial_run_problems(exc, session.config_path)

    source = show(exc.source, None)
    for problem in exc.problems[:MAX_SHOWN]:
        print(f"{source}: {show(str(problem), None)}", file=sys.stderr)  # one line, always
    if len(exc.problems) > MAX_SHOWN:
        print(f"{source}: ... and {len(exc.problems) - MAX_SHOWN} more problems", file=sys.stderr)
    print("tensordeck: nothing was started.", file=sys.stderr)
    return EXIT_CONFIG


def _report_refusal(exc: DoctorRefused) -> int:
    _print_findings(exc.findings)
    print(DOCTOR_REFUSED, file=sys.stderr)
    return EXIT_CONFIG


def _print_findings(findings: list[Finding]) -> None:
    if not findings:  # the usual case: not worth loading the renderer at launch
        return
    from core.doctor.report import render_finding

    for finding in findings:
        print(render_finding(finding), file=sys.stderr)


def validate_command(file: str) -> int:
    """Everything a run would check, changing nothing: the plan, the nodes (read-only: login,
    interpreter, ports) and the doctor's gate, with --run's verdict."""
    from core.config import ConfigError
    from core.session import DoctorRefused, RunSession

    session = RunSession(file)
    try:
        plan = session.load()
        session.check_nodes()
        _print_findings(session.check())
    except ConfigError as exc:
        return _report_config_error(exc, session)
    except DoctorRefused as exc:
        return _report_refusal(exc)
    finally:
        session.close()
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
    from core.shellwords import quote

    out = [f"run folder: {plan.run_dir}", f"interpreter: {plan.python}"]
    if plan.cluster:
        out.append("cluster: " + ", ".join(f"{k}={v}" for k, v in plan.cluster.items()))
    for task in plan.tasks:
        out.append("")
        out.append(f"[{task.name}]" + (f" listens on {task.address}" if task.address else ""))
        where = f" (on node {task.node})" if task.node else ""
        out.append(f"  command{where}: " + " ".join(map(quote, task.command)))
        restart = plan.config.restart_for(task.role, task.index)
        out.append(
            "  restart: never" if restart.policy == "never" else
            f"  restart: on failure, up to {restart.max_restarts} times "
            f"({restart.backoff_seconds:g} s back-off, doubling)"
        )
        env = masked_env(task.env)
        for key in sorted(env):
            out.append(f"  {key}={env[key]}")
    return "\n".join(visible(line) for line in out)


def _stop_on_signals(session: RunSession) -> Callable[[], None]:
    """Ctrl+C, SIGTERM, SIGBREAK and SIGHUP stop the run (exit 128 + the signal's number),
    in whatever phase it is (a Slurm job waiting in the queue is withdrawn); returns a function
    that restores the previous handlers."""
    from core.supervisor import install_stop_handlers

    return install_stop_handlers(lambda signum: session.stop("interrupted", 128 + signum))


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
    file: str,
    *,
    run_dir: str | None = None,
    dry_run: bool = False,
    check: bool = True,
    slurm: bool = False,
    slurm_login: str | None = None,
) -> int:
    from core.proctree import make_watchdog

    # The orphan watchdog is a separate process: started first, its start-up overlaps the
    # imports and checks below instead of adding to them. Closed unused if nothing starts.
    watchdog = None if dry_run else make_watchdog()
    try:
        return _run(file, run_dir, dry_run, check, watchdog, slurm, slurm_login)
    finally:
        if watchdog:
            watchdog.close()


def _run(
    file: str, run_dir: str | None, dry_run: bool, check: bool, watchdog, slurm: bool,
    slurm_login: str | None = None,
) -> int:
    from core.proctree import listen_for_windows_stop
    from core.session import RunSession

    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")  # task output may not fit a cp1252 console
    session = RunSession(file, run_dir=run_dir, doctor=check, slurm=slurm,
                         slurm_login=slurm_login)
    opened = _open(session, run_dir, dry_run, watchdog)
    if isinstance(opened, int):
        return opened
    run, restore = opened
    # What the launcher has imported and built so far lives until it exits: out of the garbage
    # collector's sight, no collection during the run walks it, nor the one at exit (40-80 ms
    # with pydantic's schemas, after the last task ended).
    gc.freeze()
    restore = restore or _stop_on_signals(session)
    listen_for_windows_stop()  # started by a program that stops it as TensorDeck stops tasks
    try:
        result = session.execute()
    finally:
        restore()
    return _last_report(result, run)


def _open(session: RunSession, run_dir: str | None, dry_run: bool,
          watchdog) -> int | tuple[Run, Callable[[], None] | None]:
    """The open run and the signal handlers already installed for it; or the exit code of a
    dry run, a refusal or a stop that came first (said on stderr)."""
    from core.config import ConfigError, ConfigProblem
    from core.console import ConsoleSink
    from core.run import RunFolderError
    from core.session import DoctorRefused, RunCancelled
    from core.terminal import raw

    try:
        plan = session.load()
        _print_findings(session.check())
        if dry_run:
            print(describe_plan(session.check_nodes()))
            return 0
        sink = ConsoleSink(raw(sys.stdout), [t.key for t in plan.tasks],
                           gpus_expected=any(t.gpus for t in plan.tasks),
                           task_envs=[{**plan.base_env, **t.env} for t in plan.tasks])
        # A Slurm job may wait long in the queue: a stop meanwhile withdraws it. A run on this
        # machine or its nodes opens at once; a Ctrl+C there ends the launcher (core.entry).
        restore = _stop_on_signals(session) if session.slurm else None
        try:
            return session.open(sink, watchdog=watchdog), restore
        except BaseException:
            if restore:
                restore()
            raise
    except RunCancelled:
        print(WITHDRAWN, file=sys.stderr)  # only a Slurm run's open waits for a stop
        assert session.stopped is not None
        return session.stopped[1]
    except ConfigError as exc:
        return _report_config_error(exc, session)
    except DoctorRefused as exc:
        return _report_refusal(exc)
    except RunFolderError as exc:
        where = "--run-dir" if run_dir is not None else "run_dir"
        problem = ConfigProblem(where=where, message=str(exc))
        return _report_config_error(ConfigError(str(plan.config_path), [problem]))
    finally:
        session.close()  # releases the ports unless a run holds them


def _last_report(result: RunResult, run: Run) -> int:
    """The run's result line; the launcher's exit code."""
    from core.exitcodes import describe, launcher_exit_code

    seconds = result.ended_at - result.started_at
    _quiet_if_gone(sys.stdout)
    _last_words(
        f"tensordeck: {run.plan.config.name} {result.status.value} in {seconds:.1f} s "
        f"({result.reason}); run folder: {run.dir}"
    )
    code = launcher_exit_code(result.exit_code)
    if code != result.exit_code:  # a Windows status code: say what the small number stands for
        _last_words(f"tensordeck: exit code {code} for the task's {describe(result.exit_code)}")
    return code
