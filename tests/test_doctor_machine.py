"""The machine diagnosis lists each interpreter once (two names of one binary are one entry),
with a state its own findings give it, and fixes for this machine's Linux family."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from core.doctor.machine import diagnose_machine, interpreter_statuses
from core.gpu.info import GpuInfo, GpuReport, GpuState
from core.interpreters.probe import probe_interpreter

NO_DRIVER = GpuReport(GpuState.NO_DRIVER, "No NVIDIA driver found")
GPU_OK = GpuReport(GpuState.OK, "1 GPU", "551.86", "12.4", (GpuInfo(0, "RTX 3060"),))


def _base_python() -> str:
    """The interpreter this venv was made from: a binary links can point to."""
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links to the interpreter are a "
                    "POSIX layout (pyenv shims, python3 -> python3.11)")
def test_two_names_of_one_binary_are_one_entry(tmp_path: Path) -> None:
    names = [tmp_path / "a" / "python", tmp_path / "b" / "python3"]
    for name in names:
        name.parent.mkdir()
        name.symlink_to(_base_python())
    probes = [probe_interpreter(str(p), import_tf=False) for p in names]
    probes.append(probe_interpreter(sys.executable, import_tf=False))  # a venv: its own env
    assert all(p.python_version for p in probes)
    statuses = interpreter_statuses(NO_DRIVER, probes, diagnose_machine(NO_DRIVER, probes))
    assert [(s.python, s.aliases) for s in statuses] == [
        (str(names[0]), (str(names[1]),)), (sys.executable, ())]


def test_machine_fix_is_for_this_linux_family(tmp_path: Path) -> None:
    os_release = tmp_path / "os-release"
    os_release.write_text('NAME="Fedora Linux"\nVERSION_ID=40\nID=fedora\n')
    [finding] = diagnose_machine(NO_DRIVER, [], os_release=os_release)
    commands = "\n".join(s.command or "" for s in finding.steps)
    if sys.platform.startswith("linux") and "microsoft" not in os.uname().release.lower():
        assert "akmod-nvidia" in commands and "apt" not in commands
    else:  # Windows / WSL: the driver comes from Windows, whatever os-release says
        assert "akmod-nvidia" not in commands


def test_cpu_build_on_a_gpu_machine_is_a_warning_in_card_and_finding() -> None:
    probe = probe_interpreter(sys.executable, import_tf=False)
    probe.import_attempted = probe.import_ok = True
    probe.built_with_cuda, probe.gpus = False, []
    probe.tf_version = "2.21.0"  # a CPU build, whatever this Python has installed
    probe.packages = {"tensorflow-cpu": probe.tf_version}
    findings = [f for f in diagnose_machine(GPU_OK, [probe]) if f.id == "cpu-only-build"]
    [status] = interpreter_statuses(GPU_OK, [probe], findings)
    assert [f.severity for f in findings] == ["warning"] and status.state == "warning"
    assert "CPU-only build" in findings[0].title and "CPU-only build" in status.summary(probe)
    # Without a GPU, the same build is simply fine, and no finding repeats the card.
    assert not [f for f in diagnose_machine(NO_DRIVER, [probe]) if f.subject]
    assert interpreter_statuses(NO_DRIVER, [probe], [])[0].state == "ok"
