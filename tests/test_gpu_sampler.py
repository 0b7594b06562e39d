"""GpuSampler: one NVML owner thread, paced process list, errors reported and survived."""

from __future__ import annotations

import itertools
import threading

import pytest
from nvml_replay import ReplayNvml

from core.gpu import GpuState
from core.gpu.sampler import GpuSampler


class Collector:
    def __init__(self, want: int) -> None:
        self.samples, self.errors = [], []
        self.want, self.done = want, threading.Event()

    def sample(self, s) -> None:
        self.samples.append(s)
        if len(self.samples) >= self.want:
            self.done.set()

    def error(self, message: str) -> None:
        self.errors.append(message)


def _run(nvml, want: int, clock, **kw) -> Collector:
    got = Collector(want)
    sampler = GpuSampler(got.sample, on_error=got.error, nvml=nvml, clock=clock,
                         interval=0.01, **kw)
    sampler.start()
    assert got.done.wait(10), f"only {len(got.samples)} samples; errors: {got.errors}"
    sampler.stop()
    assert not sampler.running
    return got


def test_nvml_opened_once_handles_cached_processes_every_two_seconds():
    nvml = ReplayNvml.load("h200x2_linux")
    clock = itertools.count(0.0, 1.0).__next__  # each tick is one second later
    got = _run(nvml, 6, clock, process_interval=2.0)
    first = got.samples[:6]
    assert [s.time for s in first] == [0, 1, 2, 3, 4, 5]
    assert [s.processes_at for s in first] == [0, 0, 2, 2, 4, 4]
    # every sample carries the latest list, also between two reads
    assert all(s.gpus[1].processes[0].pid == 970554 for s in first)
    assert nvml.calls["nvmlInit"] == nvml.calls["nvmlShutdown"] == 1
    assert nvml.calls["nvmlDeviceGetHandleByIndex"] == 2
    ticks = len(got.samples)
    assert nvml.calls["nvmlDeviceGetComputeRunningProcesses_v3"] == 2 * ((ticks + 1) // 2)
    assert got.errors == []


def test_a_failing_gpu_and_a_failing_tick_are_reported_and_sampling_goes_on():
    nvml = ReplayNvml.load("h200x2_linux")
    got = Collector(6)
    calls = itertools.count()

    def on_sample(s):
        n = next(calls)
        if n == 1:
            nvml.broken[0] = "GPU_IS_LOST"
        elif n == 3:
            nvml.broken.clear()
            raise RuntimeError("the window was busy")  # a callback bug must not stop sampling
        got.sample(s)

    sampler = GpuSampler(on_sample, on_error=got.error, nvml=nvml, interval=0.01)
    sampler.start()
    assert got.done.wait(10)
    sampler.stop()
    assert any(s.gpus[0].error == "GPU is lost" for s in got.samples)
    assert got.samples[-1].gpus[0].error is None  # recovered
    assert "GPU 0: GPU is lost" in got.errors
    assert any("RuntimeError: the window was busy" in e for e in got.errors)


def test_unavailable_nvml_is_reported_once_and_the_thread_ends():
    got = Collector(1)
    sampler = GpuSampler(got.sample, on_error=got.error, nvml=ReplayNvml.load("driver_mismatch"))
    sampler.start()
    assert sampler.ready.wait(10)
    sampler.stop()
    assert sampler.report.state is GpuState.DRIVER_MISMATCH
    assert got.errors == [sampler.report.message] and got.samples == []


def test_bad_intervals_are_refused():
    with pytest.raises(ValueError, match="positive"):
        GpuSampler(print, interval=0)
