"""Start, watch and stop the processes of one run.

The supervisor's loop runs on one thread (the caller of :meth:`Supervisor.run`), which also
spawns every task: on Linux a task's parent-death signal is tied to that thread. One reader
thread per task copies the raw output to the task's log file (every byte, as it arrives) and
emits output events; lifecycle decisions all happen on the loop thread, fed by a queue.

Completion: with a chief, the run ends when the chief exits; without one, when every worker
has exited. Servers (ps; in parameter_server also workers, which only ``join()``) are then
stopped at once; other tasks get ``stop_grace_seconds`` to exit by themselves. A chief, worker
or ps failing fails the run (after restarts, with policy ``on_failure``): the others are
stopped within ``stop_grace_seconds``.
"""

from __future__ import annotations

import queue
import signal
import threading
import time
import traceback
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from core.events import (
    EventSink,
    RunFinished,
    RunStarted,
    RunStatus,
    RunStopping,
    RunWarning,
    TaskExited,
    TaskOutput,
    TaskRestarting,
    TaskStarted,
    TaskState,
)
from core.exitcodes import describe
from core.output import LineSplitter
from core.proctree import TaskProcess, Watchdog, exit_status, kill_escaped, make_watchdog
from core.topology import RunPlan, TaskPlan

#: Roles whose failure fails the run (an evaluator's does not).
CRITICAL_ROLES = frozenset({"chief", "worker", "ps"})
MAX_BACKOFF_SECONDS = 30.0
#: A task whose process exited but whose pipe stays open (a child of it holds it) gets this long.
ORPHAN_PIPE_SECONDS = 2.0
READ_SIZE = 1 << 16
TERMINAL = frozenset({TaskState.SUCCEEDED, TaskState.FAILED, TaskState.STOPPED})


@dataclass
class TaskRecord:
    """A task's life so far: what the summary reports."""

    plan: TaskPlan
    log_path: Path
    state: TaskState = TaskState.PENDING
    pid: int | None = None
    exit_code: int | None = None
    restarts: int = 0
    attempt: int = 0
    started_at: float | None = None
    ended_at: float | None = None
    # Runtime only:
    proc: TaskProcess | None = field(default=None, repr=False)
    reader: threading.Thread | None = field(default=None, repr=False)
    stop_requested: bool = False
    terminate_at: float | None = None
    kill_at: float | None = None
    restart_at: float | None = None
    exit_seen_at: float | None = None

    def to_json(self) -> dict:
        p = self.plan
        return {
            "task": p.key,
            "role": p.role,
            "index": p.index,
            "host": p.host,
            "port": p.port,
            "gpus": p.gpus,
            "state": self.state.value,
            "pid": self.pid,
            "exit_code": self.exit_code,
            "restarts": self.restarts,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "log": str(self.log_path),
        }


@dataclass
class RunResult:
    status: RunStatus
    exit_code: int
    reason: str
    started_at: float
    ended_at: float
    tasks: list[TaskRecord]

    def to_json(self) -> dict:
        return {
            "status": self.status.value,
            "exit_code": self.exit_code,
            "reason": self.reason,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "duration_seconds": round(self.ended_at - self.started_at, 3),
            "tasks": [t.to_json() for t in self.tasks],
        }


def backoff_delay(base_seconds: float, restarts: int) -> float:
    """The wait before restart number ``restarts + 1``: doubling, at most MAX_BACKOFF_SECONDS.
    The doubling is capped before it is computed: 2.0**1025 overflows a float."""
    return min(MAX_BACKOFF_SECONDS, base_seconds * 2 ** min(restarts, 32))


