"""One run started from the window: core.session's run (plan, the doctor's gate, nodes, run
folder, supervisor: the same path as ``tensordeck --run``) on a worker thread (which then owns
the task processes), events through an :class:`EventBridge`.

Signals (all on the GUI thread):
    planned(RunPlan): the plan is ready and the run folder made; tasks are about to start.
    warned(list[str]): right after ``planned``: the doctor's warnings (the run starts anyway).
    events(list[Event]): a batch of core events, in order.
    finished(RunResult | None): the run ended (None: it could not start; see ``failed``).
    failed(Exception): the run was refused, nothing was started: the typed refusal core raised
        (ConfigError, NodesNotReady with each node's RemoteError, DoctorRefused with its
        findings, RunFolderError) or an unexpected failure; gui.refusal renders it.
    withdrawn(): right before ``finished(None)``: Stop came before the run was open (a Slurm
        job waiting for its allocation was withdrawn); nothing was started or left submitted.

With ``slurm`` the tasks run as steps of one Slurm job (``tensordeck --run FILE --slurm``):
the allocation (salloc, which may wait in the queue) happens on the worker thread too.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from core.config import ConfigError
from core.doctor.report import render_finding
from core.exitcodes import EXIT_STOPPED
from core.plan import RunPlan
from core.session import DoctorRefused, RunCancelled
from core.session import RunSession as CoreSession
from gui.bridge import EventBridge


class _Planned:
    """Travels through the bridge, so that ``planned`` reaches the GUI before any event."""

    def __init__(self, plan: RunPlan, warnings: list[str]) -> None:
        self.plan = plan
        self.warnings = warnings


class RunSession(QObject):
    warned = Signal(list)
    planned = Signal(object)
    events = Signal(list)
    finished = Signal(object)
    failed = Signal(object)
    withdrawn = Signal()
    _done = Signal(object, object)  # result, refusal (worker thread -> GUI thread)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bridge = EventBridge(parent=self)
        self.bridge.batch.connect(self._on_batch)
        self._done.connect(self._on_done)
        self._session: CoreSession | None = None
        self._withdrawn = False
        self._thread: threading.Thread | None = None
        self.run_dir: Path | None = None

    @property
    def running(self) -> bool:
        """A run was started and its ``finished`` was not emitted yet (a new start before that
        would be refused)."""
        return self._thread is not None

    def start(self, config_path: str | Path, run_dir: str | Path | None = None, *,
              slurm: bool = False) -> None:
        """Validate, plan and run ``config_path`` on a worker thread (on a Slurm cluster with
        ``slurm``)."""
        if self._thread is not None:
            raise RuntimeError("a run is already going on")
        self._withdrawn = False
        self._session = CoreSession(config_path, run_dir=run_dir, slurm=slurm)
        self.bridge.start()
        self._thread = threading.Thread(target=self._work, args=(self._session,),
                                        name="tensordeck-run", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop every task (gracefully, then by force); a second call kills at once. Before
        the tasks start, nothing starts (a Slurm job waiting for its allocation is withdrawn):
        core.session.RunSession.stop, valid in every phase."""
        if self._session is not None:
            self._session.stop("stopped from the window", EXIT_STOPPED)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the worker thread ended (for closing the app); True if it did."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _work(self, session: CoreSession) -> None:
        try:
            run = session.open(self.bridge.sink)
        except RunCancelled:
            self._withdrawn = True
            self._done.emit(None, None)
            return
        except (ConfigError, DoctorRefused, OSError) as exc:  # core released what it held
            # Without its traceback: the view keeps the refusal, not this thread's frames.
            self._done.emit(None, exc.with_traceback(None))
            return
        except Exception as exc:  # an unexpected failure must still reach the window
            session.close()
            self._done.emit(None, exc.with_traceback(None))
            return
        self.run_dir = run.dir
        warnings = [render_finding(f) for f in session.warnings]
        self.bridge.sink(_Planned(run.plan, warnings))  # type: ignore[arg-type]
        result = None
        try:
            result = session.execute()
        finally:
            self._done.emit(result, None)

    @Slot(list)
    def _on_batch(self, batch: list) -> None:
        events: list = []
        for item in batch:
            if isinstance(item, _Planned):
                if events:
                    self.events.emit(events)
                    events = []
                self.planned.emit(item.plan)
                if item.warnings:
                    self.warned.emit(item.warnings)
            else:
                events.append(item)
        if events:
            self.events.emit(events)

    @Slot(object, object)
    def _on_done(self, result: object, refusal: object) -> None:
        if self._thread is not None:
            self._thread.join()
        self._thread = None
        self._session = None
        self.bridge.stop()  # deliver the last events before "finished"
        if refusal is not None:
            self.failed.emit(refusal)
        if self._withdrawn:
            self.withdrawn.emit()
        self.finished.emit(result)
