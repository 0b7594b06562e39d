"""``tensordeck env create``: the plan for each kind of machine (GPU facts from recorded NVML
answers), and for real here: a tensorflow-cpu venv built from the package index, probed and
registered; the same without a reachable index fails cleanly; a cancel and Ctrl+C leave
nothing behind."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from core.doctor import kb
from core.envcreate.build import build, check_target, marker
from core.envcreate.plan import (
    CUDA11_WHEELS,
    MachineFacts,
    Plan,
    Step,
    gather_facts,
    make_plan,
)
from core.gpu import read_gpus
from core.interpreters.discover import discover_interpreters, user_interpreters
from tests.conftest import REPO, tensordeck
from tests.nvml_replay import ReplayNvml

PY310 = ("C:\\Python310\\python.exe", (3, 10))
PY312 = ("C:\\Python312\\python.exe", (3, 12))


def _facts(recording: str, platform: str, pythons, conda: str | None = None) -> MachineFacts:
    """Facts with the GPUs and driver as NVML answered on a real machine."""
    report = read_gpus(ReplayNvml.load(recording), processes=False)
    return MachineFacts(platform, tuple(g.name for g in report.gpus),
                        kb.parse_version(report.cuda_driver_version), tuple(pythons), conda)


def _argv(plan: Plan) -> list[str]:
    return [" ".join(step.argv) for step in plan.steps]


def test_windows_gpu_with_conda_is_tf210_with_cuda_112_in_a_conda_env(tmp_path: Path) -> None:
    conda = "C:\\Users\\me\\miniconda3\\Scripts\\conda.exe"
    plan = make_plan(_facts("rtx3090_windows_wddm", "windows", [PY312], conda), tmp_path / "e")
    assert (plan.kind, plan.variant, plan.tf) == ("conda", "gpu", "2.10")
    commands = _argv(plan)
    assert "python=3.10" in commands[0]
    assert "cudatoolkit=11.2 cudnn=8.1.0" in commands[1]
    assert commands[2].endswith("pip install --disable-pip-version-check tensorflow==2.10.* "
                                "numpy<2")
    assert plan.python == tmp_path / "e" / "python.exe" and plan.download_mb > 1000


def test_windows_gpu_without_conda_uses_the_cuda11_pip_wheels(tmp_path: Path) -> None:
    plan = make_plan(_facts("rtx3090_windows_wddm", "windows", [PY312, PY310]), tmp_path / "e")
    assert (plan.kind, plan.tf) == ("venv", "2.10")
    assert plan.steps[0].argv[0] == PY310[0]  # TF 2.10 runs Python 3.7-3.10 only
    assert all(w in plan.steps[-1].argv for w in CUDA11_WHEELS)
    assert "nvidia-cuda-runtime-cu11" in CUDA11_WHEELS and "nvidia-cudnn-cu11==8.9.*" in \
        CUDA11_WHEELS
    assert any("confirmed only once a GPU run works" in n for n in plan.notes)


def test_windows_gpu_without_conda_or_python310_is_the_wsl_route(tmp_path: Path) -> None:
    plan = make_plan(_facts("rtx3090_windows_wddm", "windows", [PY312]), tmp_path / "e")
    assert not plan.buildable and plan.steps == ()
    assert any("wsl --install" in m for m in plan.manual)


@pytest.mark.parametrize(("driver_cuda", "tf"), [
    (None, "2.21"),  # as recorded: driver 580.95.05, CUDA 13.0 (it runs CUDA 12 runtimes)
    ("12.4", "2.21"), ("11.4", "2.14")])
def test_linux_gpu_is_the_newest_release_the_driver_runs(tmp_path: Path, driver_cuda: str | None,
                                                         tf: str) -> None:
    facts = _facts("h200x2_linux", "linux", [("/usr/bin/python3.11", (3, 11))])
    facts = MachineFacts(facts.platform, facts.gpus,
                         kb.parse_version(driver_cuda) if driver_cuda else facts.driver_cuda,
                         facts.pythons)
    plan = make_plan(facts, tmp_path / "e")
    assert (plan.variant, plan.tf) == ("gpu", tf)
    assert f"tensorflow[and-cuda]=={tf}.*" in plan.steps[1].argv


def test_no_usable_gpu_says_so_and_offers_the_cpu_build(tmp_path: Path) -> None:
    for recording in ("no_gpu", "driver_not_loaded"):
        plan = make_plan(_facts(recording, "linux", [("/usr/bin/python3", (3, 11))]),
                         tmp_path / "e")
        assert plan.variant == "cpu" and "no usable NVIDIA GPU" in plan.why
        assert plan.steps[1].argv[-1] == f"tensorflow-cpu=={plan.tf}.*"
    old_driver = MachineFacts("linux", ("Tesla K80",), (10, 2), (("/usr/bin/python3", (3, 11)),))
    assert "older than every TensorFlow GPU release" in make_plan(old_driver, tmp_path / "e").why
    with pytest.raises(ValueError, match="no Python found here runs a TensorFlow release"):
        make_plan(MachineFacts("linux", pythons=(("/usr/bin/python2", (2, 7)),)))


def test_facts_come_from_nvml_and_the_pythons_themselves(tmp_path: Path) -> None:
    """Recorded NVML answers of an H200 machine, and this Python, probed for real."""
    facts = gather_facts([sys.executable], nvml=ReplayNvml.load("h200x2_linux"))
    assert facts.gpus == ("NVIDIA H200", "NVIDIA H200") and facts.driver_cuda == (13, 0)
    assert facts.pythons == ((sys.executable, sys.version_info[:3]),)
    assert make_plan(facts, tmp_path / "e").variant == ("cpu" if sys.platform == "darwin"
                                                         else "gpu")


def _quick_plan(target: Path, code: str) -> Plan:
    """A plan of one real step (a Python child) instead of pip: builds stay in seconds."""
    return Plan(target, "venv", "cpu", "2.21", "test", (Step("step", (sys.executable, "-c",
                                                                      code)),), 0,
                target / "bin" / "python")


def test_cancel_kills_the_step_and_removes_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "env"
    code = (f"import pathlib, time; pathlib.Path({str(target)!r}).mkdir(); "
            "print('started', flush=True); time.sleep(120)")
    cancel = threading.Event()
    seen = []

    def on_line(line: str) -> None:
        seen.append(line)
        if line == "started":
            cancel.set()

    result = build(_quick_plan(target, code), on_line, cancel)
    assert result.cancelled and not result.ok
    assert not target.exists() and not marker(target).exists()
    assert user_interpreters() == []


def test_failed_step_removes_the_folder_and_says_why(tmp_path: Path) -> None:
    target = tmp_path / "env"
    code = (f"import pathlib, sys; pathlib.Path({str(target)!r}).mkdir(); "
            "print('ERROR: Could not install packages due to an OSError: [WinError 5] Access "
            "is denied'); sys.exit(1)")
    result = build(_quick_plan(target, code), lambda line: None, threading.Event())
    assert not result.ok and "exit status 1" in result.message
    assert result.findings[0].id == "pip-install-failed"
    assert not target.exists() and not marker(target).exists()


def test_an_interrupted_build_is_cleaned_but_user_files_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "env"
    target.mkdir()
    (target / "half-made").write_text("x")
    with pytest.raises(ValueError, match="already exists and is not empty"):
        check_target(target)
    marker(target).write_text("")  # what a killed build leaves
    lines = []
    build(_quick_plan(target, "print('ok')"), lines.append, threading.Event(), register=False)
    assert lines[0].startswith("Removing what an interrupted build left")
    assert not (target / "half-made").exists()


def test_default_folder_is_new_or_one_an_interrupted_build_left() -> None:
    facts = MachineFacts("linux", pythons=((sys.executable, (3, 11)),))
    first = make_plan(facts).target
    assert first.name.startswith("tf") and first.name.endswith("-cpu")
    first.mkdir(parents=True)
    (first / "bin").mkdir()
    taken = make_plan(facts).target
    assert taken == first.with_name(first.name + "-2")
    marker(first).write_text("")
    assert make_plan(facts).target == first


def test_bad_usage_exits_2(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file").write_text("mine")
    for args, message in (
            (["--path", str(tmp_path / "taken")], "already exists and is not empty"),
            (["--python", str(tmp_path / "nope")], "no such file"),
            (["--cpu", "--python", sys.executable, "--path", str(tmp_path / "new")],
             "add --yes to build without asking")):
        run = tensordeck("env", "create", *args, input="")
        assert run.returncode == 2, run.stdout + run.stderr
        assert message in run.stderr and run.stderr.count("\n") == 1
    assert (tmp_path / "taken" / "file").read_text() == "mine" and not (tmp_path / "new").exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _offline_env() -> dict[str, str]:
    """pip with only an index nobody listens on (no config files, links or extra indexes)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_RETRIES="1", PIP_DEFAULT_TIMEOUT="5",
               PIP_INDEX_URL=f"http://127.0.0.1:{_closed_port()}/simple")
    return env


