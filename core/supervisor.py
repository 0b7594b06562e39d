"""Start, watch and stop the processes of one run.

The supervisor's loop runs on one thread (the caller of :meth:`Supervisor.run`), which also
spawns every task. One reader
thread per task copies the raw output to the task's log file (every byte, as it arrives) and
emits output events; lifecycle decisions all happen on the loop thread, fed by a queue of typed
messages (:class:`ProcessExited`, :class:`StopRequested`, :class:`ReaderFailed`). The loop
thread is also the only one that publishes the run's summary (``summary.json``): after every
step in which a task changed.

Completion: with a chief, the run ends when the chief exits; without one, when every worker
has exited. Servers (ps; in parameter_server also workers, which only ``join()``) are then
stopped at once; other tasks get ``stop_grace_seconds`` to exit by themselves. A chief, worker
or ps failing fails the run, once its restart policy (``tasks[].restart``, else the job's;
parameter_server workers restart on failure by default: core.config) gives up: the others are
stopped within ``stop_grace_seconds``.

A task TensorDeck stopped is ``stopped`` when it exits as a stop makes it exit (0, SIGTERM,
SIGINT, SIGKILL, Windows' Ctrl+C status); any other code is its own failure during the stop,
recorded as ``failed`` with that code. The run's status is decided by what ended it (completion,
the first failure, a stop request) and a failure during the teardown does not change it: it
gets a RunWarning. See docs/reliability.md.

Processes come from a factory (default :class:`core.proctree.TaskProcess`), so the decisions can
be tested with scripted processes (tests/test_supervisor_scripted.py).
"""

from __future__ import annotations

import queue
import signal
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol

from core.config import RestartPolicy
from core.events import (
    Event,
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
from core.exitcodes import STATUS_CONTROL_C_EXIT, describe, normalize
from core.fsio import append_private
from core.output import LineSplitter
from core.plan import RunPlan, TaskPlan
from core.proctree import TaskProcess, Watchdog, exit_status, kill_escaped, make_watchdog
from core.summary import LauncherSummary, RunSummary, TaskSummary, this_launcher

#: Roles whose failure fails the run (an evaluator's does not).
CRITICAL_ROLES = frozenset({"chief", "worker", "ps"})
#: The exit codes of a task that ended because it was stopped: by itself after the stop
#: (0), by the default action of SIGINT/SIGTERM, by SIGKILL (also Windows' forced stop:
#: core.wintree.KILLED_EXIT_CODE), or Windows' Ctrl+C status (the stop event's
#: KeyboardInterrupt). Exit 1 is not among them: it is what a traceback gives.
STOP_EXIT_CODES = frozenset({0, 128 + 2, 128 + 9, 128 + 15, STATUS_CONTROL_C_EXIT})
MAX_BACKOFF_SECONDS = 30.0
#: A task whose process exited but whose pipe stays open (a child of it holds it) gets this long.
ORPHAN_PIPE_SECONDS = 2.0
READ_SIZE = 1 << 16
TERMINAL = frozenset({TaskState.SUCCEEDED, TaskState.FAILED, TaskState.STOPPED})


class ProcessLike(Protocol):
    """What the supervisor needs of a task's process tree (core.proctree.TaskProcess)."""

    pid: int

    def read(self, size: int) -> bytes: ...
    def abandon_output(self) -> None: ...
    def terminate_tree(self) -> None: ...
    def kill_tree(self) -> None: ...
    def poll(self) -> int | None: ...
    def wait(self) -> int: ...
    def release(self) -> None: ...


class ProcessFactory(Protocol):
    """Starts a task; OSError when it cannot (the task then fails with 127)."""

    def __call__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: str | None = None,
        watchdog: Watchdog | None = None,
    ) -> ProcessLike: ...


# --- messages to the loop thread ------------------------------------------------------------


@dataclass(frozen=True)
class ProcessExited:
    """A task's process ended and its output was drained (``attempt``: which start it was)."""

    key: str
    attempt: int
    returncode: int


@dataclass(frozen=True)
class StopRequested:
    reason: str
    exit_code: int


@dataclass(frozen=True)
class ReaderFailed:
    """A reader thread failed (a sink that raised): TensorDeck's own error, which ends the run."""

    error: Exception


ControlMessage = ProcessExited | StopRequested | ReaderFailed


