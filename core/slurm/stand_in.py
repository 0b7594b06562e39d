"""The local stand-in of a task run as a Slurm step: ``tensordeck _slurm-task SRUN-ARGV...``.

The supervisor starts this like any local task (logs, prefixes, stop rules, restarts). It runs
``srun`` for the task and exits with srun's status, which is the task's. srun itself answers a
SIGTERM by killing its step (SIGKILL, no grace), so srun runs in a session of its own, out of
reach of the supervisor's signals to this process group, and a stop (SIGTERM, SIGINT, SIGHUP;
on Windows, where a launcher uses ``--slurm-login``, the task's stop event) becomes
``scancel --signal=TERM JOB.STEP``: the task's own SIGTERM, its handlers run. If this
process is killed, srun dies with it (parent-death signal) and the run's end cancels the job.

With TENSORDECK_SLURM_LOGIN set (``--slurm-login``: the login node, the task's environment and
folder there), srun and scancel run on the login node (core.slurm.login): the same steps, the
same stops, over SSH; when this process dies, the connection closes and srun is killed there.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from core.placements.slurm import LOGIN_VARIABLE
from core.proctree import exit_status, listen_for_windows_stop
from core.remote.agent import EXIT_UNREACHABLE
from core.slurm.where import LocalSlurm, SlurmHost

#: How long a stop waits for Slurm to list the step (a stop right after the start).
STEP_SECONDS = 5.0


def _option(argv: list[str], name: str) -> str:
    return next(a.split("=", 1)[1] for a in argv if a.startswith(f"--{name}="))


def step_of(where: SlurmHost, job: str, name: str) -> str | None:
    """``JOB.STEP`` of the running step called ``name`` in ``job`` (None: not listed yet)."""
    listed = where.run(["squeue", "--noheader", "--steps", f"--jobs={job}", "--format=%i %j"],
                       timeout=30).stdout
    return next((s for s, n in (line.split(" ", 1) for line in listed.splitlines()
                                if " " in line) if n.strip() == name), None)


def run_step(argv: list[str], where: SlurmHost | None = None,
             env: dict[str, str] | None = None, cwd: str | None = None) -> int:
    """Run the step ``argv`` (srun's command line) from ``where`` (default: this machine),
    with ``env`` and in ``cwd`` there (default: this process's); its exit status."""
    where = where or LocalSlurm()
    job, name = _option(argv, "jobid"), _option(argv, "job-name")
    srun = where.step(argv, env, cwd)
    stops = 0

    def stop(_signum: int, _frame) -> None:
        nonlocal stops
        stops += 1
        if stops > 1:  # asked again: srun kills its step at once
            srun.terminate()
            return
        deadline = time.monotonic() + STEP_SECONDS
        while (step := step_of(where, job, name)) is None and srun.poll() is None:
            if time.monotonic() > deadline:
                srun.terminate()
                return
            time.sleep(0.1)
        if step is not None:
            where.run(["scancel", "--signal=TERM", step], timeout=30)

    signals: list[int] = [signal.SIGTERM, signal.SIGINT]
    if sys.platform != "win32":  # no SIGHUP there (a Windows launcher uses --slurm-login)
        signals.append(signal.SIGHUP)
    for signum in signals:
        signal.signal(signum, stop)
    listen_for_windows_stop()  # Windows: the supervisor's graceful stop -> stop() above
    try:
        return exit_status(srun.wait())
    finally:
        where.close()


def stand_in_cli(args) -> int:
    """``tensordeck _slurm-task``: started by the supervisor, never by hand."""
    if not args.argv or "--jobid=" not in " ".join(args.argv):
        print("tensordeck: _slurm-task runs a task of a Slurm run (it is not a command to type)",
              file=sys.stderr)
        return 2
    spec = os.environ.pop(LOGIN_VARIABLE, None)  # popped: nothing this process starts gets it
    if spec is None:
        return run_step(args.argv)
    from core.remote.connect import RemoteError
    from core.slurm.login import login_from_spec

    try:
        where, env, cwd = login_from_spec(spec)
    except RemoteError as exc:
        print(f"tensordeck: {exc}", flush=True)
        return EXIT_UNREACHABLE
    return run_step(args.argv, where, env, cwd)
