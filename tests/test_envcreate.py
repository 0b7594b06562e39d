"""``tensordeck env create``: the plan for each kind of machine (GPU facts from recorded NVML
answers), and for real here: a tensorflow-cpu venv built from the package index, probed and
registered; the same without a reachable index fails cleanly; a cancel and Ctrl+C leave
nothing behind."""

from __future__ import annotations

import argparse
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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.doctor import kb
from core.envcreate.build import build
from core.envcreate.plan import (
    CUDA11_WHEELS,
    MachineFacts,
    Plan,
    Step,
    gather_facts,
    make_plan,
)
from core.envcreate.target import PROOF, check_target, claim, interrupted, marker, remove_env
from core.gpu import read_gpus
from core.gpu.info import GpuInfo
from core.interpreters.discover import discover_interpreters, user_interpreters
from tests.conftest import REPO, symlink_or_skip, tensordeck
from tests.nvml_replay import ReplayNvml

PY310 = ("C:\\Python310\\python.exe", (3, 10))
PY312 = ("C:\\Python312\\python.exe", (3, 12))


def _facts(recording: str, platform: str, pythons, conda: str | None = None) -> MachineFacts:
    """Facts with the GPUs and driver as NVML answered on a real machine."""
    report = read_gpus(ReplayNvml.load(recording), processes=False)
    return MachineFacts(platform, report.gpus,
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
    old_driver = MachineFacts("linux", (GpuInfo(0, "Tesla K80"),), (10, 2),
                              (("/usr/bin/python3", (3, 11)),))
    assert "older than every TensorFlow GPU release" in make_plan(old_driver, tmp_path / "e").why
    with pytest.raises(ValueError, match="no Python found here runs a TensorFlow release"):
        make_plan(MachineFacts("linux", pythons=(("/usr/bin/python2", (2, 7)),)))


def test_facts_come_from_nvml_and_the_pythons_themselves(tmp_path: Path) -> None:
    """Recorded NVML answers of an H200 machine, and this Python, probed for real."""
    facts = gather_facts([sys.executable], nvml=ReplayNvml.load("h200x2_linux"))
    assert [(g.name, g.compute_capability) for g in facts.gpus] == [("NVIDIA H200", (9, 0))] * 2
    assert facts.driver_cuda == (13, 0)
    assert facts.pythons == ((sys.executable, sys.version_info[:3]),)
    assert make_plan(facts, tmp_path / "e").variant == ("cpu" if sys.platform == "darwin"
                                                         else "gpu")


@pytest.mark.parametrize("recording", ["rtx3090_windows_wddm", "h200x2_linux"])
def test_the_recorded_gpus_are_covered_by_the_proposed_release(tmp_path: Path,
                                                              recording: str) -> None:
    """RTX 3090 (8.6) under TF 2.10.1's compute_80 PTX; H200 (9.0) under 2.21.0's compute_90."""
    platform = "windows" if "windows" in recording else "linux"
    plan = make_plan(_facts(recording, platform, [PY310]), tmp_path / "e")
    assert plan.variant == "gpu" and not any("compute capability" in n for n in plan.notes)
    assert "no code" not in plan.why


def test_a_gpu_the_proposed_release_has_no_code_for_gets_the_cpu_build(tmp_path: Path) -> None:
    """The GTX 970 (5.2, recorded from specs) on Linux: TF 2.21's wheel starts at 6.0 and no
    recorded Linux release goes lower. On Windows TF 2.10.1's wheel has sm_50: it stays GPU."""
    linux = make_plan(_facts("gtx970_linux", "linux", [PY310]), tmp_path / "e")
    assert linux.variant == "cpu" and linux.steps[1].argv[-1] == "tensorflow-cpu==2.21.*"
    assert ("TensorFlow 2.21's GPU build has no code for the NVIDIA GeForce GTX 970 (compute "
            "capability 5.2); it runs on compute capability 6.0 and up") in linux.why
    windows = make_plan(_facts("gtx970_linux", "windows", [PY310]), tmp_path / "e")
    assert (windows.variant, windows.tf) == ("gpu", "2.10")
    kepler = MachineFacts("windows", (GpuInfo(0, "NVIDIA GeForce GTX 680",
                                              compute_capability=(3, 0)),), (11, 4), (PY310,))
    plan = make_plan(kepler, tmp_path / "e")
    assert plan.variant == "cpu" and "(compute capability 3.0); it runs on compute capability " \
        "3.5 and up" in plan.why


def test_a_gpu_the_release_lacks_next_to_one_it_has_is_a_note(tmp_path: Path) -> None:
    h200, gtx970 = (read_gpus(ReplayNvml.load(r)).gpus[0] for r in ("h200x2_linux",
                                                                      "gtx970_linux"))
    plan = make_plan(MachineFacts("linux", (h200, gtx970), (13, 0), (PY310,)), tmp_path / "e")
    assert (plan.variant, plan.tf) == ("gpu", "2.21")
    assert any("no code for the NVIDIA GeForce GTX 970" in n and "will not use it" in n
               for n in plan.notes)


def test_a_release_whose_architectures_were_not_read_is_not_blocked(tmp_path: Path) -> None:
    """Driver CUDA 11.4: TF 2.14 (CUDA 11.8), whose wheel's build_info TensorDeck has not read."""
    facts = _facts("gtx970_linux", "linux", [PY310])
    plan = make_plan(MachineFacts("linux", facts.gpus, (11, 4), facts.pythons), tmp_path / "e")
    assert (plan.variant, plan.tf) == ("gpu", "2.14")
    assert any("TensorFlow 2.14's build has code for is unknown" in n for n in plan.notes)


def test_env_create_dry_run_says_it(capsys, tmp_path: Path) -> None:
    from core.envcreate.command import env_command

    args = argparse.Namespace(python=sys.executable, path=str(tmp_path / "e"), cpu=False,
                              dry_run=True, yes=False)
    assert env_command(args, nvml=ReplayNvml.load("gtx970_linux")) == 0
    out = capsys.readouterr().out
    if sys.platform.startswith("linux"):
        assert "has no code for the NVIDIA GeForce GTX 970 (compute capability 5.2)" in out
        assert "tensorflow-cpu==" in out


def _quick_plan(target: Path, code: str) -> Plan:
    """A plan of one real step (a Python child) instead of pip: builds stay in seconds."""
    return Plan(target, "venv", "cpu", "2.21", "test", (Step("step", (sys.executable, "-c",
                                                                      code)),), 0,
                target / "bin" / "python")


def test_cancel_kills_the_step_and_removes_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "env"
    code = (f"import pathlib, time; (pathlib.Path({str(target)!r}) / 'bin').mkdir(); "
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
    code = (f"import pathlib, sys; (pathlib.Path({str(target)!r}) / 'bin').mkdir(); "
            "print('ERROR: Could not install packages due to an OSError: [WinError 5] Access "
            "is denied'); sys.exit(1)")
    result = build(_quick_plan(target, code), lambda line: None, threading.Event())
    assert not result.ok and "exit status 1" in result.message
    assert result.findings[0].id == "pip-install-failed"
    assert not target.exists() and not marker(target).exists()


def _killed_build(target: Path) -> None:
    """What a build killed outright leaves: the folder it made, with its proof and a half-made
    env in it."""
    claim(target)
    (target / "lib" / "half").mkdir(parents=True)
    (target / "lib" / "half" / "made.py").write_text("x")


def test_an_interrupted_build_is_shown_in_the_plan_then_cleaned(tmp_path: Path) -> None:
    target = tmp_path / "env"
    _killed_build(target)
    check_target(target)  # the next build may take it
    plan = _quick_plan(target, "print('ok')")
    assert f"First: removes what an interrupted build left in {target}" in plan.describe()
    lines = []
    result = build(plan, lines.append, threading.Event(), register=False)
    assert lines[0] == f"Removing what an interrupted build left in {target}"
    assert not (target / "lib").exists() and result.probe is not None


def test_a_stale_marker_beside_the_folder_never_deletes_the_users_files(tmp_path: Path) -> None:
    """The marker of older releases sat beside the folder: a user's folder next to one is
    the user's, refused and left as it was."""
    target = tmp_path / "env"
    target.mkdir()
    (target / "thesis.tex").write_text("mine")
    (tmp_path / ".env.tensordeck-building").write_text("")
    plan = _quick_plan(target, "print('ok')")
    assert "removes" not in plan.describe()
    with pytest.raises(ValueError, match="already exists and is not empty"):
        build(plan, lambda line: None, threading.Event(), register=False)
    assert (target / "thesis.tex").read_text() == "mine"


_names = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\\\0:"),
                 min_size=1, max_size=12).filter(lambda n: n not in (".", ".."))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(st.tuples(_names, _names), min_size=1, max_size=6))
