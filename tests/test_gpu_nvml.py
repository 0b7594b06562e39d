"""NVML reading: replayed recordings of real cards (tests/data/nvml) and the real library here."""

from __future__ import annotations

import argparse
import ctypes.util
import json

import pytest
from nvml_replay import ReplayNvml

from core.gpu import GpuState, read_gpus
from core.gpu.command import gpus_command


def test_rtx3090_under_wddm_reads_every_field_and_no_process_memory():
    report = read_gpus(ReplayNvml.load("rtx3090_windows_wddm"))
    assert report.state is GpuState.OK
    assert (report.driver_version, report.cuda_driver_version) == ("591.86", "13.1")
    (gpu,) = report.gpus
    assert gpu.name == "NVIDIA GeForce RTX 3090"
    assert (gpu.memory_used_mib, gpu.memory_total_mib) == (3545, 24576)
    assert (gpu.utilization_gpu, gpu.temperature_c) == (15, 36)
    assert gpu.power_draw_w == pytest.approx(30.214)
    assert gpu.power_limit_w == 350.0
    assert gpu.driver_model == "WDDM"
    assert gpu.mig_enabled is None  # GeForce: NOT_SUPPORTED is "not available", not a crash
    assert [p.pid for p in gpu.processes] == [12664, 20120]
    assert all(p.used_memory_mib is None for p in gpu.processes)  # WDDM: by design
    assert gpu.processes[1].name.endswith("python.exe")


def test_h200_on_linux_has_no_driver_model_and_mig_disabled():
    report = read_gpus(ReplayNvml.load("h200x2_linux"))
    assert report.cuda_driver_version == "13.0"
    assert [g.memory_total_mib for g in report.gpus] == [143771, 143771]
    assert [g.driver_model for g in report.gpus] == [None, None]
    assert [g.mig_enabled for g in report.gpus] == [False, False]
    assert report.gpus[0].processes[0].used_memory_mib == 87186
    json.dumps(report.to_json())  # serialisable as is


def test_an_older_driver_without_the_newer_entry_points_falls_back():
    nvml = ReplayNvml.load("rtx3090_windows_wddm")
    device = nvml.recording["devices"][0]
    # What a driver without nvmlDeviceGetTemperatureV / _v3 process list / DriverModel_v2 has:
    device["nvmlDeviceGetTemperature"] = device.pop("nvmlDeviceGetTemperatureV")
    device["nvmlDeviceGetComputeRunningProcesses_v2"] = device.pop(
        "nvmlDeviceGetComputeRunningProcesses_v3"
    )
    device["nvmlDeviceGetDriverModel_v1"] = device.pop("nvmlDeviceGetDriverModel_v2")
    (gpu,) = read_gpus(nvml).gpus
    assert (gpu.temperature_c, gpu.driver_model, len(gpu.processes)) == (36, "WDDM", 2)


def test_a_field_the_driver_lacks_entirely_is_none():
    nvml = ReplayNvml.load("h200x2_linux")
    del nvml.recording["devices"][0]["nvmlDeviceGetPowerUsage"]
    gpus = read_gpus(nvml).gpus
    assert gpus[0].power_draw_w is None
    assert gpus[1].power_draw_w == pytest.approx(412.48)


def test_a_lost_gpu_is_reported_on_that_gpu_only():
    nvml = ReplayNvml.load("h200x2_linux")
    nvml.broken[1] = "GPU_IS_LOST"
    gpus = read_gpus(nvml).gpus
    assert gpus[0].error is None and gpus[0].memory_used_mib == 87321
    assert gpus[1].error == "GPU is lost" and gpus[1].memory_used_mib is None


@pytest.mark.parametrize(
    ("recording", "state", "words"),
    [
        ("driver_not_loaded", GpuState.DRIVER_NOT_LOADED, "not running"),
        ("driver_mismatch", GpuState.DRIVER_MISMATCH, "Reboot"),
        ("no_gpu", GpuState.NO_GPU, "no GPU"),
    ],
)
def test_states_without_gpus(recording, state, words):
    nvml = ReplayNvml.load(recording)
    report = read_gpus(nvml)
    assert report.state is state and words in report.message and report.gpus == ()
    assert nvml.calls["nvmlShutdown"] == (nvml.calls["nvmlInit"] if state is GpuState.NO_GPU else 0)


