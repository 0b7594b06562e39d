"""One run, start to end: the run folder and the supervisor, shared by the CLI and the window.

The run folder holds ``config.json`` (the resolved config: commands, ports, environment),
``logs/<role>-<index>.log`` (every byte each task printed), ``events.jsonl`` (task started /
exited / restarted / stopped, with times) and ``summary.json`` (:mod:`core.summary`: written
as "running" before the first task starts, rewritten by the supervisor's loop whenever a task
changes and at the end, so it always says what is running now, also after a killed launcher).

A run folder is new, or empty and claimed with an exclusive marker file: TensorDeck never
writes into a folder that holds anything it did not create, and two launchers never share one.
On POSIX it is private to the user (0700; its files 0600: ``config.json`` holds the env).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from contextlib import suppress
from pathlib import Path

from core.events import Event, EventSink, RunWarning, TaskOutput
from core.proctree import Watchdog, make_watchdog
from core.summary import SUMMARY_FILE, RunSummary
from core.supervisor import RunResult, Supervisor
from core.topology import RunPlan

#: Created with O_EXCL in every run folder: whoever creates it owns the folder.
MARKER = ".tensordeck-run"
_PRIVATE_FILE = 0o600
_PRIVATE_DIR = 0o700
#: Waits between tries of replacing a file a reader holds open (Windows).
REPLACE_RETRIES = (0.005, 0.01, 0.02, 0.05)


class RunFolderError(OSError):
    """The run folder cannot be made or claimed; nothing was left in it."""


def _private(path: Path, flags: int = os.O_TRUNC) -> int:
    """Open ``path`` for writing, created 0600 (the mode applies on creation only). O_BINARY:
    Python's text layer alone translates newlines, as for open()."""
    flags |= os.O_WRONLY | os.O_CREAT | getattr(os, "O_BINARY", 0)
    return os.open(path, flags, _PRIVATE_FILE)


def _write_json(path: Path, data: dict) -> None:
    """Write atomically, so a reader never sees half a file. On Windows a file another
    process has open (History reading the summary) cannot be replaced: the read takes
    microseconds, so the replace is tried again a few times."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(_private(tmp), "w", encoding="utf-8") as file:
        file.write(json.dumps(data, indent=2, default=str))
    for wait in REPLACE_RETRIES:
        try:
            os.replace(tmp, path)
            return
        except PermissionError:
            if os.name != "nt":
                raise
            time.sleep(wait)
    os.replace(tmp, path)


class _Taken(Exception):
    """The folder exists and is not this run's to use (the message says why)."""


def _claim(path: Path) -> bool:
    """Make ``path`` this run's: create it (0700), or take it if it exists and is empty, by
    creating the marker exclusively. True if the folder was made here."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(path, _PRIVATE_DIR)  # atomic: of two launchers, one makes it
        made = True
    except FileExistsError:
        if not path.is_dir():
            raise _Taken(f"{path} is a file") from None
        made = False
    try:
        os.close(_private(path / MARKER, os.O_EXCL))
    except FileExistsError:
        raise _Taken(f"{path} is in use by another run") from None
    if any(name != MARKER for name in os.listdir(path)):  # filled before the marker came
        os.remove(path / MARKER)
        raise _Taken(f"{path} is not empty")
    return made


def claim_run_folder(path: Path, *, rename_if_taken: bool = False) -> tuple[Path, bool]:
    """The run folder at ``path``, new or empty, now this run's alone: (folder, made here).
    ``rename_if_taken``: a default name another launcher took first becomes ``NAME-2``,
    ``NAME-3`` ...; a folder the user named is refused instead. RunFolderError when there is
    none, with nothing created."""
    candidate = path
    for n in range(2, 1000):
        try:
            return candidate, _claim(candidate)
        except _Taken as exc:
            if not rename_if_taken:
                raise RunFolderError(
                    f"{exc}; a run folder must be new or empty: choose another"
                ) from None
        except OSError as exc:
            raise RunFolderError(f"cannot create {candidate}: {exc.strerror or exc}") from None
        candidate = path.with_name(f"{path.name}-{n}")
    raise RunFolderError(f"cannot create {path}: every name up to {candidate.name} is taken")


def _abandon(folder: Path, made: bool) -> None:
    """Remove what this run put in ``folder``: all of it, as it was claimed empty."""
    if made:
        shutil.rmtree(folder, ignore_errors=True)
        return
    for entry in list(folder.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


class EventLog:
    """Appends lifecycle events (not output lines: those are in the logs) to events.jsonl."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = open(  # noqa: SIM115 - closed by Run
            _private(path, os.O_APPEND), "a", encoding="utf-8", buffering=1
        )
        self._lock = threading.Lock()
        self._stopped = False

    def __call__(self, event: Event) -> RunWarning | None:
        """Append ``event``. The first write that fails (a full disk) stops the file, not the
        run: the warning to show instead is returned, once."""
        if isinstance(event, TaskOutput):
            return None
        line = json.dumps(event.to_json(), default=str)
        with self._lock:
            if self._stopped:
                return None
            try:
                self._file.write(line + "\n")
            except OSError as exc:
                self._stopped = True
                return RunWarning(event.time, f"{self.path} stopped: {exc.strerror or exc}; "
                                  "the run goes on")
        return None

    def close(self) -> None:
        with suppress(OSError):  # the last line's flush on a full disk
            self._file.close()


class Run:
    """Makes the run folder and a supervisor for ``plan``; :meth:`execute` runs it."""

    def __init__(self, plan: RunPlan, sink: EventSink, watchdog: Watchdog | None = None) -> None:
        """``watchdog``: an already started orphan watchdog (default: one starts with the run).
        RunFolderError when the run folder cannot be made: then nothing was written."""
        self.plan = plan
        self.dir, made = claim_run_folder(plan.run_dir, rename_if_taken=plan.run_dir_default)
        if self.dir != plan.run_dir:
            plan.relocate(self.dir)
        try:
            os.mkdir(self.dir / "logs", _PRIVATE_DIR)
            _write_json(self.dir / "config.json", plan.resolved_json())
            self._events = EventLog(self.dir / "events.jsonl")
        except OSError as exc:
            _abandon(self.dir, made)
            raise RunFolderError(f"cannot write in {self.dir}: {exc.strerror or exc}") from None

        def fan_out(event: Event) -> None:
            stopped = self._events(event)
            sink(event)
            if stopped is not None:
                sink(stopped)

        # The given watchdog first; a fresh one if the supervisor must replace it.
        given = iter([watchdog] if watchdog else [])
        self.supervisor = Supervisor(
            plan,
            fan_out,
            self.dir / "logs",
            watchdog_factory=lambda: next(given, None) or make_watchdog(),
            publish=self._write_summary,
        )
        try:
            self._write_summary(self.supervisor.summary())
        except OSError as exc:
            self._events.close()
            _abandon(self.dir, made)
            raise RunFolderError(f"cannot write in {self.dir}: {exc.strerror or exc}") from None

    def _write_summary(self, summary: RunSummary) -> None:
        data = summary.to_json()
        if self.plan.slurm_job:
            data["slurm_job"] = self.plan.slurm_job
        _write_json(self.dir / SUMMARY_FILE, data)

    def execute(self) -> RunResult:
        """Run to the end (blocking; the calling thread owns the task processes). The
        supervisor writes the last summary."""
        try:
            return self.supervisor.run()
        finally:
            self._events.close()
