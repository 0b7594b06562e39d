"""A node's GPUs over SSH, against a real OpenSSH server on loopback. The node has no GPU, so
its sessions get a fake ``nvidia-smi`` first on PATH (sshd's ``SetEnv``) that prints the recorded
real output in tests/data/nvidia_smi/ every ``-lms`` milliseconds: the hardware boundary is the
only fake; SSH, the shell, the process and its end are real."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from core.config import Node
from core.gpu.info import GpuReport, GpuState
from core.gpu.smi import smi_command
from core.remote.connect import connect
from core.remote.gpus import NodeGpuMonitor, read_node_gpus, stream_node_gpus
from core.remote.shell import command_line
from tests.sshd import sshd_missing_reason, start_lab, stop_lab

pytestmark = pytest.mark.skipif(
    sshd_missing_reason() is not None, reason=sshd_missing_reason() or ""
)

RECORDED = Path(__file__).parent / "data" / "nvidia_smi" / "h200x8_linux_lms.csv"

FAKE_SMI = """#!{python}
# Stands in for nvidia-smi: the recorded rounds of an 8x H200 machine, one every -lms ms. Asked
# for compute_cap it adds the H200's published capability, 9.0; or, with a file "old-driver"
# beside it, refuses the field as drivers before ~510 do (the recorded refusal).
import os, sys, time
expected, with_capability = {expected!r}, {with_capability!r}
args = sys.argv[1:]
capability = args[:len(with_capability)] == with_capability
if args[:len(expected)] != expected and not capability:
    sys.exit("fake nvidia-smi: unexpected arguments %r" % args)
if capability and os.path.exists(os.path.join(os.path.dirname(__file__), "old-driver")):
    sys.stdout.write(open({refused!r}).read())
    sys.exit(6)
lines = open({recorded!r}).read().splitlines(True)
if capability:
    lines = [line.rstrip("\\n") + ", 9.0\\n" for line in lines]
rounds = [lines[:8], lines[8:]]
loop_ms = int(args[args.index("-lms") + 1]) if "-lms" in args else None
i = 0
while True:
    sys.stdout.write("".join(rounds[i % 2]))
    sys.stdout.flush()
    if loop_ms is None:
        break
    i += 1
    time.sleep(loop_ms / 1000)
