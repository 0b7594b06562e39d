"""CPU and memory of the machine and of each task's process tree (core.telemetry), measured on
real processes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from core.telemetry import TelemetrySampler
from tests.conftest import under_wine

#: Holds 64 MiB, starts a child that holds 32 MiB, then keeps one core busy.
HOLDER = """import subprocess, sys, time
block = bytearray(64 * 1024 * 1024)
child = subprocess.Popen([sys.executable, "-c",
    "import time; b = bytearray(32 * 1024 * 1024); print('child', flush=True); time.sleep(60)"],
    stdout=subprocess.PIPE, text=True)
child.stdout.readline()
print("ready", flush=True)
end = time.time() + 60
while time.time() < end:
    pass
"""


@pytest.fixture
def holder():
    process = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    import psutil

    children = psutil.Process(process.pid).children(recursive=True)
    yield process
    for child in children:
        child.kill()
    process.kill()
    process.wait()


def test_a_tasks_tree_memory_and_cpu_and_the_machines(holder):
    sampler = TelemetrySampler(lambda sample: None)
    sampler.watch({"worker:0": holder.pid})
    sampler.sample()  # the first CPU reading of a process only starts its measurement
    time.sleep(0.5)
    sample = sampler.sample()
    usage = sample.tasks["worker:0"]
    assert usage.pid == holder.pid and len(usage.pids) == 2  # the task and its child
    assert usage.memory_mib >= 64 + 32
    if not under_wine():  # Wine keeps a running process's CPU times at their start values
        assert usage.cpu_percent > 0
    assert 0 < sample.memory_used_mib < sample.memory_total_mib
    assert 0 <= sample.cpu_percent <= 100


def test_an_ended_task_drops_out_and_the_thread_reports_samples(holder):
    got = []
    sampler = TelemetrySampler(got.append, interval=0.05)
    sampler.watch({"worker:0": holder.pid})
    sampler.start()
    try:
        deadline = time.monotonic() + 30
        while not any("worker:0" in s.tasks for s in got) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any("worker:0" in s.tasks for s in got)
        holder.kill()
        holder.wait()
        count = len(got)
        while len(got) < count + 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "worker:0" not in got[-1].tasks
    finally:
        sampler.stop()


def test_a_receiver_that_is_gone_ends_the_sampler():
    def gone(_sample):
        raise RuntimeError("Internal C++ object already deleted")

    sampler = TelemetrySampler(gone, interval=0.01)
    before = set(threading.enumerate())
    sampler.start()
    (thread,) = set(threading.enumerate()) - before
    thread.join(10)
    assert not thread.is_alive()
    sampler.stop()
