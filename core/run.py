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

import dataclasses
import json
import os
import shutil
import threading
from contextlib import suppress
from pathlib import Path

from core.describe import event_message
from core.events import Event, EventSink, RunFinished, RunStatus, RunWarning, TaskOutput
from core.fsio import (
    PRIVATE_FOLDER,
    PendingWrite,
    create_private,
    foreign_owner,
    make_private,
    write_private,
)
from core.messages import tr
from core.plan import RunPlan
from core.proctree import Watchdog, make_watchdog
from core.summary import SUMMARY_FILE, RunSummary
from core.supervisor import RunResult, Supervisor

#: Created with O_EXCL in every run folder: whoever creates it owns the folder.
MARKER = ".tensordeck-run"
#: Space kept for the last summary, in multiples of the first one's size (the last adds the
#: end, the codes and the reason) and at least: a run that fills the disk still ends with a
#: true summary.
_SUMMARY_ROOM = 4
_SUMMARY_ROOM_MIN = 64 * 1024


class RunFolderError(OSError):
    """The run folder cannot be made or claimed; nothing was left in it."""


def _json(data: dict) -> str:
    return json.dumps(data, indent=2, default=str)


def _write_json(path: Path, data: dict) -> None:
    """Write atomically and privately (core.fsio), so a reader never sees half a file."""
    write_private(path, _json(data))


class _Taken(Exception):
    """The folder exists and is not this run's to use (the message says why and what to do)."""


_CHOOSE = "a run folder must be new or empty: choose another"


def _claim(path: Path) -> bool:
    """Make ``path`` this run's: create it (0700), or take it if it exists and is empty, by
    creating the marker exclusively. True if the folder was made here."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(path, PRIVATE_FOLDER)  # atomic: of two launchers, one makes it
        made = True
    except FileExistsError:
        _take_existing(path)
        made = False
    try:
        os.close(create_private(path / MARKER))
    except FileExistsError:
        raise _Taken(f"{path} is in use by another run; {_CHOOSE}") from None
    if any(name != MARKER for name in os.listdir(path)):  # filled before the marker came
        os.remove(path / MARKER)
        raise _Taken(f"{path} is not empty; {_CHOOSE}")
    return made


def _take_existing(path: Path) -> None:
    """An existing folder becomes a run folder only if it is an empty folder of this user's;
    it is made private before the marker, so no other user adds to it from then on."""
    if not path.is_dir():
        raise _Taken(f"{path} is a file; {_CHOOSE}")
    if problem := foreign_owner(path):
        raise _Taken(problem)
    if any(name != MARKER for name in os.listdir(path)):  # the marker: see _claim
        raise _Taken(f"{path} is not empty; {_CHOOSE}")
    make_private(path)


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
                raise RunFolderError(str(exc)) from None
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
            create_private(path, append=True), "a", encoding="utf-8", buffering=1
        )
        self._lock = threading.Lock()
        self._stopped = False

    def __call__(self, event: Event) -> RunWarning | None:
        """Append ``event``. The first write that fails (a full disk) stops the file, not the
        run: the warning to show instead is returned, once."""
        if isinstance(event, TaskOutput):
            return None
        message_id, params = event_message(event, "en")
        shown = {"id": message_id, "params": params, "text": tr(message_id, "en", **params)}
        line = json.dumps({**event.to_json(), "shown": shown}, default=str)
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
        self.dir, made = claim_run_folder(plan.run_dir, rename_if_taken=plan.run_dir_default)
        # Another launcher took the planned name meanwhile: the tasks follow the folder taken.
        plan = self.plan = plan if self.dir == plan.run_dir else plan.relocated(self.dir)
        try:
            os.mkdir(self.dir / "logs", PRIVATE_FOLDER)
            _write_json(self.dir / "config.json", plan.resolved_json())
            self._events = EventLog(self.dir / "events.jsonl")
        except OSError as exc:
            _abandon(self.dir, made)
            raise RunFolderError(f"cannot write in {self.dir}: {exc.strerror or exc}") from None
        except BaseException:  # Ctrl+C meanwhile: no half-made run folder stays
            _abandon(self.dir, made)
            raise

        def fan_out(event: Event) -> None:
            if isinstance(event, RunFinished):
                event = self._true_end(event)
            stopped = self._events(event)
            sink(event)
            if stopped is not None:
                sink(stopped)

        # The given watchdog first; a fresh one if the supervisor must replace it.
        given = iter([watchdog] if watchdog else [])
        #: The status the summary on the disk says, and why the last write failed (if it did).
        self._on_disk: RunStatus | None = None
        self._unwritten = ""
        self._last: PendingWrite | None = None
        try:
            self.supervisor = Supervisor(
                plan,
                fan_out,
                self.dir / "logs",
                watchdog_factory=lambda: next(given, None) or make_watchdog(),
                publish=self._write_summary,
            )
            first = self._write_summary(self.supervisor.summary())
            # The last summary's room, taken now: a run that fills the disk still ends with
            # a summary that says how it ended.
            self._last = PendingWrite(self.dir / SUMMARY_FILE,
                                      max(_SUMMARY_ROOM_MIN, _SUMMARY_ROOM * len(first)))
        except OSError as exc:
            self._events.close()
            _abandon(self.dir, made)
            raise RunFolderError(f"cannot write in {self.dir}: {exc.strerror or exc}") from None
        except BaseException:  # Ctrl+C meanwhile
            self._events.close()
            _abandon(self.dir, made)
            raise

    def _write_summary(self, summary: RunSummary) -> str:
        """Write ``summary`` (the last one into the room kept for it); returns the text."""
        data = summary.to_json()
        if self.plan.slurm_job:
            data["slurm_job"] = self.plan.slurm_job
        text = _json(data)
        last = self._last if summary.status is not RunStatus.RUNNING else None
        try:
            if last is not None:
                self._last = None
                last.commit(text)
            else:
                write_private(self.dir / SUMMARY_FILE, text)
        except OSError as exc:
            self._unwritten = exc.strerror or str(exc)
            raise
        self._on_disk = summary.status
        return text

    def _true_end(self, finished: RunFinished) -> RunFinished:
        """The run's end as it is: one whose last summary could not be written is no success
        (the summary on the disk still says running), and says why."""
        if self._on_disk is finished.status:
            return finished
        # None only before the first summary, which a Run cannot be without (it says running).
        on_disk = self._on_disk or RunStatus.RUNNING
        reason = (f"{finished.reason}; but {self.dir / SUMMARY_FILE} could not be written "
                  f"({self._unwritten}), so it still says {on_disk.value}")
        failed = finished.status is RunStatus.SUCCEEDED
        return dataclasses.replace(
            finished,
            status=RunStatus.FAILED if failed else finished.status,
            exit_code=1 if failed else finished.exit_code,
            reason=reason,
        )

    def execute(self) -> RunResult:
        """Run to the end (blocking; the calling thread owns the task processes). The
        supervisor writes the last summary; a result says whether it could."""
        try:
            result = self.supervisor.run()
        finally:
            self._events.close()
            if self._last is not None:  # the run ended before its last summary
                self._last.discard()
        end = self._true_end(RunFinished(result.ended_at, result.status, result.exit_code,
                                         result.reason))
        return dataclasses.replace(result, status=end.status, exit_code=end.exit_code,
                                   reason=end.reason)
