"""One run, from its config file to its result: the only way the command line (``tensordeck
--run``), the window and History's "Run again" start a run, so that they refuse the same runs.

    load -> pure plan -> doctor gate -> prepare (nodes) -> Run (run folder, supervisor)
         -> events (to the caller's sink) -> result

Nothing acts on a machine before :meth:`RunSession.open`'s prepare step: the plan is pure, the
doctor only reads (the cached probe, the script), and a refused run leaves nothing anywhere.
Failures are typed: ``ConfigError`` (the config cannot run; ``nodes.NAME`` for a node that is
not ready), :class:`DoctorRefused` (the doctor found an error) and ``core.run.RunFolderError``.

Imports are lazy: the launcher imports this module before its first task starts.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.events import EventSink
    from core.findings import Finding
    from core.placements.node import NodePlace
    from core.plan import RunPlan
    from core.proctree import Watchdog
    from core.run import Run
    from core.slurm.launch import Allocation
    from core.slurm.where import SlurmHost
    from core.supervisor import RunResult


class DoctorRefused(Exception):
    """The doctor's pre-run checks found an error: the run must not start. ``findings``: every
    finding worth showing (the errors and the warnings beside them)."""

    def __init__(self, findings: list[Finding]) -> None:
        super().__init__("; ".join(f.title for f in findings if f.severity == "error"))
        self.findings = findings


class RunCancelled(Exception):
    """:meth:`RunSession.stop` came before the run was open: no task was started, and no Slurm
    job is left submitted."""


def doctor_findings(plan: RunPlan) -> list[Finding]:
    """The doctor's pre-run checks of ``plan`` (interpreter, TF version vs script and strategy,
    GPUs when the config asks for them): its warnings and errors."""
    from core.doctor.clean import found_clean, remember_clean, verdict_entry

    inputs: dict[str, Any] = dict(strategy=plan.config.strategy, script=plan.script,
                  wants_gpus=any(t.gpus for t in plan.tasks), env=plan.task_env(plan.tasks[0]))
    entry = verdict_entry(plan.python, **inputs)
    if found_clean(entry):
        return []
    from core.doctor.prerun import prerun_findings

    findings = prerun_findings(plan.python, **inputs)
    if not findings:
        remember_clean(verdict_entry(plan.python, **inputs))  # a re-probe may have changed it
    return [f for f in findings if f.severity != "info"]


class RunSession:
    """One run of ``config_path``. Each step runs once and the next ones call it when it has
    not run yet: :meth:`load`, :meth:`check`, then :meth:`open` and :meth:`execute`. Until a run
    is open the session holds the plan's reserved ports: :meth:`close` (or leaving a ``with``
    block) releases them, and every failing step does so itself. :meth:`stop` stops the run in
    any phase, from any thread or a signal handler.

    ``doctor=False`` (``--no-doctor``) skips the doctor's gate; the window always checks.
    ``slurm=True`` (``--slurm``): the tasks run as steps of one Slurm job (core.slurm), held
    from :meth:`open` to the end of :meth:`execute` (or :meth:`close`); ``slurm_login``
    (``--slurm-login NODE``, implies ``slurm``): submitted through that login node over SSH."""

    def __init__(
        self,
        config_path: str | Path,
        *,
        run_dir: str | Path | None = None,
        doctor: bool = True,
        slurm: bool = False,
        slurm_login: str | None = None,
    ) -> None:
        self.config_path = Path(config_path)
        self.run_dir = run_dir
        self.doctor = doctor
        self.slurm = slurm or slurm_login is not None
        self.slurm_login = slurm_login
        self.allocation: Allocation | None = None
        self.plan: RunPlan | None = None
        #: The doctor's warnings: the run may start; show them.
        self.warnings: list[Finding] = []
        self.run: Run | None = None
        #: What :meth:`stop` asked for (reason, exit code); None: no stop.
        self.stopped: tuple[str, int] | None = None
        self._checked = False
        self._withdraw: Callable[[], None] | None = None
        #: What prepare made on the nodes (node -> its run folder), until the run is open.
        self._made_on_nodes: dict[str, NodePlace] = {}
        # Reentrant: a signal handler (stop) runs in the thread that may hold it.
        self._lock = threading.RLock()

    def __enter__(self) -> RunSession:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def load(self) -> RunPlan:
        """Read and plan the config (pure: nothing is made on any machine); the interpreter
        runs briefly (cached) to prove it is a Python. Raises ConfigError."""
        if self.plan is None:
            from core.config import load_config
            from core.topology import plan_run

            cfg = load_config(self.config_path)
            self.plan = plan_run(cfg, self.config_path, run_dir=self.run_dir, probe_python=True)
        return self.plan

    def check(self) -> list[Finding]:
        """The doctor's gate: DoctorRefused when it finds an error (the ports are released),
        else its warnings (also in :attr:`warnings`)."""
        plan = self.load()
        if self.doctor and not self._checked:
            findings = doctor_findings(plan)
            if any(f.severity == "error" for f in findings):
                plan.release_ports()
                raise DoctorRefused(findings)
            self.warnings = findings
        self._checked = True
        return self.warnings

    def check_nodes(self) -> RunPlan:
        """Log in to the nodes, prove their interpreters and check or pick their tasks' ports,
        changing nothing there (validate, --dry-run): the plan with those ports. With
        ``slurm``, ask the Slurm cluster whether it can take the job, submitting nothing.
        Raises ConfigError."""
        plan = self.load()
        if self.slurm:
            self._checked_cluster(plan).close()
        elif plan.node_tasks:
            from core.remote.prepare import check_nodes

            plan = self.plan = check_nodes(plan)
        return plan

    def open(self, sink: EventSink, *, watchdog: Watchdog | None = None) -> Run:
        """The run, ready to :meth:`execute`: after the gate, the nodes are prepared (their run
        folders, the script, their tasks' ports and stand-ins), then the run folder and the
        supervisor are made. Raises ConfigError, DoctorRefused or RunFolderError; then no task
        started and the ports are released."""
        if self.run is not None:
            return self.run
        self.check()
        plan = self.load()
        self._cancel_if_stopped()
        if self.slurm:
            plan = self.plan = self._allocate(plan, sink)
        elif plan.node_tasks:
            from core.remote.prepare import prepare_nodes

            plan = self.plan = prepare_nodes(plan)
            self._made_on_nodes = dict(plan.node_places)
        self._cancel_if_stopped()
        from core.run import Run

        try:
            run = Run(plan, sink, watchdog=watchdog)
        except BaseException:  # the run folder could not be made, or Ctrl+C meanwhile
            self.close()
            raise
        with self._lock:
            self.run, stopped = run, self.stopped
        if stopped is not None:  # came while the run folder was made
            run.supervisor.request_stop(*stopped)
        return run

    def stop(self, reason: str, exit_code: int) -> None:
        """Stop the run whatever its phase, from any thread or a signal handler. Before the run
        is open, :meth:`open` raises :class:`RunCancelled` at its next step (a Slurm job
        waiting in the queue is withdrawn at once) and nothing is left started or submitted;
        once open, every task stops (gracefully, then by force), and a second stop kills at
        once. The run ends with ``exit_code`` (130: Ctrl+C; 143: a requested stop)."""
        with self._lock:
            run, withdraw = self.run, self._withdraw
            if run is None and self.stopped is None:
                self.stopped = (reason, exit_code)
        if run is not None:
            run.supervisor.request_stop(reason, exit_code)
        elif withdraw is not None:
            withdraw()

    def _cancel_if_stopped(self) -> None:
        if self.stopped is not None:
            self.close()
            raise RunCancelled

    def _allocate(self, plan: RunPlan, sink: EventSink) -> RunPlan:
        """The plan placed in a granted Slurm job (held in :attr:`allocation`)."""
        from core.config import ConfigError
        from core.events import SlurmQueued
        from core.slurm.launch import allocate

        def queued(job: str, reason: str, waited: float) -> None:
            sink(SlurmQueued(time.time(), job, reason, waited))

        try:
            host = self._checked_cluster(plan)  # before anything is submitted
            if self.stopped is not None:
                host.close()
                raise RunCancelled
            self.allocation = allocate(plan, host, self._submitted, queued)
            assert self.allocation.plan is not None
            return self.allocation.plan
        except (ConfigError, RunCancelled):
            plan.release_ports()
            if self.stopped is not None:  # withdrawn: salloc's "Job aborted due to signal"
                raise RunCancelled from None
            raise
        finally:
            with self._lock:
                self._withdraw = None

    def _submitted(self, withdraw: Callable[[], None]) -> None:
        with self._lock:
            self._withdraw = withdraw
            stopped = self.stopped
        if stopped is not None:  # stop() came before salloc started
            withdraw()

    def execute(self) -> RunResult:
        """Run to the end (blocking; the calling thread owns the task processes)."""
        if self.run is None:
            raise RuntimeError("open() the run first")
        try:
            return self.run.execute()
        finally:
            self._release_allocation()

    def close(self) -> None:
        """Release what a session that will not run holds: its plan's reserved ports, its
        Slurm job, and the run folders made on its nodes (a node gone meanwhile keeps its
        empty folder: nothing runs there)."""
        if self.plan is not None and self.run is None:
            self.plan.release_ports()
            self._release_allocation()
            made, self._made_on_nodes = self._made_on_nodes, {}
            if made:
                from core.remote.prepare import remove_node_folders

                remove_node_folders(self.plan, made)

    def _checked_cluster(self, plan: RunPlan) -> SlurmHost:
        """Where this run's Slurm commands run (this machine, or the login node: connected),
        asked whether the cluster can take the job; nothing is submitted. ConfigError."""
        from core.slurm.launch import check_cluster
        from core.slurm.where import slurm_host

        host = slurm_host(plan, self.slurm_login)
        try:
            check_cluster(plan, host)
        except BaseException:
            host.close()
            raise
        return host

    def _release_allocation(self) -> None:
        if self.allocation is not None:
            self.allocation.release()
            self.allocation = None
