"""``tensordeck doctor`` run for real as a subprocess on this machine (TF-CPU, no NVIDIA
driver), plus diagnose_machine / prerun_findings on real probes."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.doctor import kb
from core.gpu.info import GpuInfo, GpuReport, GpuState
from core.interpreters.probe import ProbeResult, cached_probe
from tests.conftest import installed_tf_version
from tests.nvml_replay import ReplayNvml
from tests.test_gpu_capability import TF210_WINDOWS, TF221_LINUX

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus" / "public.jsonl"


def _doctor(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", "doctor", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=240)


def _case(case_id: str) -> dict:
    return next(c for c in map(json.loads, CORPUS.read_text().splitlines()) if c["id"] == case_id)


def test_explain_stdin_json() -> None:
    case = _case("p08")
    run = _doctor("--explain", "-", "--json", stdin=case["text"])
    assert run.returncode == 1, run.stderr
    data = json.loads(run.stdout)
    first = data["findings"][0]
    assert first["id"] == "missing-msvc-runtime"
    assert set(first) == {"id", "severity", "title", "evidence", "fix", "steps", "message_id"}
    assert "winget install --id Microsoft.VCRedist.2015+.x64 -e" in first["fix"]


def test_explain_file_with_context_human(tmp_path: Path) -> None:
    f = tmp_path / "out.txt"
    f.write_text(_case("p03")["text"])
    run = _doctor("--explain", str(f), "--platform", "windows", "--tf-version", "2.18")
    assert run.returncode == 1
    assert run.stdout.startswith("ERROR TensorFlow 2.11+ has no GPU support on native Windows")
    assert "wsl --install" in run.stdout


def test_explain_clean_output_exits_0() -> None:
    run = _doctor("--explain", "-", stdin="Epoch 1/2\nloss: 0.3\n")
    assert run.returncode == 0 and "This output holds no error message" in run.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--explain", "/nonexistent/err.txt"], "cannot read /nonexistent/err.txt"),
    (["--tf-version", "2.10"], "--tf-version and --cuda-version describe an --explain FILE"),
    (["--cuda-version", "12.2"], "--tf-version and --cuda-version describe an --explain FILE"),
    (["--explain", "-", "--python", sys.executable], "cannot be combined"),
    # The doctor names the absolute path it looked for (Z:\nonexistent\python under Wine).
    (["--python", "/nonexistent/python"],
     f"--python {os.path.abspath('/nonexistent/python')}: no such file"),
])
def test_bad_usage_exits_2(args: list[str], message: str) -> None:
    run = _doctor(*args, stdin="")
    assert run.returncode == 2
    assert message in run.stderr and run.stderr.count("\n") == 1 and run.stdout == ""


def test_machine_no_import_json() -> None:
    run = _doctor("--python", sys.executable, "--no-import", "--json")
    assert run.returncode == 0, run.stdout
    data = json.loads(run.stdout)
    assert data["gpus"]["state"] == "no_driver"
    ids = [f["id"] for f in data["findings"]]
    assert ids[0] == "no-nvidia-driver" and set(ids) <= {"no-nvidia-driver", "mixed-tf-packages"}
    assert {f["severity"] for f in data["findings"]} == {"warning"}
    [interp] = data["interpreters"]
    assert interp["tf_version"] and not interp["import_attempted"]


@pytest.mark.tf
def test_machine_with_import_this_machine() -> None:
    """The real verdict here: no driver (warning); TF imports and trains on the CPU, which the
    interpreter line says (no finding repeats it)."""
    from core.gpu import read_gpus

    if read_gpus(processes=False).state is not GpuState.NO_DRIVER:
        pytest.skip("this machine has an NVIDIA driver; the verdict below is for one without")
    run = _doctor("--python", sys.executable, "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads(run.stdout)
    ids = [f["id"] for f in data["findings"]]
    [interp] = data["interpreters"]
    assert interp["import_ok"] is True and interp["verdict"] in ("cpu-build", "gpu-build-no-gpu")
    assert interp["summary"].endswith("trains on the CPU")
    # This venv may hold tensorflow and tensorflow-cpu (an install from before the train extra
    # named one distribution): then, and only then, the doctor says so.
    probe = cached_probe(sys.executable)
    twice = {"tensorflow", "tensorflow-cpu"} <= set(probe.packages)
    assert ids == ["no-nvidia-driver", *(["mixed-tf-packages"] if twice else [])]
    assert interp["state"] == ("warning" if twice or interp["verdict"] != "cpu-build" else "ok")


def _probe(**kw) -> ProbeResult:
    base = dict(python="C:\\envs\\tf\\python.exe", ok=True, python_version="3.10.11", bits=64,
                platform="Windows-10-10.0.19045-SP0", tf_version="2.15.0",
                packages={"tensorflow": "2.15.0", "tensorflow-intel": "2.15.0"},
                import_attempted=True, import_ok=True, built_with_cuda=False,
                devices=["/physical_device:CPU:0 (CPU)"], import_seconds=4.0)
    base.update(kw)
    return ProbeResult(**base)


GPU_OK = GpuReport(GpuState.OK, "1 GPU", "551.86", "12.4", (GpuInfo(0, "RTX 3060"),))


def test_diagnose_windows_new_tf_with_gpu() -> None:
    from core.doctor.machine import diagnose_machine

    ids = [f.id for f in diagnose_machine(GPU_OK, [_probe()])]
    assert ids[0] == "tf-windows-gpu-unsupported"


def test_diagnose_mixed_packages_and_python() -> None:
    from core.doctor.machine import diagnose_machine

    probe = _probe(tf_version="2.10.0", python_version="3.12.1", import_attempted=False,
                   packages={"tensorflow": "2.10.0", "tensorflow-gpu": "2.9.1"})
    ids = {f.id for f in diagnose_machine(GPU_OK, [probe])}
    assert {"mixed-tf-packages", "python-unsupported"} <= ids


def test_diagnose_import_failure_uses_explain() -> None:
    from core.doctor.machine import diagnose_machine

    stderr = _case("p08")["text"]
    probe = _probe(tf_version="2.10.0", import_ok=False, import_stderr=stderr,
                   error="ImportError: Could not find the DLL(s)", import_returncode=1)
    findings = diagnose_machine(GPU_OK, [probe])
    assert findings[0].id == "missing-msvc-runtime"
    assert findings[0].evidence.startswith("C:\\envs\\tf\\python.exe")


def test_diagnose_driver_too_old() -> None:
    from core.doctor.machine import diagnose_machine

    old = GpuReport(GpuState.OK, "1 GPU", "418.96", "10.1", (GpuInfo(0, "GTX 1080"),))
    probe = _probe(tf_version="2.10.0", built_with_cuda=True, gpus=[],
                   tf_build_info={"cuda_version": "64_112", "cudnn_version": "64_8"})
    ids = [f.id for f in diagnose_machine(old, [probe])]
    assert "driver-too-old" in ids


@pytest.mark.tf
def test_prerun_on_this_interpreter(tmp_path: Path) -> None:
    from core.doctor.prerun import prerun_findings

    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\n"
                      "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
                      "model.fit(ds)\n")
    found = prerun_findings(sys.executable, strategy="multi_worker_mirrored", script=script,
                            wants_gpus=True, env={})
    ids = [f.id for f in found]
    # Keras 3 (TF 2.16+) cannot fit under this strategy; the Windows lane's TF 2.10 can.
    tf = kb.parse_version(installed_tf_version())
    assert ("keras3-strategy-unsupported" in ids) is (kb.minor_of(tf) >= (2, 16))
    # No GPU here: asking for GPUs must say so before the run starts.
    gpu = next(f for f in found if f.title.startswith("GPUs requested"))
    assert gpu.severity == "error"
    legacy = prerun_findings(sys.executable, strategy="multi_worker_mirrored", script=script,
                             wants_gpus=False, env={"TF_USE_LEGACY_KERAS": "1"})
    assert legacy == []


# The machine diagnosis of TF 2.10.1 on Windows, replayed from what the Windows lane recorded
# (tests/data/windows/README.md). The recorded native module path is the lane's: the dependency
# walk is left out here (test_doctor_depwalk runs it on PE files built for it).
WINDOWS_DATA = ROOT / "tests" / "data" / "windows"


@pytest.mark.parametrize(("case", "ids", "named"), [
    ("healthy_no_gpu", ["no-nvidia-driver"], "No NVIDIA driver"),
    ("missing_vcruntime140_1", ["missing-msvc-runtime"], "Microsoft Visual C++ runtime"),
    ("missing_msvcp140_1", ["missing-msvc-runtime"], "msvcp140_1.dll"),
])
def test_machine_diagnosis_replays_real_windows_tf210(case: str, ids: list[str],
                                                      named: str) -> None:
    from core.doctor.machine import diagnose_machine, interpreter_statuses

    data = json.loads((WINDOWS_DATA / f"probe_tf210_{case}.json").read_text(encoding="utf-8"))
    gpus = data["gpus"]
    report = GpuReport(GpuState(gpus["state"]), gpus["message"], gpus["driver_version"],
                       gpus["cuda_driver_version"])
    probe = ProbeResult.from_json({**data["probe"], "tf_native_module": None})
    findings = diagnose_machine(report, [probe])
    assert [f.id for f in findings][:len(ids)] == ids
    assert named in findings[0].title
    [status] = interpreter_statuses(report, [probe], findings)
    if case == "healthy_no_gpu":
        # CPU training works: the machine's warning; the interpreter's card, in the same colour,
        # says the rest, and no finding repeats it.
        assert [f.id for f in findings] == ["no-nvidia-driver"]
        assert [f.severity for f in findings] == ["warning"] and findings[0].subject is None
        assert (status.verdict, status.state) == ("gpu-build-no-gpu", "warning")
        assert status.summary(probe) == ("Python 3.10.11 · TensorFlow 2.10.1 · GPU build, sees "
                                         "no GPU: trains on the CPU")
    else:
        assert (status.verdict, status.state) == ("import-failed", "error")
        assert findings[0].subject == "C:\\tf310\\python.exe"
        assert findings[0].evidence.startswith("C:\\tf310\\python.exe: Python 3.10.11")
        assert any("Visual C++ Redistributable" in s.text for s in findings[0].steps)


def _doctor_args(**kw) -> argparse.Namespace:
    base = dict(explain=None, python=[sys.executable], no_import=True, json=True, platform=None,
                tf_version=None, cuda_version=None)
    return argparse.Namespace(**{**base, **kw})


@pytest.mark.parametrize("as_json", [True, False])
def test_doctor_names_a_gpu_this_build_has_no_code_for(capsys, as_json: bool) -> None:
    """This venv's real TF 2.21.0 wheel (its build_info read by the probe) on the recorded
    GTX 970 (5.2): the build starts at 6.0, and no release TensorDeck knows covers 5.2."""
    from core.doctor.command import doctor_command

    info = cached_probe(sys.executable, import_tf=False).tf_build_info or {}
    if info.get("cuda_compute_capabilities") != TF221_LINUX:
        pytest.skip("this Python's TensorFlow is not the TF 2.21.0 Linux GPU wheel")
    code = doctor_command(_doctor_args(json=as_json), nvml=ReplayNvml.load("gtx970_linux"))
    out = capsys.readouterr().out
    assert code == 1
    if not as_json:
        assert "has no code for the NVIDIA GeForce GTX 970 (compute capability 5.2)" in out
        return
    [finding] = [f for f in json.loads(out)["findings"] if f["id"] == "gpu-arch-unsupported"]
    assert finding["severity"] == "error" and finding["subject"] == sys.executable
    assert ("GPU 0: NVIDIA GeForce GTX 970, compute capability 5.2; this build has code for "
            "sm_60, sm_70, sm_80, sm_89, compute_90 (compute capability 6.0 and up)"
            ) in finding["evidence"]
    commands = [s["command"] for s in finding["steps"] if s["command"]]
    assert commands and "tensorflow-cpu==2.21.*" in commands[0]


def test_doctor_is_quiet_about_gpus_the_build_covers(capsys) -> None:
    from core.doctor.command import doctor_command

    doctor_command(_doctor_args(), nvml=ReplayNvml.load("h200x2_linux"))
    ids = [f["id"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert "gpu-arch-unsupported" not in ids


@pytest.mark.parametrize(("gpu", "covered"), [
    (GpuInfo(0, "NVIDIA GeForce RTX 3090", compute_capability=(8, 6)), True),  # compute_80 PTX
    (GpuInfo(0, "NVIDIA GeForce GTX 970", compute_capability=(5, 2)), True),  # sm_50
    (GpuInfo(0, "NVIDIA GeForce GTX 680", compute_capability=(3, 0)), False),  # below sm_35
    (GpuInfo(0, "NVIDIA GeForce GTX 680"), True),  # capability unknown: nothing to say
])
def test_the_real_windows_tf210_build_against_gpus(gpu: GpuInfo, covered: bool) -> None:
    """The probe recorded on the Windows lane (TF 2.10.1's build_info) with an NVIDIA GPU. Its
    import output is the lane's (no driver there), so it is left out."""
    from core.doctor.machine import diagnose_machine

    data = json.loads((WINDOWS_DATA / "probe_tf210_healthy_no_gpu.json").read_text("utf-8"))
    probe = ProbeResult.from_json({**data["probe"], "tf_native_module": None,
                                   "import_attempted": True, "import_ok": True,
                                   "built_with_cuda": True, "gpus": [], "import_stderr": ""})
    assert probe.tf_build_info["cuda_compute_capabilities"] == TF210_WINDOWS
    report = GpuReport(GpuState.OK, "1 GPU", "591.86", "13.1", (gpu,))
    findings = diagnose_machine(report, [probe])
    arch = [f for f in findings if f.id == "gpu-arch-unsupported"]
    assert (arch == []) is covered
    if not covered:
        # TF ignores a GPU it has no code for: that, not a missing CUDA library, is the finding.
        assert "missing-cuda-runtime" not in [f.id for f in findings]
        assert "compute capability 3.0" in arch[0].title and "(compute capability 3.5 and up)" in \
            arch[0].evidence
        assert any("tensorflow-cpu==2.10.*" in (s.command or "") for s in arch[0].steps)


def test_the_cuda_the_user_says_is_installed_counts_as_the_texts(tmp_path: Path) -> None:
    """--cuda-version: a missing CUDA 11 runtime on a machine the user says has CUDA 12.2 is the
    wrong toolkit, not a missing one (without it, the text alone says "missing")."""
    f = tmp_path / "out.txt"
    f.write_text("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
                 "dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n")
    context = ("--explain", str(f), "--platform", "windows", "--tf-version", "2.10", "--json")
    alone = json.loads(_doctor(*context).stdout)["findings"]
    told = json.loads(_doctor(*context, "--cuda-version", "12.2").stdout)["findings"]
    assert alone[0]["id"] == "missing-cuda-runtime"
    assert told[0]["id"] == "cuda-version-mismatch" and "CUDA 12.2" in told[0]["evidence"]


@pytest.mark.parametrize("option", ["--tf-version", "--cuda-version"])
@pytest.mark.parametrize("value", ["abc", "2", "2.x", "12.2.1.9.9", "2.10; rm -rf /"])
def test_a_version_the_doctor_cannot_read_is_refused(option: str, value: str) -> None:
    """Before, --tf-version abc was silently ignored: the answer then came without the
    context the user meant to give."""
    run = _doctor("--explain", "-", option, value, stdin="ImportError: DLL load failed\n")
    assert run.returncode == 2 and run.stdout == ""
    assert f"{option}: " in run.stderr and "is not a version" in run.stderr
