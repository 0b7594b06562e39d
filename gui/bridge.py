"""The one way core events reach Qt.

Core calls :meth:`EventBridge.sink` from any thread (the supervisor's loop and its reader
threads); the sink only appends to a list under a lock. A GUI-thread timer swaps the list out
every ``interval_ms`` and emits it as one ``batch`` signal, so a task printing 50,000 lines a
second costs the GUI one signal per tick, not one per line. The GPU sampler's callback is
forwarded the same way (:class:`GpuFeed`), and so are the CPU and memory samples
(:class:`TelemetryFeed`).
"""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from core.events import Event
from core.gpu.info import GpuState
from core.gpu.sampler import GpuSampler
from core.telemetry import TelemetrySampler

DRAIN_INTERVAL_MS = 50


class EventBridge(QObject):
    """Thread-safe sink for core events; ``batch(list[Event])`` on the GUI thread, in order."""

    batch = Signal(list)

    def __init__(self, interval_ms: int = DRAIN_INTERVAL_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._events: list[Event] = []
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.drain)

    def sink(self, event: Event) -> None:
        """The core event sink: any thread, never blocks on the GUI."""
        with self._lock:
            self._events.append(event)

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        """Stop the timer after delivering what is queued."""
        self._timer.stop()
        self.drain()

    @Slot()
    def drain(self) -> None:
        with self._lock:
            events, self._events = self._events, []
        if events:
            self.batch.emit(events)


class GpuFeed(QObject):
    """Runs a :class:`GpuSampler` (stamping samples with wall-clock time, for chart axes) and
    re-emits on the GUI thread: ``sample(GpuSample)``, and ``unavailable(message)`` once when
    NVML cannot start (no driver ...), after which the sampler has ended."""

    sample = Signal(object)
    unavailable = Signal(str)

    def __init__(self, parent: QObject | None = None, *, nvml: object = None,
                 interval: float = 1.0) -> None:
        super().__init__(parent)
        self.sampler = GpuSampler(self.sample.emit, on_error=self._on_error, nvml=nvml,
                                  interval=interval, clock=time.time)

    def start(self) -> None:
        self.sampler.start()

    def stop(self) -> None:
        self.sampler.stop()

    def _on_error(self, message: str) -> None:  # sampler thread
        report = self.sampler.report
        if report is not None and report.state not in (GpuState.OK, GpuState.NO_GPU):
            self.unavailable.emit(message)


class TelemetryFeed(QObject):
    """Runs a :class:`TelemetrySampler` and re-emits on the GUI thread: ``sample(MachineSample)``.
    :meth:`watch` names the tasks' pids (key -> pid)."""

    sample = Signal(object)

    def __init__(self, parent: QObject | None = None, *, interval: float = 1.0) -> None:
        super().__init__(parent)
        self.sampler = TelemetrySampler(self.sample.emit, interval=interval)

    def start(self) -> None:
        self.sampler.start()

    def stop(self) -> None:
        self.sampler.stop()

    def watch(self, tasks: dict[str, int]) -> None:
        self.sampler.watch(tasks)