def test_the_real_library_on_this_machine():
    """No driver here: NVML_ERROR_LIBRARY_NOT_FOUND; on a GPU machine: at least one GPU."""
    report = read_gpus()
    if ctypes.util.find_library("nvidia-ml") is None:
        assert report.state is GpuState.NO_DRIVER
        assert "Install the NVIDIA driver" in report.message
    else:
        assert report.state is GpuState.OK, report.message
        assert report.gpus and report.gpus[0].memory_total_mib > 0


def _args(**kw):
    return argparse.Namespace(json=kw.get("json", False), watch=kw.get("watch", False))


def test_gpus_command_table(capsys):
    assert gpus_command(_args(), nvml=ReplayNvml.load("rtx3090_windows_wddm")) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "NVIDIA driver 591.86, supports CUDA up to 13.1"
    assert out[1].split()[2] == "CC" and out[2].split()[5] == "8.6"
    assert "3545 / 24576" in out[2] and "WDDM" in out[2] and "15%" in out[2]
    assert "pid 20120" in out[4] and "n/a" in out[4]


def test_gpus_command_json_without_a_driver_exits_0(capsys):
    assert gpus_command(_args(json=True), nvml=ReplayNvml.load("driver_not_loaded")) == 0
    assert json.loads(capsys.readouterr().out)["state"] == "driver_not_loaded"


def test_gpus_command_unexpected_nvml_error_exits_1(capsys):
    nvml = ReplayNvml({"init_error": "UNKNOWN", "system": {}, "devices": []})
    assert gpus_command(_args(json=True), nvml=nvml) == 1
    assert json.loads(capsys.readouterr().out)["state"] == "error"


class _StopAfter:
    """A terminal where the user presses Ctrl+C after ``frames`` refreshes."""

    def __init__(self, frames: int) -> None:
        self.frames, self.text = frames, []

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> None:
        self.text.append(text)
        if sum("Ctrl+C" in t for t in self.text) >= self.frames:
            raise KeyboardInterrupt

    def flush(self) -> None:
        pass


def test_gpus_watch_refreshes_until_ctrl_c():
    nvml = ReplayNvml.load("h200x2_linux")
    term = _StopAfter(frames=2)
    assert gpus_command(_args(watch=True), nvml=nvml, out=term) == 0
    frames = [t for t in term.text if "Ctrl+C" in t]
    assert len(frames) == 2 and all("87321 / 143771" in f for f in frames)
    assert nvml.calls["nvmlInit"] == 1 == nvml.calls["nvmlShutdown"]  # sampler stopped


def test_compute_capability_as_the_gpus_report_it():
    (rtx,) = read_gpus(ReplayNvml.load("rtx3090_windows_wddm")).gpus
    h200 = read_gpus(ReplayNvml.load("h200x2_linux")).gpus
    assert rtx.compute_capability == (8, 6)
    assert [g.compute_capability for g in h200] == [(9, 0), (9, 0)]
    assert rtx.to_json()["compute_capability"] == "8.6"


@pytest.mark.parametrize("answer", ["FUNCTION_NOT_FOUND", "NOT_SUPPORTED"])
def test_a_driver_that_cannot_tell_the_capability_gives_none(answer):
    nvml = ReplayNvml.load("rtx3090_windows_wddm")
    device = nvml.recording["devices"][0]
    if answer == "FUNCTION_NOT_FOUND":
        del device["nvmlDeviceGetCudaComputeCapability"]  # the replay raises it for absent calls
    else:
        device["nvmlDeviceGetCudaComputeCapability"] = {"error": answer}
    (gpu,) = read_gpus(nvml).gpus
    assert nvml.calls["nvmlDeviceGetCudaComputeCapability"] == 1
    assert gpu.error is None and gpu.compute_capability is None and gpu.name
    assert gpu.to_json()["compute_capability"] is None