def test_generated_user_folders_are_never_touched(tmp_path_factory, files) -> None:
    """Any non-empty folder without the proof at its top (even one holding a file named like
    the proof deeper down) is refused; nothing in it or beside it changes."""
    root = tmp_path_factory.mktemp("user")
    target = root / "env"
    try:
        for folder, name in files:
            (target / folder).mkdir(parents=True, exist_ok=True)
            (target / folder / name).write_text(name, encoding="utf-8")
            (target / folder / PROOF).write_text("made")
    except OSError:
        return  # a name this file system cannot hold
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    assert not interrupted(target) and remove_env(target)  # nothing of a build: untouched
    with pytest.raises(ValueError, match="already exists and is not empty"):
        build(_quick_plan(target, "print('ok')"), lambda line: None, threading.Event(),
              register=False)
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == before


def test_removal_never_follows_a_link_out_of_the_env(tmp_path: Path) -> None:
    outside = tmp_path / "data"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    target = tmp_path / "env"
    _killed_build(target)
    symlink_or_skip(target / "lib" / "link", outside)
    assert remove_env(target) and not os.path.lexists(target)
    assert (outside / "keep.txt").read_text() == "mine"


def test_a_folder_taken_empty_stays_after_a_failed_build(tmp_path: Path) -> None:
    """An empty folder the user made is taken, not made: a failure empties it again but keeps it."""
    target = tmp_path / "env"
    target.mkdir()
    result = build(_quick_plan(target, "import sys; sys.exit(3)"), lambda line: None,
                   threading.Event(), register=False)
    assert not result.ok and f"what was built in {target} was removed" in result.message
    assert target.is_dir() and list(target.iterdir()) == []


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX signal sent to this process")
def test_a_second_ctrl_c_does_not_cut_the_removal_short(tmp_path: Path) -> None:
    """Ctrl+C again while what was built is being removed: the removal finishes (it would
    otherwise leave a half-removed env that the message calls removed)."""
    target = tmp_path / "env"
    _killed_build(target)
    for n in range(4000):
        (target / "lib" / f"m{n}.py").write_text("x")
    sent_during_removal = []

    def ctrl_c_midway() -> None:
        while len(os.listdir(target / "lib")) > 2000:
            time.sleep(0.0005)
        os.kill(os.getpid(), signal.SIGINT)
        sent_during_removal.append(marker(target).exists())

    thread = threading.Thread(target=ctrl_c_midway)
    thread.start()
    try:
        assert remove_env(target)
    finally:
        thread.join()
    assert sent_during_removal == [True] and not os.path.lexists(target)