@dataclass
class TaskRecord:
    """A task's life so far: what the summary reports."""

    plan: TaskPlan
    log_path: Path
    policy: RestartPolicy
    state: TaskState = TaskState.PENDING
    pid: int | None = None
    exit_code: int | None = None
    attempt: int = 0
    started_at: float | None = None
    ended_at: float | None = None
    # Runtime only:
    proc: ProcessLike | None = field(default=None, repr=False)
    reader: threading.Thread | None = field(default=None, repr=False)
    stop_requested: bool = False
    terminate_at: float | None = None
    kill_at: float | None = None
    restart_at: float | None = None
    exit_seen_at: float | None = None

    @property
    def restarts(self) -> int:
        """Times the task was started again (a restart still waiting is not one yet)."""
        return max(0, self.attempt - 1)

    def changes(self) -> tuple:
        """What the summary shows of this task that can change (the rest is the plan's)."""
        return tuple(getattr(self, name) for name in LIVE_FIELDS)

    def summary(self) -> TaskSummary:
        p = self.plan
        return TaskSummary(task=p.key, role=p.role, index=p.index, host=p.host, port=p.port,
                           gpus=p.gpus, log=str(self.log_path),
                           **{name: getattr(self, name) for name in LIVE_FIELDS})


#: The fields of a task's summary that change while it runs (TaskRecord.changes).
LIVE_FIELDS = ("state", "pid", "exit_code", "restarts", "started_at", "ended_at")


@dataclass
class RunResult:
    status: RunStatus
    exit_code: int
    reason: str
    started_at: float
    ended_at: float
    tasks: list[TaskRecord]


def backoff_delay(base_seconds: float, restarts: int) -> float:
    """The wait before restart number ``restarts + 1``: doubling, at most MAX_BACKOFF_SECONDS.
    The doubling is capped before it is computed: 2.0**1025 overflows a float."""
    return min(MAX_BACKOFF_SECONDS, base_seconds * 2 ** min(restarts, 32))