"""


@pytest.fixture(scope="module")
def gpu_lab(tmp_path_factory):
    """Node "gpu" (fake nvidia-smi on PATH) and node "plain" (none); a HOME trusting both."""
    root = tmp_path_factory.mktemp("gpulab")
    fake_bin = root / "fakebin"
    fake_bin.mkdir()
    fake = fake_bin / "nvidia-smi"
    fake.write_text(
        FAKE_SMI.format(python=sys.executable, expected=smi_command()[1:],
                        with_capability=smi_command(capability=True)[1:], recorded=str(RECORDED),
                        refused=str(RECORDED.with_name("compute_cap_refused.txt")))
    )
    fake.chmod(0o755)
    lab = start_lab(
        root,
        {"gpu": "127.0.0.4", "plain": "127.0.0.5"},
        extra_config={"gpu": f"SetEnv PATH={fake_bin}:/usr/local/bin:/usr/bin:/bin\n"},
    )
    gpu, plain, key, home = lab["servers"]["gpu"], lab["servers"]["plain"], lab["key"], lab["home"]
    nodes = {
        name: Node(
            host=s.address, port=s.port, user="root", python=sys.executable, key_file=str(key)
        )
        for name, s in (("gpu", gpu), ("plain", plain))
    }
    yield {"nodes": nodes, "servers": lab["servers"], "home": home, "fake": str(fake)}
    stop_lab(lab)


@pytest.fixture(autouse=True)
def trusted_home(gpu_lab, monkeypatch):
    monkeypatch.setenv("HOME", str(gpu_lab["home"]))


def fake_smi_processes(fake: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        cmdline = proc.info["cmdline"] or []
        if fake in cmdline and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


def wait_until(condition, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return bool(condition())


def assert_h200_round(report: GpuReport) -> None:
    assert report.state is GpuState.OK, report.message
    assert [g.index for g in report.gpus] == list(range(8))
    first = report.gpus[0]
    assert (first.name, first.memory_total_mib, first.memory_used_mib) == (
        "NVIDIA H200",
        143771,
        87321,
    )
    assert report.gpus[4].utilization_gpu == 0 and report.driver_version == "580.95.05"


def test_monitor_streams_parsed_rounds_and_stop_ends_nvidia_smi(gpu_lab):
    reports: list[GpuReport] = []
    three = threading.Event()

    def on_report(report: GpuReport) -> None:
        reports.append(report)
        if len(reports) >= 3:
            three.set()

    monitor = NodeGpuMonitor(gpu_lab["nodes"]["gpu"], "gpu", on_report, interval_ms=100)
    monitor.start()
    try:
        assert three.wait(20), [r.message for r in reports]
        assert fake_smi_processes(gpu_lab["fake"]), "nvidia-smi is not running on the node"
    finally:
        monitor.stop()
    assert not monitor.running
    for report in reports:
        assert_h200_round(report)
    assert wait_until(lambda: not fake_smi_processes(gpu_lab["fake"])), "nvidia-smi outlived stop"


def test_node_without_nvidia_smi_reports_no_driver_once_and_ends(gpu_lab):
    reports: list[GpuReport] = []

    async def go() -> None:
        stop = asyncio.Event()
        await asyncio.wait_for(
            stream_node_gpus(gpu_lab["nodes"]["plain"], "plain", reports.append, stop), 30
        )

    asyncio.run(go())  # returns by itself: the stream ends without stop
    assert len(reports) == 1
    assert reports[0].state is GpuState.NO_DRIVER
    assert "nvidia-smi not found on node plain" in reports[0].message


def test_connection_loss_is_reported_as_an_error(gpu_lab):
    reports: list[GpuReport] = []
    first = threading.Event()

    def on_report(report: GpuReport) -> None:
        reports.append(report)
        first.set()

    monitor = NodeGpuMonitor(gpu_lab["nodes"]["gpu"], "gpu", on_report, interval_ms=100)
    monitor.start()
    try:
        assert first.wait(20)
        # The per-connection sshd processes die; the listening server stays.
        sessions = psutil.Process(gpu_lab["servers"]["gpu"].process.pid).children(recursive=True)
        for proc in sessions:
            if proc.name() == "sshd":
                proc.kill()
        assert wait_until(lambda: not monitor.running), "the stream did not end"
    finally:
        monitor.stop()
    assert reports[-1].state is GpuState.ERROR
    assert "lost the connection to node gpu" in reports[-1].message
    assert all(r.state is GpuState.OK for r in reports[:-1])
    assert wait_until(lambda: not fake_smi_processes(gpu_lab["fake"]))


def test_one_look_and_an_unknown_host(gpu_lab, tmp_path, monkeypatch):
    async def look(name: str) -> GpuReport:
        async with await connect(gpu_lab["nodes"][name], name) as conn:
            return await read_node_gpus(conn, "posix", name)

    report = asyncio.run(look("gpu"))
    assert_h200_round(report)
    assert {g.compute_capability for g in report.gpus} == {(9, 0)}
    old_driver = Path(gpu_lab["fake"]).with_name("old-driver")
    old_driver.touch()
    try:  # an nvidia-smi that refuses compute_cap: asked again without it
        report = asyncio.run(look("gpu"))
    finally:
        old_driver.unlink()
    assert_h200_round(report)
    assert {g.compute_capability for g in report.gpus} == {None}
    assert asyncio.run(look("plain")).state is GpuState.NO_DRIVER

    monkeypatch.setenv("HOME", str(tmp_path))  # trusts nobody
    reports: list[GpuReport] = []
    asyncio.run(stream_node_gpus(gpu_lab["nodes"]["gpu"], "gpu", reports.append, asyncio.Event()))
    assert [r.state for r in reports] == [GpuState.ERROR]
    assert "is not a known host" in reports[0].message and "tensordeck trust" in reports[0].message


def test_command_line_for_each_shell():
    argv = ["nvidia-smi", "--query-gpu=index,name", "-lms", "500"]
    assert command_line(argv, "posix") == "nvidia-smi --query-gpu=index,name -lms 500"
    # PowerShell would split a bare a,b into an array; quoted it is one argument.
    assert command_line(argv, "powershell") == (
        "& 'nvidia-smi' '--query-gpu=index,name' '-lms' '500'"
    )
    assert command_line(argv, "cmd") == 'nvidia-smi "--query-gpu=index,name" -lms 500'
