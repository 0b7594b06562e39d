"""The doctor inside WSL (core/doctor/wsl_checks.py) through the wsl.exe stand-in's ``gpu``
distributions (tests/wsl/wsl_server.py): the Windows driver's /usr/lib/wsl/lib, /dev/dxg, a
Linux driver's libcuda and apt's records are real files planted in each command's mount
namespace. Each WSL trap is found with its fix, said to run where it runs (in the
distribution, or in PowerShell); the healthy distribution finds nothing; a check that answers
too much, garbage or nothing is refused with a warning.

The GPU itself is the one fake: the GPU report is made here, as NVML on Windows would give it."""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.doctor.machine import diagnose_machine
from core.doctor.wsl_checks import MARK, WslCheckFailed, check_wsl_gpu, read_answer
from core.findings import Finding
from core.gpu.info import GpuInfo, GpuReport, GpuState
from core.interpreters.probe import ProbeResult, probe_interpreter
from tests.conftest import tensordeck

GPU = GpuReport(GpuState.OK, "1 GPU", "560.94", "12.6", (GpuInfo(0, "RTX 4070"),))
NO_GPU = GpuReport(GpuState.NO_DRIVER, "No NVIDIA driver found")
WSL_IDS = {"wsl-linux-driver", "wsl-gpu-unavailable"}


@pytest.fixture
def gpu_wsl(wsl_standin, monkeypatch):
    """The stand-in answering as the ``gpu`` scenario."""
    wsl_standin.use(monkeypatch, "gpu")
    return wsl_standin


def tf_python(standin, distro: str) -> str:
    home = standin.homes[distro]
    if not standin.local(f"{home}/tf/bin/python").exists():
        pytest.skip("the tests run outside a venv: each distribution's ~/tf is made from it")
    return f"wsl://{distro}{home}/tf/bin/python"


def no_linux_driver_here(standin) -> None:
    """Every distribution of the stand-in is this machine: its own Linux driver shows in all."""
    for folder in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64"):
        local = standin.local(folder)
        if local.is_dir() and any(local.glob("libcuda.so*")):
            pytest.skip(f"this machine has a Linux NVIDIA driver ({folder}/libcuda.so*): every "
                        "stand-in distribution shows it")


def probed(standin, distro: str, *, import_tf: bool = False) -> ProbeResult:
    probe = probe_interpreter(tf_python(standin, distro), import_tf=import_tf)
    assert probe.tf_version, probe.error
    return probe


def findings_of(report: GpuReport, probe: ProbeResult) -> list[Finding]:
    return [f for f in diagnose_machine(report, [probe]) if f.subject == probe.python]


def commands(finding: Finding, shell: str) -> list[str]:
    return [s.command for s in finding.steps if s.command and s.shell == shell]


def test_the_check_reads_what_each_distribution_holds(gpu_wsl):
    no_linux_driver_here(gpu_wsl)
    healthy = check_wsl_gpu(tf_python(gpu_wsl, "Healthy"))
    assert (healthy.wsl_libcuda, healthy.dxg, healthy.smi_driver) == (True, True, "560.94")
    # Its link to the Windows driver's libcuda (as some guides make) is no Linux driver.
    assert healthy.linux_libcuda == () and not healthy.linux_driver
    driver = check_wsl_gpu(tf_python(gpu_wsl, "LinuxDriver"))
    assert [os.path.basename(p) for p in driver.linux_libcuda] == ["libcuda.so", "libcuda.so.1"]
    if driver.driver_packages is not None:  # dpkg there: apt's records, config files left out
        assert driver.driver_packages == ("libnvidia-compute-550", "nvidia-driver-550")
    bare = check_wsl_gpu(tf_python(gpu_wsl, "NoWslLib"))
    assert bare.missing() == ["/usr/lib/wsl/lib/libcuda.so.1", "/dev/dxg"]
    assert bare.smi_driver is None and "nvidia-smi" in bare.smi_error
    assert check_wsl_gpu(tf_python(gpu_wsl, "NoDxg")).missing() == ["/dev/dxg"]
    # Planted in the commands' namespaces only: this machine is untouched.
    assert not gpu_wsl.local("/usr/lib/wsl").exists() and not gpu_wsl.local("/dev/dxg").exists()


