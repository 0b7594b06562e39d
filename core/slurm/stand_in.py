"""The local stand-in of a task run as a Slurm step: ``tensordeck _slurm-task SRUN-ARGV...``.

The supervisor starts this like any local task (logs, prefixes, stop rules, restarts). It runs
``srun`` for the task and exits with srun's status, which is the task's. srun itself answers a
SIGTERM by killing its step (SIGKILL, no grace), so srun runs in a session of its own, out of
reach of the supervisor's signals to this process group, and a stop (SIGTERM, SIGINT, SIGHUP)
becomes ``scancel --signal=TERM JOB.STEP``: the task's own SIGTERM, its handlers run. If this
process is killed, srun dies with it (parent-death signal) and the run's end cancels the job.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from core.proctree import exit_status, pdeathsig_preexec

#: How long a stop waits for Slurm to list the step (a stop right after the start).
STEP_SECONDS = 5.0


def _option(argv: list[str], name: str) -> str:
    return next(a.split("=", 1)[1] for a in argv if a.startswith(f"--{name}="))


def step_of(job: str, name: str) -> str | None:
    """``JOB.STEP`` of the running step called ``name`` in ``job`` (None: not listed yet)."""
    listed = subprocess.run(
        ["squeue", "--noheader", "--steps", f"--jobs={job}", "--format=%i %j"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30,
    ).stdout
    return next((s for s, n in (line.split(" ", 1) for line in listed.splitlines()
                                if " " in line) if n.strip() == name), None)


def run_step(argv: list[str]) -> int:
    job, name = _option(argv, "jobid"), _option(argv, "job-name")
    srun = subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True,
                            preexec_fn=pdeathsig_preexec())
    stops = 0

    def stop(_signum: int, _frame) -> None:
        nonlocal stops
        stops += 1
        if stops > 1:  # asked again: srun kills its step at once
            srun.terminate()
            return
        deadline = time.monotonic() + STEP_SECONDS
        while (step := step_of(job, name)) is None and srun.poll() is None:
            if time.monotonic() > deadline:
                srun.terminate()
                return
            time.sleep(0.1)
        if step is not None:
            subprocess.run(["scancel", "--signal=TERM", step], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=30)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    return exit_status(srun.wait())


def stand_in_cli(args) -> int:
    """``tensordeck _slurm-task``: started by the supervisor, never by hand."""
    if not args.argv or "--jobid=" not in " ".join(args.argv):
        print("tensordeck: _slurm-task runs a task of a Slurm run (it is not a command to type)",
              file=sys.stderr)
        return 2
    return run_step(args.argv)