@pytest.mark.parametrize("kind", ["file", "symlink", "under a file"])
def test_a_path_that_is_no_folder_is_one_line_exit_2(tmp_path: Path, kind: str) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("mine")
    path = {"file": file, "under a file": file / "env", "symlink": tmp_path / "link"}[kind]
    if kind == "symlink":
        (tmp_path / "real").mkdir()
        symlink_or_skip(path, tmp_path / "real")
    run = tensordeck("env", "create", "--cpu", "--yes", "--python", sys.executable,
                     "--path", str(path), input="")
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert ("is a file, not a folder" if kind != "symlink" else "is a symbolic link") in run.stderr
    assert file.read_text() == "mine"


def test_default_folder_is_new_or_one_an_interrupted_build_left() -> None:
    facts = MachineFacts("linux", pythons=((sys.executable, (3, 11)),))
    first = make_plan(facts).target
    assert first.name.startswith("tf") and first.name.endswith("-cpu")
    first.mkdir(parents=True)
    (first / "bin").mkdir()
    taken = make_plan(facts).target
    assert taken == first.with_name(first.name + "-2")
    claim(first)  # what a killed build leaves: the proof inside
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
    system_temp = tmp_path / "temp"  # what pip would fill and, cancelled, leave behind
    system_temp.mkdir()
    env = {**os.environ, **dict.fromkeys(("TMPDIR", "TEMP", "TMP"), str(system_temp))}
    proc = subprocess.Popen([sys.executable, "-m", "core", "env", "create", "--cpu", "--yes",
                             "--python", sys.executable, "--path", str(target)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
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
    assert list(tmp_path.iterdir()) == [system_temp] and list(system_temp.iterdir()) == []


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