def test_without_the_package_index_it_fails_cleanly(tmp_path: Path) -> None:
    pytest.importorskip("venv", reason="this Python has no venv module (the embeddable build)")
    target = tmp_path / "env"
    run = tensordeck("env", "create", "--cpu", "--yes", "--python", sys.executable,
                     "--path", str(target), env=_offline_env())
    assert run.returncode == 1, run.stdout + run.stderr
    assert "pip cannot reach the package index" in run.stdout, run.stdout
    assert f"{target} was removed; nothing was registered" in run.stdout
    assert not target.exists() and not marker(target).exists() and user_interpreters() == []


@pytest.mark.skipif(sys.platform == "win32", reason="Ctrl+C is a console event on Windows")
def test_ctrl_c_leaves_nothing_half_made(tmp_path: Path) -> None:
    target = tmp_path / "env"
    proc = subprocess.Popen([sys.executable, "-m", "core", "env", "create", "--cpu", "--yes",
                             "--python", sys.executable, "--path", str(target)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in proc.stdout:  # wait until pip is at work inside the new venv
        lines.append(line)
        if line.startswith("$ ") and "pip install" in line:
            break
    time.sleep(1)  # let pip start (the signal is what is tested, not its timing)
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, "".join(lines) + rest
    assert "Cancelled (Ctrl+C)" in rest
    assert not target.exists() and not marker(target).exists() and user_interpreters() == []


@pytest.mark.tf
def test_builds_probes_and_registers_a_tensorflow_venv(tmp_path: Path) -> None:
    """The one real build of the suite (~1 min): from the package index pip is configured with,
    through the CLI, to an interpreter the doctor and discovery then know."""
    pytest.importorskip("venv", reason="this Python has no venv module (the embeddable build)")
    target = tmp_path / "tf-env"
    run = tensordeck("env", "create", "--cpu", "--yes", "--python", sys.executable, "--path",
                     str(target), timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    out = run.stdout
    # The plan first (commands, size), then the streamed output of each command.
    assert out.index("Download: about") < out.index("== Create the virtual environment")
    assert "Successfully installed" in out and "tensorflow-cpu-" in out
    python = str(target / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python"))
    assert f"Built {python} and added to the training interpreters: TensorFlow 2." in out
    assert user_interpreters() == [python] and not marker(target).exists()
    assert python in [i.path for i in discover_interpreters(use_conda=False)]
    # The doctor reads it like any other interpreter: it imports, one TF distribution.
    doctor = tensordeck("doctor", "--python", python, "--json")
    data = json.loads(doctor.stdout)
    [interp] = data["interpreters"]
    assert interp["import_ok"] and interp["verdict"] == "cpu-build", interp
    assert "mixed-tf-packages" not in [f["id"] for f in data["findings"]]
