"""A background thread that samples every GPU through NVML and hands each sample to a callback.

One thread owns NVML: it initialises it once, keeps the device handles, reads every GPU each
``interval`` (1 s: NVML's utilization counter itself only updates every 1/6-1 s, and polling
faster holds a driver lock that slows the training it watches), and reads the per-process list
(~5 ms a GPU) only every ``process_interval``. Between two process reads a sample carries the
last list read, with ``processes_at`` saying when that was.

Callbacks run on the sampler thread: a GUI forwards the sample through a queued signal.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from core.gpu.info import GpuInfo, GpuReport, GpuState
from core.gpu.nvml import NvmlSession, NvmlUnavailable
from core.messages import tr


@dataclass(frozen=True)
class GpuSample:
    """Every GPU at ``time`` (the sampler's clock); processes as read at ``processes_at``."""

    time: float
    gpus: tuple[GpuInfo, ...]
    processes_at: float | None

    def to_json(self) -> dict:
        return {
            "time": self.time,
            "processes_at": self.processes_at,
            "gpus": [g.to_json() for g in self.gpus],
        }


class GpuSampler:
    """``start()`` it, receive :class:`GpuSample` objects in ``on_sample``, ``stop()`` it.

    ``on_error(message)`` hears about anything that went wrong in a tick (the sampler keeps
    going) and, once, about NVML being unavailable (the sampler then ends; ``report`` says why).
    ``nvml`` and ``clock`` are injectable: a fake NVML replays recorded values in tests, and
    ``clock`` stamps samples and paces the process list.
    """

    def __init__(
        self,
        on_sample: Callable[[GpuSample], None],
        *,
        on_error: Callable[[str], None] | None = None,
        interval: float = 1.0,
        process_interval: float = 2.0,
        nvml: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if interval <= 0 or process_interval <= 0:
            raise ValueError("interval and process_interval must be positive numbers of seconds")
        self._on_sample = on_sample
        self._on_error = on_error or (lambda message: None)
        self._interval = interval
        self._process_interval = process_interval
        self._nvml = nvml
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: Filled in by the thread once NVML is open (or failed to open).
        self.report: GpuReport | None = None
        self.ready = threading.Event()

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("GpuSampler.start() called twice")
        self._thread = threading.Thread(target=self._run, name="gpu-sampler", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to finish and wait for it (NVML is shut down by then)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        try:
            session = NvmlSession.open(self._nvml)
        except NvmlUnavailable as exc:
            self.report = GpuReport(state=exc.state, message=str(exc))
            self.ready.set()
            self._on_error(str(exc))
            return
        count = len(session.handles)
        self.report = GpuReport(
            state=GpuState.OK if count else GpuState.NO_GPU,
            message=tr("gpu.count", "en", n=count) if count else tr("gpu.none", "en"),
            driver_version=session.driver_version,
            cuda_driver_version=session.cuda_driver_version,
        )
        self.ready.set()
        try:
            self._loop(session)
        finally:
            session.close()

    def _loop(self, session: NvmlSession) -> None:
        processes: dict[int, Any] = {}
        processes_at: float | None = None
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                now = self._clock()
                fresh = processes_at is None or now - processes_at >= self._process_interval
                gpus = []
                for index in range(len(session.handles)):
                    gpu = session.read(index, processes=fresh)
                    if fresh:
                        processes[index] = gpu.processes
                    else:
                        gpu = replace(gpu, processes=processes.get(index))
                    gpus.append(gpu)
                if fresh:
                    processes_at = now
                for gpu in gpus:
                    if gpu.error:
                        self._on_error(f"GPU {gpu.index}: {gpu.error}")
                self._on_sample(GpuSample(time=now, gpus=tuple(gpus), processes_at=processes_at))
            except Exception as exc:  # one bad tick (or a failing callback) must not end sampling
                self._on_error(f"GPU sampling failed: {type(exc).__name__}: {exc}")
            self._stop.wait(max(0.0, self._interval - (time.monotonic() - started)))