def test_a_linux_driver_inside_wsl_is_removed_there(gpu_wsl):
    """An error while TensorFlow sees no GPU; the fix runs in the distribution, removes what
    dpkg installed, and installs nothing there again."""
    no_linux_driver_here(gpu_wsl)
    probe = probed(gpu_wsl, "LinuxDriver")
    [finding] = findings_of(GPU, probe)
    assert finding.id == "wsl-linux-driver" and finding.severity == "error"
    assert "libcuda not from /usr/lib/wsl/lib: " in finding.evidence
    assert "/libcuda.so.1" in finding.evidence
    inside = [s for s in finding.steps if s.shell == "bash"]
    assert inside and all(s.text.startswith("In WSL (LinuxDriver), not in PowerShell: ")
                          for s in inside)
    remove = inside[0].command
    if "dpkg: " in finding.evidence:
        assert remove.startswith("sudo apt-get purge libnvidia-compute-550 nvidia-driver-550\n")
    else:
        assert remove == "sudo nvidia-uninstall"
    assert inside[0].admin and "libnvidia-compute-535" not in remove
    assert any("Install no NVIDIA driver inside WSL" in s.text for s in finding.steps)
    home = gpu_wsl.homes["LinuxDriver"]
    assert inside[-1].command.startswith(f"{home}/tf/bin/python -c ")  # Linux path, not wsl://
    assert "WSL 内安装了 Linux 版 NVIDIA 驱动" in finding.title_in("zh_CN")
    assert all(s.text_in("zh_CN").startswith("在 WSL（LinuxDriver）中运行") for s in inside)
    # While TensorFlow still sees the GPU, the driver is a trap waiting: a warning.
    seeing = replace(probe, import_attempted=True, import_ok=True,
                     gpus=["/physical_device:GPU:0"])
    assert [f.severity for f in findings_of(GPU, seeing)] == ["warning"]


@pytest.mark.parametrize(("distro", "missing"), [
    ("NoWslLib", "no /usr/lib/wsl/lib/libcuda.so.1 and no /dev/dxg"),
    ("NoDxg", "no /dev/dxg"),
])
def test_wsl_without_gpu_support_is_updated_on_windows(gpu_wsl, distro, missing):
    no_linux_driver_here(gpu_wsl)
    probe = probed(gpu_wsl, distro)
    [finding] = findings_of(GPU, probe)
    assert finding.id == "wsl-gpu-unavailable" and finding.severity == "error"
    assert f"in WSL {distro}: {missing}" in finding.evidence
    assert commands(finding, "powershell") == ["nvidia-smi", "wsl --update\nwsl --shutdown\n"
                                                              "wsl -l -v"]
    assert all("not in WSL" in s.text for s in finding.steps if s.shell == "powershell")
    [check] = [s for s in finding.steps if s.shell == "bash"]
    assert check.text.startswith(f"In WSL ({distro}), not in PowerShell: ")
    assert check.argv == (("ls", "-l", "/dev/dxg", "/usr/lib/wsl/lib/libcuda.so.1"),
                          ("/usr/lib/wsl/lib/nvidia-smi",))
    # Without an NVIDIA GPU on Windows there is none to lend: the machine's finding says so.
    assert not [f for f in diagnose_machine(NO_GPU, [probe]) if f.id in WSL_IDS]


def test_tensorflow_without_and_cuda_is_fixed_with_that_interpreters_pip(gpu_wsl):
    """TensorFlow imports inside the distribution and sees no GPU: the cause is the missing
    pip CUDA libraries, with no generic "CUDA runtime not found" on top."""
    no_linux_driver_here(gpu_wsl)
    probe = probed(gpu_wsl, "NoAndCuda", import_tf=True)
    assert probe.import_ok and probe.gpus == [], probe.error
    [finding] = findings_of(GPU, probe)
    assert finding.id == "missing-cuda-runtime" and finding.severity == "error"
    assert finding.message.message_id == "finding.missing-cuda-runtime.no-and-cuda"
    assert "nvidia-cudnn-cu*" in finding.evidence
    python = f"{gpu_wsl.homes['NoAndCuda']}/tf/bin/python"
    minor = ".".join(probe.tf_version.split(".")[:2])
    install, _verify = finding.steps
    assert install.command == f'{python} -m pip install "tensorflow[and-cuda]=={minor}.*"'
    assert install.shell == "bash" and install.argv[0][0] == python
    assert install.text.startswith("In WSL (NoAndCuda), not in PowerShell: ")
    assert findings_of(NO_GPU, probe) == []  # no GPU to use: nothing to install


def test_the_healthy_distribution_adds_nothing(gpu_wsl):
    no_linux_driver_here(gpu_wsl)
    probe = probed(gpu_wsl, "Healthy")
    assert probe.packages.get("nvidia-cudnn-cu12")
    assert findings_of(GPU, probe) == []


def test_the_doctor_command_finds_the_linux_driver(gpu_wsl):
    """``tensordeck doctor --python wsl://...`` end to end (no GPU on this machine: the
    Linux driver inside WSL is an error all the same)."""
    no_linux_driver_here(gpu_wsl)
    python = tf_python(gpu_wsl, "LinuxDriver")
    env = {**os.environ, **gpu_wsl.environ("gpu")}
    run = tensordeck("doctor", "--no-import", "--json", "--python", python, env=env)
    assert run.returncode == 1, run.stderr
    [finding] = [f for f in json.loads(run.stdout)["findings"] if f.get("subject") == python]
    assert finding["id"] == "wsl-linux-driver"
    assert finding["steps"][0]["message_id"] == "fix.in-wsl"


