"""``summary.json``, the run folder's account of a run: one versioned model for the writer
(:mod:`core.run`, live while the run goes) and every reader (History, the window).

The file is the live truth: rewritten atomically whenever a task changes (state, pid, restarts,
exit code, times) and at the run's end. It names the launcher (pid, its process's start time,
host), so a reader can tell a run that is going on from one whose launcher was killed: that one
still says ``running``, and :func:`observed_status` calls it ``abandoned``.

Versions: 1 added ``schema_version`` and ``launcher``; a file without ``schema_version`` is
version 0 (TensorDeck before it) and is read as far as it goes. A file that is not a summary
is refused with :class:`SummaryError`, one line naming the file and the field.
"""

from __future__ import annotations

import os
import socket
import sys
from dataclasses import field
from pathlib import Path

from core.bounded import TooDeep, loads, read_file
from core.events import RunStatus, TaskState
from core.exitcodes import describe
from core.messages import recognise
from core.model import record, to_data, validate, validation_error

SCHEMA_VERSION = 1
SUMMARY_FILE = "summary.json"
#: A summary of 1,024 tasks is about 500 KiB: anything far larger is not one.
MAX_SUMMARY_BYTES = 16 * 1024 * 1024
#: How far a launcher's start time, as read again now, may be from the recorded one (Linux
#: derives it from the boot time, which clock adjustments move by a fraction of a second).
START_TIME_TOLERANCE = 1.0


class SummaryError(ValueError):
    """A summary.json that cannot be read; the message names the file and the problem."""


def _description(code: int | None) -> str | None:
    return None if code is None else describe(code)


# Records of summary.json: extra="ignore", a newer TensorDeck's extra fields do not make a file
# unreadable; written in full at each record, as type checkers see only a direct @record(...).
@record(extra="ignore", strict=False)
class LauncherSummary:
    """The process that runs (or ran) the run: the CLI's or the window's."""

    pid: int
    #: Its process's creation time (psutil's ``create_time``), which tells a reused pid apart;
    #: None in the first summary, written before the tasks start (the lookup costs start-up).
    started_at: float | None = None
    host: str | None = None


@record(extra="ignore", strict=False)
class TaskSummary:
    task: str
    role: str
    index: int
    host: str | None = None
    port: int | None = None
    gpus: list[int] | None = None
    state: TaskState = TaskState.PENDING
    pid: int | None = None
    exit_code: int | None = None
    #: Derived from ``exit_code`` (a Windows status code's hex form and name).
    exit_description: str | None = None
    restarts: int = 0
    started_at: float | None = None
    ended_at: float | None = None
    log: str | None = None

    def __post_init__(self) -> None:
        self.exit_description = _description(self.exit_code)


@record(extra="ignore", strict=False)
class RunSummary:
    schema_version: int = SCHEMA_VERSION
    name: str | None = None
    strategy: str | None = None
    run_dir: str | None = None
    config_path: str | None = None
    status: RunStatus
    exit_code: int | None = None
    exit_description: str | None = None
    reason: str | None = None
    #: Derived from ``reason`` when it is one of TensorDeck's messages (core.messages): its id
    #: and parameters, by which a reader says it in another language.
    reason_id: str | None = None
    reason_params: dict[str, str] | None = None
    started_at: float | None = None
    ended_at: float | None = None
    duration_seconds: float | None = None
    launcher: LauncherSummary | None = None
    tasks: list[TaskSummary] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.exit_description = _description(self.exit_code)
        found = recognise(self.reason) if self.reason else None
        self.reason_id, self.reason_params = found or (None, None)
        if self.started_at is not None and self.ended_at is not None:
            self.duration_seconds = round(max(0.0, self.ended_at - self.started_at), 3)

    def to_json(self) -> dict:
        return to_data(self)


def _start_time_from_proc() -> float | None:
    """This process's start as psutil's create_time() computes it on Linux (boot time plus the
    start in clock ticks), for the cost of two small reads instead of importing psutil. None
    elsewhere, or when /proc does not tell it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        with open("/proc/self/stat", "rb") as file:
            # After "(comm)", which may hold spaces: field 3 onwards; starttime is field 22.
            ticks = int(file.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/stat", "rb") as file:
            boot = next(int(line.split()[1]) for line in file if line.startswith(b"btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def this_launcher(with_start_time: bool) -> LauncherSummary:
    """This process as a launcher. ``with_start_time`` imports psutil where /proc does not tell
    it: not before the tasks started (launch overhead)."""
    started = _start_time_from_proc()
    if started is None and with_start_time:
        import psutil

        try:
            started = psutil.Process().create_time()
        except psutil.Error:
            started = None
    return LauncherSummary(pid=os.getpid(), started_at=started, host=socket.gethostname())


def _where(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse_summary(data: object, source: str = SUMMARY_FILE) -> RunSummary:
    """Validate parsed JSON as a summary of any version this TensorDeck reads."""
    if not isinstance(data, dict):
        raise SummaryError(f"{source}: is not a run summary (a JSON object)")
    version = data.get("schema_version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise SummaryError(f"{source}: schema_version: {version!r} is not a version number")
    if version > SCHEMA_VERSION:
        raise SummaryError(
            f"{source}: schema_version {version} is newer than this TensorDeck reads "
            f"({SCHEMA_VERSION}): update TensorDeck"
        )
    try:
        return validate(RunSummary, {**data, "schema_version": version})
    except validation_error() as exc:
        errors = exc.errors()
        first = errors[0]
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        where = _where(first["loc"])
        raise SummaryError(f"{source}: {where}: {first['msg']}{more}") from None


def read_summary(run_dir: str | Path) -> RunSummary:
    """The summary in ``run_dir``; SummaryError when there is none or it is not one. Read as
    any file of a run folder is (:mod:`core.bounded`): a regular file only (not a link, a FIFO
    or a device), capped, its JSON bounded (numbers, depth)."""
    path = Path(run_dir) / SUMMARY_FILE
    try:
        raw = read_file(path, MAX_SUMMARY_BYTES + 1).data
    except OSError as exc:
        raise SummaryError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_SUMMARY_BYTES:
        raise SummaryError(f"{path}: larger than {MAX_SUMMARY_BYTES >> 20} MiB: not a summary")
    try:
        data = loads(raw.decode("utf-8"), strict=True)
    except (UnicodeDecodeError, TooDeep):
        raise SummaryError(f"{path}: is not JSON text") from None
    except ValueError as exc:
        raise SummaryError(f"{path}: invalid JSON: {exc}") from None
    return parse_summary(data, str(path))


def _pid_alive(pid: int | None, started_at: float | None = None) -> bool:
    import psutil

    if pid is None:
        return False
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        return started_at is None or abs(proc.create_time() - started_at) <= START_TIME_TOLERANCE
    except (psutil.Error, OverflowError, ValueError):  # a pid out of range is no process
        return False


def observed_status(summary: RunSummary) -> RunStatus:
    """The status a reader should show: a summary that says running is ``abandoned`` once its
    launcher is gone (pid gone, or reused by another process). A launcher on another host
    cannot be checked from here: its word stands. Version 0 has no launcher: running while one
    of its task processes exists."""
    if summary.status is not RunStatus.RUNNING:
        return summary.status
    launcher = summary.launcher
    if launcher is not None:
        if launcher.host is not None and launcher.host != socket.gethostname():
            return RunStatus.RUNNING
        alive = _pid_alive(launcher.pid, launcher.started_at)
    else:
        alive = any(_pid_alive(t.pid) for t in summary.tasks)
    return RunStatus.RUNNING if alive else RunStatus.ABANDONED
