"""The machine as a run sees it, on every machine (no NVIDIA needed): CPU and memory in use,
and each task's CPU and memory (its whole process tree: a task's data loaders are its
children), sampled with psutil on a background thread.

Per-process CPU percent needs two readings of the same process, so the sampler keeps each
``psutil.Process`` between ticks; a process that ended drops out. Finding a task's descendants
scans every process of the machine, so the trees are found again only every
:data:`TREE_INTERVAL` seconds (or when a task starts), not at every tick. Percentages are of
one core, as ``top`` shows them (a task using 4 cores fully is 400 %).

Callbacks run on the sampler thread: a GUI forwards the sample through a queued signal.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import psutil

MIB = 1024 * 1024
TREE_INTERVAL = 5.0


@dataclass(frozen=True)
class TaskUsage:
    """One task's process tree at one moment: ``pids`` are the task (``pid``) and its
    descendants."""

    pid: int
    pids: frozenset[int]
    cpu_percent: float
    memory_mib: float


@dataclass(frozen=True)
class MachineSample:
    time: float
    cpu_percent: float  # of the whole machine (100: every core busy)
    memory_used_mib: float
    memory_total_mib: float
    tasks: dict[str, TaskUsage]


class TelemetrySampler:
    """``start()`` it, :meth:`watch` the tasks' pids as they start, receive
    :class:`MachineSample` objects in ``on_sample`` every ``interval`` seconds, ``stop()`` it.
    ``clock`` stamps the samples (wall-clock time by default, for chart axes)."""

    def __init__(self, on_sample: Callable[[MachineSample], None], *, interval: float = 1.0,
                 clock: Callable[[], float] = time.time) -> None:
        if interval <= 0:
            raise ValueError("interval must be a positive number of seconds")
        self._on_sample = on_sample
        self._interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._tasks: dict[str, int] = {}
        self._processes: dict[int, psutil.Process] = {}
        self._trees: dict[str, list[int]] = {}
        self._trees_at: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def watch(self, tasks: dict[str, int]) -> None:
        """The tasks to report (key -> pid): replaces the last set (any thread)."""
        with self._lock:
            self._tasks = dict(tasks)
            self._trees_at = None  # a new task: find the trees now

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        psutil.cpu_percent(None)  # the first reading only starts the measurement
        self._thread = threading.Thread(target=self._run, name="tensordeck-telemetry",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(5)

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._on_sample(self.sample())
            except RuntimeError:  # the receiver is gone (a closed window): nobody to tell
                return

    def sample(self) -> MachineSample:
        """One reading now (the sampler's thread calls it; tests may too)."""
        with self._lock:
            tasks = dict(self._tasks)
            stale = self._trees_at is None or time.monotonic() - self._trees_at >= TREE_INTERVAL
            if stale:
                self._trees_at = time.monotonic()
        if stale:
            self._trees = {key: self._tree(pid) for key, pid in tasks.items()}
        memory = psutil.virtual_memory()
        seen: dict[int, psutil.Process] = {}
        usage = {key: self._task_usage(pid, self._trees.get(key, [pid]), seen)
                 for key, pid in tasks.items()}
        self._processes = seen  # ended processes drop out
        return MachineSample(self._clock(), psutil.cpu_percent(None),
                             (memory.total - memory.available) / MIB, memory.total / MIB,
                             {key: u for key, u in usage.items() if u is not None})

    @staticmethod
    def _tree(pid: int) -> list[int]:
        """``pid`` and its descendants (a scan of every process: not at every tick)."""
        try:
            return [pid, *(child.pid for child in psutil.Process(pid).children(recursive=True))]
        except psutil.Error:
            return [pid]

    def _task_usage(self, pid: int, tree: list[int],
                    seen: dict[int, psutil.Process]) -> TaskUsage | None:
        cpu = memory = 0.0
        pids = set()
        for member in tree:
            try:
                process = self._processes.get(member) or psutil.Process(member)
                with process.oneshot():
                    cpu += process.cpu_percent(None)  # since its last reading
                    memory += process.memory_info().rss
            except psutil.Error:
                continue  # it ended
            seen[member] = process
            pids.add(member)
        if pid not in pids:
            return None  # the task itself ended
        return TaskUsage(pid, frozenset(pids), cpu, memory / MIB)
