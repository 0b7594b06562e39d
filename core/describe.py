"""What each run event says to a person: one message id and its parameters per event type,
said in either language by ``core.messages``. The console and the window show the same words
(a task's own output lines, :class:`~core.events.TaskOutput`, are shown as printed); the
reasons and warnings the core wrote in English are said in the chosen language when they are
catalogue messages (``core.messages.translate_text``)."""

from __future__ import annotations

from core.events import (
    Event,
    RunFinished,
    RunStarted,
    RunStopping,
    RunWarning,
    SlurmQueued,
    TaskExited,
    TaskRestarting,
    TaskStarted,
)
from core.exitcodes import describe as describe_code
from core.messages import tr, translate_text


def task_name(key: str) -> str:
    """``worker:1`` -> ``worker-1``: a task's name in logs and on screen."""
    return key.replace(":", "-")


def state_text(state: str, language: str | None = None) -> str:
    """A task's or run's state (an English word in the core: ``succeeded``) in ``language``."""
    return tr(f"state.{state}", language)


def duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3 h 5 min``."""
    minutes = int(seconds // 60)
    if minutes < 1:
        return f"{seconds:.0f} s"
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def event_message(event: Event, language: str | None = None) -> tuple[str, dict[str, object]]:
    """The message id of ``event`` and its parameters (in ``language`` where they are words);
    KeyError for an event that is no message (task output)."""
    if isinstance(event, TaskStarted):
        return "event.task_started", {"task": task_name(event.task), "pid": event.pid}
    if isinstance(event, TaskExited):
        return "event.task_exited", {"task": task_name(event.task),
                                     "code": describe_code(event.exit_code, language),
                                     "state": state_text(event.state.value, language)}
    if isinstance(event, TaskRestarting):
        return "event.task_restarting", {"task": task_name(event.task),
                                         "delay": f"{event.delay:g}", "attempt": event.attempt}
    if isinstance(event, RunStopping):
        return "event.run_stopping", {"reason": translate_text(event.reason, language)}
    if isinstance(event, RunWarning):
        return "event.run_warning", {"message": translate_text(event.message, language)}
    if isinstance(event, RunStarted):
        return "event.run_started", {"run_dir": event.run_dir}
    if isinstance(event, SlurmQueued):
        if event.waited < 1:
            return "slurm.queued", {"job": event.job, "reason": event.reason}
        return "slurm.still_queued", {"job": event.job, "reason": event.reason,
                                      "waited": duration(event.waited)}
    if isinstance(event, RunFinished):
        return "event.run_finished", {"status": state_text(event.status.value, language),
                                      "code": describe_code(event.exit_code, language)}
    raise KeyError(event.kind)


def describe_event(event: Event, language: str | None = None) -> str:
    """The line a face shows for ``event`` in ``language`` (None: the chosen one)."""
    message_id, params = event_message(event, language)
    return tr(message_id, language, **params)