class Supervisor:
    """Runs a :class:`RunPlan` to its end. ``sink`` receives every event; it is called from the
    loop thread and from reader threads, so it must be thread-safe. ``publish`` receives the
    run's summary, on the loop thread, whenever a task changed and at the end; an OSError from
    it (a full disk) becomes a RunWarning, never the end of the run. ``process_factory``
    starts the tasks (default :class:`core.proctree.TaskProcess`)."""

    def __init__(
        self,
        plan: RunPlan,
        sink: EventSink,
        log_dir: Path,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        watchdog_factory: Callable[[], Watchdog | None] = make_watchdog,
        process_factory: ProcessFactory | None = None,
        publish: Callable[[RunSummary], object] | None = None,
    ) -> None:
        self.plan = plan
        self._sink = sink
        self._clock = clock
        self._wall = wall
        self._watchdog_factory = watchdog_factory
        self._process_factory = process_factory or TaskProcess  # looked up now: patchable
        self._publish = publish
        self._control: queue.SimpleQueue[ControlMessage] = queue.SimpleQueue()  # signal-safe
        self._grace = plan.config.stop_grace_seconds
        self.tasks = [
            TaskRecord(t, log_dir / f"{t.name}.log", plan.config.restart_for(t.role, t.index))
            for t in plan.tasks
        ]
        self._by_key = {t.plan.key: t for t in self.tasks}
        self._outcome: tuple[RunStatus, int, str] | None = None
        self._watchdog: Watchdog | None = None
        self._launcher: LauncherSummary = this_launcher(with_start_time=False)
        self._started: float | None = None
        self._ended: float | None = None
        self._winding_up = False  # the sink may be what failed: events are best effort now
        self._published: tuple | None = None
        self._publish_failed = False

    # --- public, thread-safe ------------------------------------------------------------------

    def request_stop(self, reason: str = "interrupted", exit_code: int = 130) -> None:
        """Stop every task (gracefully, then by force after the grace period). A request while
        the run is already winding down kills at once. Safe to call from a signal handler or
        another thread."""
        self._control.put(StopRequested(reason, exit_code))

    # --- the summary (loop thread) ------------------------------------------------------------

    def summary(self) -> RunSummary:
        """The run as it stands: ``running`` until :meth:`run` has returned its result."""
        outcome = self._outcome if self._ended is not None else None
        status, code, reason = outcome or (RunStatus.RUNNING, None, None)
        config = self.plan.config
        return RunSummary(
            name=config.name,
            strategy=config.strategy,
            run_dir=str(self.plan.run_dir),
            config_path=str(self.plan.config_path),
            status=status,
            exit_code=code,
            reason=reason,
            started_at=self._started,
            ended_at=self._ended,
            launcher=self._launcher,
            tasks=[t.summary() for t in self.tasks],
        )

    def _publish_changes(self) -> None:
        mark = (self._ended, self._launcher.started_at, *(t.changes() for t in self.tasks))
        if mark == self._published or self._publish is None:
            return
        self._published = mark
        try:
            self._publish(self.summary())
        except OSError as exc:
            self._published = None  # tried again after the next step
            if not self._publish_failed:  # said once, not on every try
                self._emit(RunWarning(self._wall(), f"cannot update summary.json: "
                                      f"{exc.strerror or exc}; the run goes on"))
            self._publish_failed = True
        else:
            self._publish_failed = False

    # --- the loop -----------------------------------------------------------------------------

    def run(self) -> RunResult:
        self._started = self._wall()
        try:
            self._emit(RunStarted(self._started, str(self.plan.run_dir),
                                  tuple(t.plan.key for t in self.tasks)))
            self._watchdog = self._watchdog_factory()
            if self._watchdog:
                self._watchdog.watch_run(str(self.plan.run_dir))
            self.plan.release_ports()
            # Every process first, then their readers: a reader's start waits for a CPU, which
            # the tasks' interpreters starting up keep busy (a stop request meanwhile waits in
            # the queue).
            readers = [self._spawn(task, read=False) for task in self.tasks]
            for reader in readers:
                if reader is not None:
                    reader.start()
            # Only now, not to delay the tasks: psutil and the launcher's start time.
            self._launcher = this_launcher(with_start_time=True)
            self._publish_changes()
            while not self._finished():
                self._step()
                self._publish_changes()
        except Exception as exc:  # TensorDeck's own fault: end the run, and say so truthfully
            self._outcome = (RunStatus.FAILED, 1, f"TensorDeck error: {exc!r}")
            traceback.print_exc()
        self._winding_up = True
        self._best_effort(self._wind_up)
        self._ended = self._wall()
        self._best_effort(self._publish_changes)
        # Decided by the loop or by an error; a failed wind-up or last write is an error too.
        assert self._outcome is not None
        status, code, reason = self._outcome
        self._emit(RunFinished(self._ended, status, code, reason))
        return RunResult(status, code, reason, self._started, self._ended, self.tasks)

    def _wind_up(self) -> None:
        """After the loop, also after it failed: nothing of the run may be left running."""
        self.plan.release_ports()  # when the loop failed before the tasks started
        self._kill_everything()  # only does something if the loop itself failed
        self._reap_after_error()
        # Daemons of tasks that left their trees and hold no pipe (output to /dev/null).
        escaped = kill_escaped(str(self.plan.run_dir))
        if escaped:
            self._emit(RunWarning(self._wall(), f"stopped {escaped} detached process(es) "
                                  "that tasks had left running"))
        if self._watchdog:
            self._watchdog.close()

    def _best_effort(self, step: Callable[[], None]) -> None:
        """Run a step of the wind-up, which must reach its end whatever fails in it."""
        try:
            step()
        except Exception as exc:
            traceback.print_exc()
            if self._outcome is None or self._outcome[0] is not RunStatus.FAILED:
                self._outcome = (RunStatus.FAILED, 1, f"TensorDeck error: {exc!r}")

    def _finished(self) -> bool:
        return self._outcome is not None and all(t.state in TERMINAL for t in self.tasks)

    def _step(self) -> None:
        now = self._clock()
        deadlines = [d for t in self.tasks for d in (t.terminate_at, t.kill_at, t.restart_at) if d]
        timeout = min([0.25, *(max(0.0, d - now) for d in deadlines)])
        try:
            message: ControlMessage | None = self._control.get(timeout=timeout)
        except queue.Empty:
            message = None
        # Everything already queued is handled in this step, so that a burst (1,000 tasks
        # ending together) costs one summary write, not one per exit.
        while message is not None:
            if isinstance(message, ProcessExited):
                self._on_exit(message)
            elif isinstance(message, StopRequested):
                self._on_stop_request(message)
            else:
                raise message.error
            try:
                message = self._control.get_nowait()
            except queue.Empty:
                message = None
        self._on_tick(self._clock())

    # --- spawning and reading -------------------------------------------------------------------

    def _spawn(self, task: TaskRecord, read: bool = True) -> threading.Thread | None:
        """Start ``task`` and the thread that reads its output (not started unless ``read``);
        None when the process could not start."""
        task.attempt += 1
        task.state = TaskState.RUNNING
        task.restart_at = task.terminate_at = task.kill_at = task.exit_seen_at = None
        task.stop_requested = False
        task.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(append_private(task.log_path), "ab", buffering=0)  # noqa: SIM115 - the reader closes it
        if task.attempt > 1:
            log.write(f"--- tensordeck: restart {task.restarts} of {task.plan.name} ---\n".encode())
        try:
            task.proc = self._process_factory(
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
            self._control.put(ProcessExited(task.plan.key, task.attempt, 127))
            return None
        except BaseException:
            log.close()
            raise
        task.pid = task.proc.pid
        task.started_at = task.started_at or self._wall()
        self._emit(TaskStarted(self._wall(), task.plan.key, task.pid, task.attempt))
        task.reader = threading.Thread(
            target=self._read,
            args=(task, task.proc, task.attempt, log),
            name=f"read-{task.plan.name}",
            daemon=True,
        )
        if read:
            task.reader.start()
        return task.reader

    def _read(self, task: TaskRecord, proc: ProcessLike, attempt: int, log) -> None:
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
            self._control.put(ReaderFailed(exc))
        finally:
            if log is not None:
                with suppress(OSError):
                    log.close()
        self._control.put(ProcessExited(key, attempt, code))

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

    def _on_exit(self, message: ProcessExited) -> None:
        task = self._by_key[message.key]
        if message.attempt != task.attempt:
            return
        if task.proc:
            task.proc.release()
            task.proc = None
        code = exit_status(message.returncode)
        task.exit_code = code
        task.ended_at = self._wall()
        task.terminate_at = task.kill_at = None
        if task.stop_requested:
            stopped = normalize(code) in STOP_EXIT_CODES
            state = TaskState.STOPPED if stopped else TaskState.FAILED
        else:
            state = TaskState.SUCCEEDED if code == 0 else TaskState.FAILED
        failed = state is TaskState.FAILED
        if failed and self._outcome is None and self._may_restart(task):
            delay = backoff_delay(task.policy.backoff_seconds, task.restarts)
            task.state = TaskState.RESTARTING
            task.restart_at = self._clock() + delay
            self._emit(TaskExited(self._wall(), task.plan.key, code, TaskState.FAILED))
            self._emit(TaskRestarting(self._wall(), task.plan.key, task.attempt + 1, delay))
            return
        task.state = state
        self._emit(TaskExited(self._wall(), task.plan.key, code, state))
        if self._outcome is not None:
            if failed and self._outcome[0] is not RunStatus.FAILED:
                self._emit(RunWarning(
                    self._wall(),
                    f"{task.plan.name} failed while the run was being stopped (exit code "
                    f"{describe(code)}); the run stays {self._outcome[0].value}: see its log",
                    task.plan.key,
                ))
            return
        if failed and task.plan.role in CRITICAL_ROLES:
            self._end(
                RunStatus.FAILED,
                code,
                f"{task.plan.name} exited with code {describe(code)}",
                stop_now=True,
            )
        elif self._run_complete():
            self._end(RunStatus.SUCCEEDED, 0, "completed", stop_now=False)

    def _may_restart(self, task: TaskRecord) -> bool:
        policy = task.policy
        return policy.policy == "on_failure" and task.restarts < policy.max_restarts

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

    def _on_stop_request(self, message: StopRequested) -> None:
        if self._outcome is not None:
            self._kill_everything()  # asked (again) while winding down: no more waiting
            return
        self._end(RunStatus.INTERRUPTED, message.exit_code, message.reason, stop_now=True)

    def _end(self, status: RunStatus, exit_code: int, reason: str, *, stop_now: bool) -> None:
        """Decide the run's outcome, then wind the remaining tasks down. A restart still
        waiting is called off: the task keeps the state of its last attempt, failed."""
        self._outcome = (status, exit_code, reason)
        self._emit(RunStopping(self._wall(), reason))
        now = self._clock()
        for task in self.tasks:
            if task.state is TaskState.RESTARTING:
                task.state, task.restart_at = TaskState.FAILED, None
                self._emit(TaskExited(self._wall(), task.plan.key, task.exit_code or 0,
                                      task.state))
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
                started = task.pid is not None  # not a start that failed in TensorDeck
                if task.proc is not None:
                    task.exit_code = exit_status(task.proc.wait())
                    task.proc.release()
                    task.proc = None
                task.state, task.ended_at = TaskState.STOPPED, self._wall()
                if started:  # the window's table learns it too
                    self._emit(TaskExited(self._wall(), task.plan.key, task.exit_code or 0,
                                          task.state))

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

    def _emit(self, event: Event) -> None:
        if not self._winding_up:
            self._sink(event)  # a sink that raises is TensorDeck's error: it ends the run
            return
        try:  # the run is over either way: the sink may be what failed
            self._sink(event)
        except Exception:
            traceback.print_exc()


def install_stop_handlers(stop: Callable[[int], None]) -> Callable[[], None]:
    """``stop(signum)`` on Ctrl+C, SIGTERM, SIGBREAK (Windows) and SIGHUP, in place of the
    default deaths; returns a function that restores the previous handlers."""
    previous = {}

    def handler(signum: int, _frame) -> None:
        stop(signum)

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