class Supervisor:
    """Runs a :class:`RunPlan` to its end. ``sink`` receives every event; it is called from the
    loop thread and from reader threads, so it must be thread-safe."""

    def __init__(
        self,
        plan: RunPlan,
        sink: EventSink,
        log_dir: Path,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        watchdog_factory: Callable[[], Watchdog | None] = make_watchdog,
    ) -> None:
        self.plan = plan
        self._sink = sink
        self._clock = clock
        self._wall = wall
        self._watchdog_factory = watchdog_factory
        self._control: queue.SimpleQueue = queue.SimpleQueue()  # reentrant: safe in signal handlers
        self._grace = plan.config.stop_grace_seconds
        self._policy = plan.config.restart
        self.tasks = [TaskRecord(t, log_dir / f"{t.name}.log") for t in plan.tasks]
        self._by_key = {t.plan.key: t for t in self.tasks}
        self._outcome: tuple[RunStatus, int, str] | None = None
        self._watchdog: Watchdog | None = None

    # --- public, thread-safe ------------------------------------------------------------------

    def request_stop(self, reason: str = "interrupted", exit_code: int = 130) -> None:
        """Stop every task (gracefully, then by force after the grace period). A second request
        kills at once. Safe to call from a signal handler or another thread."""
        self._control.put(("stop", reason, exit_code))

    # --- the loop -----------------------------------------------------------------------------

    def run(self) -> RunResult:
        started = self._wall()
        self._emit(
            RunStarted(started, str(self.plan.run_dir), tuple(t.plan.key for t in self.tasks))
        )
        self._watchdog = self._watchdog_factory()
        if self._watchdog:
            self._watchdog.watch_run(str(self.plan.run_dir))
        self.plan.release_ports()
        try:
            for task in self.tasks:
                self._spawn(task)  # a stop request meanwhile waits in the queue
            while not self._finished():
                self._step()
        except Exception as exc:  # TensorDeck's own fault: end the run, and say so truthfully
            self._outcome = (RunStatus.FAILED, 1, f"TensorDeck error: {exc!r}")
            traceback.print_exc()
        finally:
            self._kill_everything()  # only does something if the loop itself failed
            self._reap_after_error()
            # Daemons of tasks that left their trees and hold no pipe (output to /dev/null).
            escaped = kill_escaped(str(self.plan.run_dir))
            if escaped:
                self._emit(RunWarning(self._wall(), f"stopped {escaped} detached process(es) "
                                      "that tasks had left running"))
            if self._watchdog:
                self._watchdog.close()
        status, code, reason = self._outcome or (RunStatus.FAILED, 1, "supervisor error")
        ended = self._wall()
        self._emit(RunFinished(ended, status, code))
        return RunResult(status, code, reason, started, ended, self.tasks)

    def _finished(self) -> bool:
        return self._outcome is not None and all(t.state in TERMINAL for t in self.tasks)

    def _step(self) -> None:
        now = self._clock()
        deadlines = [d for t in self.tasks for d in (t.terminate_at, t.kill_at, t.restart_at) if d]
        timeout = min([0.25, *(max(0.0, d - now) for d in deadlines)])
        try:
            message = self._control.get(timeout=timeout)
        except queue.Empty:
            message = None
        if message:
            if message[0] == "exited":
                self._on_exit(*message[1:])
            elif message[0] == "stop":
                self._on_stop_request(*message[1:])
            elif message[0] == "reader-error":
                raise message[1]
        self._on_tick(self._clock())

    # --- spawning and reading -------------------------------------------------------------------

    def _spawn(self, task: TaskRecord) -> None:
        task.attempt += 1
        task.state = TaskState.RUNNING
        task.restart_at = task.terminate_at = task.kill_at = task.exit_seen_at = None
        task.stop_requested = False
        task.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(task.log_path, "ab", buffering=0)  # noqa: SIM115 - the reader thread closes it
        if task.attempt > 1:
            log.write(f"--- tensordeck: restart {task.restarts} of {task.plan.name} ---\n".encode())
        try:
            task.proc = TaskProcess(
                task.plan.argv,
                self.plan.task_env(task.plan),
                cwd=str(self.plan.script.parent),
                watchdog=self._watchdog,
            )
        except OSError as exc:
            log.write(f"tensordeck: cannot start {task.plan.argv[0]}: {exc}\n".encode())
            log.close()
            self._emit(TaskOutput(self._wall(), task.plan.key, (f"cannot start: {exc}",)))
            task.started_at = task.started_at or self._wall()
            self._control.put(("exited", task.plan.key, task.attempt, 127))
            return
        task.pid = task.proc.pid
        task.started_at = task.started_at or self._wall()
        self._emit(TaskStarted(self._wall(), task.plan.key, task.pid, task.attempt))
        task.reader = threading.Thread(
            target=self._read,
            args=(task, task.proc, task.attempt, log),
            name=f"read-{task.plan.name}",
            daemon=True,
        )
        task.reader.start()

    def _read(self, task: TaskRecord, proc: TaskProcess, attempt: int, log) -> None:
        key = task.plan.key
        splitter = LineSplitter()
        last_progress = None
        try:
            while True:
                data = proc.read(READ_SIZE)
                if not data:
                    break
                if log is not None:
                    log = self._write_log(task, log, data)
                lines, progress = splitter.feed(data)
                if progress == last_progress:
                    progress = None
                else:
                    last_progress = progress
                if lines or progress:
                    self._sink(TaskOutput(self._wall(), key, tuple(lines), progress))
            rest = splitter.close()
            if rest:
                self._sink(TaskOutput(self._wall(), key, tuple(rest)))
            code = proc.wait()
        except Exception as exc:  # a broken sink must not leave the loop waiting forever
            proc.kill_tree()
            code = proc.wait()
            self._control.put(("reader-error", exc))
        finally:
            if log is not None:
                with suppress(OSError):
                    log.close()
        self._control.put(("exited", key, attempt, code))

    def _write_log(self, task: TaskRecord, log: BinaryIO, data: bytes) -> BinaryIO | None:
        """Append ``data`` to the task's log. A write that fails (disk full, quota) stops that
        log, not the task: the output still reaches the terminal and the window, and the log
        says up to which byte it is complete."""
        try:
            log.write(data)
            return log
        except OSError as exc:
            written = 0
            with suppress(OSError):
                written = log.tell()
            with suppress(OSError):
                log.close()
            self._sink(
                RunWarning(
                    self._wall(),
                    f"{task.log_path} stopped at byte {written}: {exc.strerror or exc}; the "
                    "task goes on, its output is still shown",
                    task.plan.key,
                )
            )
            return None

    # --- decisions ------------------------------------------------------------------------------

    def _on_exit(self, key: str, attempt: int, returncode: int) -> None:
        task = self._by_key[key]
        if attempt != task.attempt:
            return
        if task.proc:
            task.proc.release()
            task.proc = None
        code = exit_status(returncode)
        task.exit_code = code
        task.ended_at = self._wall()
        task.terminate_at = task.kill_at = None
        if task.stop_requested:
            state = TaskState.STOPPED
        else:
            state = TaskState.SUCCEEDED if code == 0 else TaskState.FAILED
        critical_failure = state is TaskState.FAILED and task.plan.role in CRITICAL_ROLES
        if critical_failure and self._outcome is None and self._may_restart(task):
            delay = backoff_delay(self._policy.backoff_seconds, task.restarts)
            task.restarts += 1
            task.state = TaskState.RESTARTING
            task.restart_at = self._clock() + delay
            self._emit(TaskExited(self._wall(), key, code, TaskState.FAILED))
            self._emit(TaskRestarting(self._wall(), key, task.attempt + 1, delay))
            return
        task.state = state
        self._emit(TaskExited(self._wall(), key, code, state))
        if self._outcome is not None:
            return
        if critical_failure:
            self._end(
                RunStatus.FAILED,
                code,
                f"{task.plan.name} exited with code {describe(code)}",
                stop_now=True,
            )
        elif self._run_complete():
            self._end(RunStatus.SUCCEEDED, 0, "completed", stop_now=False)

    def _may_restart(self, task: TaskRecord) -> bool:
        return self._policy.policy == "on_failure" and task.restarts < self._policy.max_restarts

    def _run_complete(self) -> bool:
        chief = [t for t in self.tasks if t.plan.role == "chief"]
        enders = chief or [t for t in self.tasks if t.plan.role == "worker"]
        return all(t.state is TaskState.SUCCEEDED for t in enders)

    def _is_server(self, task: TaskRecord) -> bool:
        """Tasks that only serve and never exit by themselves."""
        role = task.plan.role
        return role == "ps" or (
            role == "worker" and self.plan.config.strategy == "parameter_server"
        )

    def _on_stop_request(self, reason: str, exit_code: int) -> None:
        if self._outcome is not None:
            if self._outcome[0] is RunStatus.INTERRUPTED or reason == "interrupted":
                self._kill_everything()  # asked twice: no more waiting
            return
        self._end(RunStatus.INTERRUPTED, exit_code, reason, stop_now=True)

    def _end(self, status: RunStatus, exit_code: int, reason: str, *, stop_now: bool) -> None:
        """Decide the run's outcome, then wind the remaining tasks down."""
        self._outcome = (status, exit_code, reason)
        self._emit(RunStopping(self._wall(), reason))
        now = self._clock()
        for task in self.tasks:
            if task.state is TaskState.RESTARTING:
                task.state, task.restart_at = TaskState.STOPPED, None
                task.ended_at = self._wall()
                self._emit(TaskExited(self._wall(), task.plan.key, task.exit_code or 0, task.state))
            elif task.state is TaskState.RUNNING:
                if stop_now or self._is_server(task):
                    self._terminate(task, now)
                else:
                    task.terminate_at = now + self._grace

    def _terminate(self, task: TaskRecord, now: float) -> None:
        task.stop_requested = True
        task.terminate_at = None
        task.kill_at = now + self._grace
        if task.proc:
            task.proc.terminate_tree()

    def _on_tick(self, now: float) -> None:
        self._watch_the_watchdog()
        for task in self.tasks:
            if task.restart_at is not None and now >= task.restart_at and self._outcome is None:
                self._emit(
                    TaskOutput(
                        self._wall(),
                        task.plan.key,
                        (f"tensordeck: restarting (attempt {task.attempt + 1})",),
                    )
                )
                self._spawn(task)
                continue
            if task.state is not TaskState.RUNNING or task.proc is None:
                continue
            if task.terminate_at is not None and now >= task.terminate_at:
                self._terminate(task, now)
            elif task.kill_at is not None and now >= task.kill_at:
                task.kill_at = None
                task.proc.kill_tree()
            if task.proc.poll() is not None:
                # Exited, but a descendant may still hold the pipe open: its group is killed,
                # then what escaped the group, then the pipe is given up.
                task.exit_seen_at = task.exit_seen_at or now
                if now - task.exit_seen_at > ORPHAN_PIPE_SECONDS:
                    task.proc.kill_tree()
                    kill_escaped(str(self.plan.run_dir), task.plan.key)
                    task.proc.abandon_output()

    def _reap_after_error(self) -> None:
        """Tasks still marked running after the loop failed were just killed: record them."""
        for task in self.tasks:
            if task.state in (TaskState.RUNNING, TaskState.RESTARTING, TaskState.PENDING):
                if task.proc is not None:
                    task.exit_code = exit_status(task.proc.wait())
                    task.proc.release()
                    task.proc = None
                task.state, task.ended_at = TaskState.STOPPED, self._wall()

    def _watch_the_watchdog(self) -> None:
        """A killed watchdog would silently weaken the guarantee that nothing outlives a killed
        TensorDeck: replace it, and register every running task with the new one."""
        if self._watchdog is None or self._watchdog.alive():
            return
        self._watchdog = self._watchdog_factory()
        if self._watchdog is None:
            return
        self._watchdog.watch_run(str(self.plan.run_dir))
        for task in self.tasks:
            if task.proc is not None and task.state is TaskState.RUNNING:
                self._watchdog.watch(task.proc.pid)
        self._emit(RunWarning(self._wall(), "the orphan watchdog was gone: started a new one"))

    def _kill_everything(self) -> None:
        for task in self.tasks:
            if task.proc is not None and task.state is TaskState.RUNNING:
                task.stop_requested = True
                task.proc.kill_tree()

    def _emit(self, event) -> None:
        self._sink(event)


def install_signal_handlers(supervisor: Supervisor) -> Callable[[], None]:
    """Ctrl+C -> stop, exit 130; SIGTERM -> stop, exit 143 (SIGBREAK on Windows too); SIGHUP ->
    stop, exit 129.
    Returns a function that restores the previous handlers."""
    previous = {}

    def handler(signum: int, _frame) -> None:
        supervisor.request_stop("interrupted", 128 + signum)  # SIGINT 2 -> 130, SIGTERM 15 -> 143

    # SIGHUP: the terminal closed. The training deserves a graceful stop, not the default
    # death of the launcher that leaves its tasks to the watchdog's SIGKILL.
    for name in ("SIGINT", "SIGTERM", "SIGBREAK", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None:
            previous[signum] = signal.signal(signum, handler)

    def restore() -> None:
        for signum, old in previous.items():
            signal.signal(signum, old)

    return restore
