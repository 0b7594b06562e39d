"""The one ordered stream of events a run produces, consumed by the terminal, the run folder
and the window alike.

Per task the order is guaranteed: ``TaskStarted``, its ``TaskOutput`` batches, then its
``TaskExited`` (output is drained before the exit is reported). Output arrives in batches of
lines, one batch per read from the task's pipe, because per-line events cannot keep up with a
task that floods its output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from enum import Enum


class TaskState(str, Enum):
    """Where a task is. Transitions::

        PENDING -> RUNNING -> SUCCEEDED | FAILED | STOPPED
        FAILED  -> RESTARTING -> RUNNING          (restart policy on_failure, within max_restarts)
        RESTARTING -> FAILED                      (the run ended first: the restart is called off)

    STOPPED means TensorDeck ended the task (ps tasks at the end of a run, every task on Ctrl+C
    or after another task failed) and it exited as a stop makes a task exit (0, SIGTERM,
    SIGINT, SIGKILL, Windows' Ctrl+C status: core.supervisor.STOP_EXIT_CODES): not a failure.
    A task that fails by itself while being stopped (a traceback in its handler) is FAILED.
    """

    PENDING = "pending"
    RUNNING = "running"
    RESTARTING = "restarting"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    STOPPED = "stopped"


class RunStatus(str, Enum):
    """A run's status, as the supervisor ends it and as readers of run folders see it.

    ABANDONED and UNREADABLE are readers' conclusions, never written: a summary that says
    RUNNING while its launcher is gone (killed), and a folder whose summary.json is garbage.
    """

    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    ABANDONED = "abandoned"
    UNREADABLE = "unreadable"


@dataclass(frozen=True)
class Event:
    time: float

    @property
    def kind(self) -> str:
        return type(self).__name__

    def to_json(self) -> dict:
        return {"event": self.kind, **asdict(self)}


@dataclass(frozen=True)
class RunStarted(Event):
    run_dir: str
    tasks: tuple[str, ...]


@dataclass(frozen=True)
class TaskStarted(Event):
    task: str
    pid: int
    attempt: int


@dataclass(frozen=True)
class TaskOutput(Event):
    """Complete lines the task printed, and its current progress line (a ``\\r`` update that has
    not ended with a newline yet), if any."""

    task: str
    lines: tuple[str, ...]
    progress: str | None = None


@dataclass(frozen=True)
class TaskExited(Event):
    task: str
    exit_code: int
    state: TaskState


@dataclass(frozen=True)
class TaskRestarting(Event):
    task: str
    attempt: int
    delay: float


@dataclass(frozen=True)
class RunWarning(Event):
    """Something went wrong that the run survives (a log stopped by a full disk, the orphan
    watchdog replaced): said once, kept in events.jsonl."""

    message: str
    task: str | None = None


@dataclass(frozen=True)
class SlurmQueued(Event):
    """The run's Slurm job waits in the queue, before any task starts (core.slurm.launch says
    it at once, then now and then): its id, Slurm's reason (squeue's %r) and the seconds
    waited so far."""

    job: str
    reason: str
    waited: float


@dataclass(frozen=True)
class RunStopping(Event):
    reason: str


@dataclass(frozen=True)
class RunFinished(Event):
    status: RunStatus
    exit_code: int
    #: Why the run ended ("completed", "worker-1 exited with code 7", "TensorDeck error: ...").
    reason: str = ""


EventSink = Callable[[Event], None]