def test_the_pre_run_gate_says_why_tensorflow_in_wsl_sees_no_gpu(gpu_wsl, tmp_path):
    """A job that asks for GPUs, its interpreter in a distribution with a Linux driver
    installed: the gate before the run names that driver (what to remove, inside WSL), not
    only "GPUs requested, none seen"; a healthy distribution adds nothing of WSL's."""
    from core.doctor.prerun import prerun_findings

    no_linux_driver_here(gpu_wsl)
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\n")

    def gate(distro: str) -> list[Finding]:
        return prerun_findings(tf_python(gpu_wsl, distro), strategy="single", script=script,
                               wants_gpus=True, env={})

    [finding] = gate("LinuxDriver")
    assert finding.id == "wsl-linux-driver" and finding.severity == "error"
    assert finding.steps[0].message and finding.steps[0].message.message_id == "fix.in-wsl"
    assert not WSL_IDS & {f.id for f in gate("Healthy")}


# --- what the check answers -------------------------------------------------------------------


def in_distro(standin, distro: str, script: str) -> None:
    done = standin.run("-d", distro, "-e", "sh", "-c", script, scenario="gpu")
    assert done.returncode == 0, done.stderr


@pytest.fixture
def hostile(gpu_wsl):
    """Programs inside the Healthy distribution that answer as no Python would."""
    folder = f"/tmp/td-hostile-{uuid.uuid4().hex}"
    programs = {
        "endless": "yes '@@tensordeck-wsl-gpu@@ {}'",
        "binary": "head -c 2048 /dev/urandom",
        "lying": "printf '%s\\n' '@@tensordeck-wsl-gpu@@ {\"wsl_libcuda\": \"yes\"}'",
        "silent": "exec sleep 600",
    }
    script = f"mkdir {folder}\n" + "".join(
        f"printf '#!/bin/sh\\n%s\\n' \"$1\" > {folder}/{name}; chmod +x {folder}/{name}; shift\n"
        for name in programs)
    done = gpu_wsl.run("-d", "Healthy", "-e", "sh", "-c", script, "sh", *programs.values(),
                       scenario="gpu")
    assert done.returncode == 0, done.stderr
    yield {name: f"wsl://Healthy{folder}/{name}" for name in programs}
    in_distro(gpu_wsl, "Healthy", f"rm -rf {folder}")


@pytest.mark.parametrize(("program", "why"), [
    ("endless", "printed more than 4096 bytes"),
    ("binary", "printed no answer"),
    ("lying", "unexpected wsl_libcuda"),
    ("silent", "did not answer in 3 s"),
])
def test_a_hostile_answer_is_refused(hostile, program, why):
    with pytest.raises(WslCheckFailed, match=why):
        check_wsl_gpu(hostile[program], timeout=3, limit=4096)


def test_a_refused_check_is_a_warning_and_the_rest_still_holds(gpu_wsl, hostile):
    """The probe's own facts still give their findings; the check's failure is said once."""
    probe = replace(probed(gpu_wsl, "NoAndCuda"), python=hostile["binary"])
    found = findings_of(GPU, probe)
    assert [(f.id, f.severity) for f in found] == [("missing-cuda-runtime", "error"),
                                                    ("probe-failed", "warning")]
    assert "printed no answer" in found[1].evidence
    assert found[1].message.message_id == "finding.probe-failed.wsl-check"


ANSWER = {"wsl_libcuda": True, "dxg": True, "nvidia_smi": "560.94", "nvidia_smi_error": None,
          "linux_libcuda": ["/usr/lib/x86_64-linux-gnu/libcuda.so.1"],
          "driver_packages": ["nvidia-driver-550"], "os_release": "ID=ubuntu\n"}
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=50),
                    lambda inner: st.lists(inner, max_size=5)
                    | st.dictionaries(st.text(max_size=20), inner, max_size=5), max_leaves=30)


def test_a_well_formed_answer_is_read():
    state = read_answer((MARK + json.dumps(ANSWER) + "\n").encode(), "Ubuntu")
    assert state.linux_driver and state.family == "ubuntu" and state.missing() == []
    assert state.driver_packages == ("nvidia-driver-550",)


@given(st.binary(max_size=2000) | st.builds(lambda s: (MARK + s).encode(), st.text()))
@settings(max_examples=300, deadline=None)
def test_any_output_is_an_answer_or_a_refusal(output):
    with contextlib.suppress(WslCheckFailed):
        read_answer(output, "Ubuntu")


@given(st.dictionaries(st.sampled_from(sorted(ANSWER)), JSON))
@settings(max_examples=300, deadline=None)
def test_any_fields_are_checked_before_use(changes):
    answer = {**ANSWER, **changes}
    try:
        state = read_answer((MARK + json.dumps(answer)).encode(), "Ubuntu")
    except WslCheckFailed:
        return
    assert isinstance(state.wsl_libcuda, bool) and isinstance(state.dxg, bool)
    assert all(isinstance(p, str) and p.startswith("/") and p.isprintable()
               for p in state.linux_libcuda)
