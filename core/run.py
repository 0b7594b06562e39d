"""One run, start to end: the run folder and the supervisor, shared by the CLI and the window.

The run folder holds ``config.json`` (the resolved config: commands, ports, environment),
``logs/<role>-<index>.log`` (every byte each task printed), ``events.jsonl`` (task started /
exited / restarted / stopped, with times) and ``summary.json`` (written as "running" at the
start, so a killed launcher still leaves one, and rewritten at the end).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from core.events import Event, EventSink, RunStatus, TaskOutput
from core.exitcodes import describe
from core.proctree import Watchdog
from core.supervisor import RunResult, Supervisor
from core.topology import RunPlan


def _write_json(path: Path, data: dict) -> None:
    """Write atomically, so a reader never sees half a file."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
    os.replace(tmp, path)


def _with_description(data: dict) -> dict:
    """``data`` with ``exit_description`` after its ``exit_code``: a Windows status code's hex
    form and meaning, which the bare number (3221225477) does not tell."""
    out = {}
    for key, value in data.items():
        out[key] = value
        if key == "exit_code":
            out["exit_description"] = None if value is None else describe(value)
    return out


class EventLog:
    """Appends lifecycle events (not output lines: those are in the logs) to events.jsonl."""

    def __init__(self, path: Path) -> None:
        self._file = open(path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - closed by Run
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        if isinstance(event, TaskOutput):
            return
        line = json.dumps(event.to_json(), default=str)
        with self._lock:
            self._file.write(line + "\n")

    def close(self) -> None:
        self._file.close()


class Run:
    """Makes the run folder and a supervisor for ``plan``; :meth:`execute` runs it."""

    def __init__(self, plan: RunPlan, sink: EventSink, watchdog: Watchdog | None = None) -> None:
        """``watchdog``: an already started orphan watchdog (default: one starts with the run)."""
        self.plan = plan
        self.dir = plan.run_dir
        (self.dir / "logs").mkdir(parents=True, exist_ok=True)
        _write_json(self.dir / "config.json", plan.resolved_json())
        self._events = EventLog(self.dir / "events.jsonl")

        def fan_out(event: Event) -> None:
            self._events(event)
            sink(event)

        options = {"watchdog_factory": lambda: watchdog} if watchdog else {}
        self.supervisor = Supervisor(plan, fan_out, self.dir / "logs", **options)
        _write_json(self.dir / "summary.json", self._summary(None))

    def _summary(self, result: RunResult | None) -> dict:
        head = {
            "name": self.plan.config.name,
            "strategy": self.plan.config.strategy,
            "run_dir": str(self.dir),
            "config_path": str(self.plan.config_path),
        }
        if result is None:
            body = {
                "status": RunStatus.RUNNING.value,
                "exit_code": None,
                "tasks": [t.to_json() for t in self.supervisor.tasks],
            }
        else:
            body = result.to_json()
        body["tasks"] = [_with_description(t) for t in body["tasks"]]
        return {**head, **_with_description(body)}

    def execute(self) -> RunResult:
        """Run to the end (blocking; the calling thread owns the task processes)."""
        try:
            result = self.supervisor.run()
        finally:
            self._events.close()
        _write_json(self.dir / "summary.json", self._summary(result))
        return result
