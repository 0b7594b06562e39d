"""``tensordeck env create`` inside WSL 2: the plan a Windows machine without a native GPU route
gets (its GPU through the Windows driver, the distribution's python3), and for real through
the wsl.exe stand-in (tests/wsl: its Ubuntu-22.04 is this machine, with this machine's
python3; Legacy is WSL 1; Minimal has no python3): ``--wsl`` builds a venv there through
``wsl.exe -e``, streams pip's output, probes and registers ``wsl://Ubuntu-22.04/...``; a failed
step, a cancel and Ctrl+C remove the folder inside the distribution, and nothing else is ever
removed there; a distribution that cannot make a venv is refused with its fix."""

from __future__ import annotations

import ast
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import PurePosixPath

import psutil
import pytest

from core.doctor import kb
from core.envcreate.build import build
from core.envcreate.plan import MachineFacts, Plan, Step, make_plan, make_wsl_plan
from core.envcreate.target import PROOF
from core.envcreate.wsl_facts import InWsl, WslFacts
from core.envcreate.wsl_folder import WslFolder
from core.gpu import read_gpus
from core.interpreters.discover import Interpreter, discover_interpreters, user_interpreters
from core.wsl.command import WslTarget, wsl_target
from core.wsl.distros import Distro
from core.wsl.refusals import NoDistribution, Wsl1Distribution
from tests.conftest import REPO, tensordeck, wait_none
from tests.nvml_replay import ReplayNvml

DISTRO = "Ubuntu-22.04"
UBUNTU = WslTarget("C:\\Windows\\System32\\wsl.exe", Distro(DISTRO, 2, True, "Running"))
HOME = "/home/me"
PY312 = ("C:\\Python312\\python.exe", (3, 12))
PY310 = ("C:\\Python310\\python.exe", (3, 10))


# --- the plan (pure): a Windows machine with an RTX 3090 (NVML as recorded there) -----------


def _ubuntu(**facts) -> WslFacts:
    return replace(WslFacts(UBUNTU, python=("/usr/bin/python3", (3, 10, 12)), home=HOME), **facts)


def _windows(wsl: WslFacts | None, pythons=(PY312,), conda: str | None = None) -> MachineFacts:
    report = read_gpus(ReplayNvml.load("rtx3090_windows_wddm"), processes=False)
    return MachineFacts("windows", report.gpus, kb.parse_version(report.cuda_driver_version),
                        tuple(pythons), conda, wsl)


def test_windows_without_a_native_gpu_route_builds_inside_the_default_distribution() -> None:
    """No conda and no Python 3.7-3.10 for TF 2.10: the newest TensorFlow the Windows driver
    runs, with its CUDA libraries, in a venv of the distribution's python3."""
    plan = make_plan(_windows(_ubuntu()))
    assert plan.buildable and plan.wsl == InWsl(UBUNTU) and plan.variant == "gpu"
    folder = f"{HOME}/tf-{plan.tf}"
    assert [step.argv for step in plan.steps] == [
        ("/usr/bin/python3", "-m", "venv", folder),
        (f"{folder}/bin/python", "-m", "pip", "install", "--disable-pip-version-check",
         f"tensorflow[and-cuda]=={plan.tf}.*")]
    assert plan.interpreter() == f"wsl://{DISTRO}{folder}/bin/python"
    text = plan.describe()
    assert text.startswith(f"In WSL 2 ({DISTRO}): TensorFlow {plan.tf} (CUDA ")
    assert f"Where: wsl://{DISTRO}{folder} (venv)" in text
    # The commands as the distribution's shell takes them, not as cmd.exe would.
    assert (f"  {folder}/bin/python -m pip install --disable-pip-version-check "
            f"'tensorflow[and-cuda]=={plan.tf}.*'") in text.splitlines()
    assert "/usr/lib/wsl/lib" in text and "only inside WSL 2" in text
    assert "First: removes" not in text


def test_the_cpu_build_inside_wsl_and_the_folders_taken_there() -> None:
    facts = _windows(_ubuntu(folders=(("tf-2.21-cpu", "exists"), ("tf-2.21-cpu-2", "interrupted"))))
    plan = make_wsl_plan(facts, cpu=True)
    assert (plan.variant, plan.tf, plan.wsl) == ("cpu", "2.21", InWsl(UBUNTU, left_over=True))
    folder = f"{HOME}/tf-2.21-cpu-2"  # the first is the user's; the second a killed build's
    assert plan.steps[0].argv == ("/usr/bin/python3", "-m", "venv", folder)
    assert plan.steps[1].argv[-1] == "tensorflow-cpu==2.21.*"
    text = plan.describe()
    assert text.startswith(f"In WSL 2 ({DISTRO}): TensorFlow 2.21, the CPU build, as asked")
    assert f"First: removes what an interrupted build left in wsl://{DISTRO}{folder}" in text
    assert "/usr/lib/wsl/lib" not in text  # no GPU in a CPU build


def test_a_native_gpu_route_or_the_cpu_build_stays_on_windows() -> None:
    for facts in (_windows(_ubuntu(), pythons=(PY312, PY310)),
                  _windows(_ubuntu(), conda="C:\\miniconda3\\Scripts\\conda.exe")):
        plan = make_plan(facts)
        assert plan.wsl is None and plan.tf == "2.10"
    assert make_plan(_windows(_ubuntu()), cpu=True).wsl is None


def test_without_a_distribution_to_build_in_the_steps_are_the_users() -> None:
    installs = make_plan(_windows(WslFacts(problem=str(NoDistribution()), installs=True)))
    assert not installs.buildable and any("wsl --install" in m for m in installs.manual)
    assert make_plan(_windows(None)).manual == installs.manual  # as before WSL was read
    legacy = WslFacts(UBUNTU, problem=str(Wsl1Distribution(DISTRO)))
    plan = make_plan(_windows(legacy))
    assert not plan.buildable and plan.manual[0] == str(Wsl1Distribution(DISTRO))
    with pytest.raises(ValueError, match="runs as WSL 1"):
        make_wsl_plan(_windows(legacy))


def test_a_python3_too_old_for_every_release_is_said_as_such() -> None:
    old = _ubuntu(python=("/usr/bin/python3", (3, 6, 9)))
    with pytest.raises(ValueError, match=f"python3 3.6 in {DISTRO} runs no TensorFlow release"):
        make_wsl_plan(_windows(old))


# --- the stand-in -------------------------------------------------------------------------


@pytest.fixture
def ubuntu(wsl_standin, monkeypatch) -> Iterator[str]:
    """The stand-in's wsl.exe in use; a new Linux folder for the test in Ubuntu-22.04's home,
    removed afterwards (whatever a failing test left there)."""
    wsl_standin.use(monkeypatch)
    folder = f"{wsl_standin.homes[DISTRO]}/envcreate-{uuid.uuid4().hex[:8]}"
    wsl_standin.local(folder).mkdir()
    yield folder
    shutil.rmtree(wsl_standin.local(folder), ignore_errors=True)


@pytest.fixture
def distro_pip(wsl_standin) -> Iterator:
    """``distro_pip(text)`` writes Ubuntu-22.04's user pip.conf (pip there reads the
    distribution's configuration, never this machine's); removed afterwards."""
    conf = wsl_standin.local(wsl_standin.homes[DISTRO]) / ".config" / "pip" / "pip.conf"

    def write(text: str) -> None:
        conf.parent.mkdir(parents=True, exist_ok=True)
        conf.write_text(text)

    yield write
    conf.unlink(missing_ok=True)


def _env_create(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return tensordeck("env", "create", *args, **kwargs)


def test_dry_run_plans_inside_the_distribution_and_makes_nothing(wsl_standin, ubuntu) -> None:
    home = wsl_standin.homes[DISTRO]
    run = _env_create("--wsl", "--dry-run")  # the default distribution: Ubuntu-22.04
    assert run.returncode == 0, run.stdout + run.stderr
    tf = run.stdout.split("TensorFlow ", 1)[1].split(",")[0]
    folder = f"{home}/tf-{tf}-cpu"  # no GPU here: the CPU build
    assert f"Where: wsl://{DISTRO}{folder} (venv)" in run.stdout
    # The distribution's python3 (the one its PATH finds), as its shell takes the command.
    assert any(line.startswith("  /") and line.endswith(f"/python3 -m venv {folder}")
               for line in run.stdout.splitlines()), run.stdout
    assert not any(p.name.startswith("tf-") for p in wsl_standin.local(home).iterdir())
    for path, where in ((f"{ubuntu}/new/env", f"{ubuntu}/new/env"),
                        ("~/" + ubuntu.rsplit("/", 1)[1] + "/env", f"{ubuntu}/env")):
        run = _env_create("--wsl", DISTRO, "--cpu", "--path", path, "--dry-run")
        assert run.returncode == 0 and f"Where: wsl://{DISTRO}{where} (venv)" in run.stdout
    assert list(wsl_standin.local(ubuntu).iterdir()) == [] and user_interpreters() == []


@pytest.mark.parametrize(("distro", "fix"), [
    ("Minimal", "'sudo apt install python3 python3-venv'"),
    ("Legacy", "wsl --set-version Legacy 2"),
    ("Fedora", "no WSL distribution is named Fedora"),
])
def test_a_distribution_that_cannot_make_a_venv_is_refused_with_its_fix(ubuntu, distro,
                                                                       fix) -> None:
    run = _env_create("--wsl", distro, "--yes", "--path", f"{ubuntu}/env")
    assert run.returncode == 2, run.stdout + run.stderr
    assert fix in run.stderr and run.stderr.count("\n") == 1 and run.stdout == ""


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script in the stand-in's Linux "
                    "side, naming a folder of this machine")
def test_a_python3_without_venv_is_refused_with_the_package_to_install(wsl_standin, ubuntu,
                                                                      tmp_path) -> None:
    """Debian and Ubuntu ship python3 without ensurepip (python3-venv): Minimal gets such a
    python3 (the real one, ensurepip hidden) for this test."""
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "sitecustomize.py").write_text("import sys\nsys.modules['ensurepip'] = None\n")
    wrapper = wsl_standin.state / "minimal-bin" / "python3"
    real = shutil.which("python3", path="/usr/bin:/bin")
    wrapper.write_text(f"#!/bin/sh\nPYTHONPATH={shlex.quote(str(hidden))} exec {real} \"$@\"\n")
    wrapper.chmod(0o755)
    try:
        run = _env_create("--wsl", "Minimal", "--yes", "--path", f"{ubuntu}/env")
    finally:
        wrapper.unlink()
    assert run.returncode == 2, run.stdout + run.stderr
    assert "cannot make a virtual environment" in run.stderr
    assert "run 'sudo apt install python3-venv' in Minimal" in run.stderr
    assert list(wsl_standin.local(ubuntu).iterdir()) == []


@pytest.mark.parametrize("scenario", ["no-distro", "not-installed"])
def test_without_a_distribution_wsl_is_refused_with_the_install(wsl_standin, monkeypatch,
                                                                scenario) -> None:
    wsl_standin.use(monkeypatch, scenario)
    run = _env_create("--wsl", "--dry-run")
    assert run.returncode == 2 and "wsl --install" in run.stderr, run.stdout + run.stderr


def test_folders_that_are_not_new_are_refused_and_kept(wsl_standin, ubuntu) -> None:
    local = wsl_standin.local(ubuntu)
    (local / "mine").mkdir()
    (local / "mine" / "thesis.tex").write_text("mine")
    (local / "notes.txt").write_text("mine")
    for path, words in ((f"{ubuntu}/mine", "already exists"),
                        (f"{ubuntu}/notes.txt", "is a file, not a folder"),
                        (f"{ubuntu}/notes.txt/env", "is inside a file"),
                        ("relative/env", "not an absolute path")):
        run = _env_create("--wsl", "--cpu", "--yes", "--path", path)
        assert run.returncode == 2 and words in run.stderr, (path, run.stdout + run.stderr)
    assert (local / "mine" / "thesis.tex").read_text() == "mine"
    assert (local / "notes.txt").read_text() == "mine"


def _quick_plan(folder: str, code: str) -> Plan:
    """A plan of one real step inside Ubuntu-22.04 (python3 there) instead of pip."""
    target = PurePosixPath(folder)
    return Plan(target, "venv", "cpu", "2.21", "test", (Step("step", ("python3", "-c", code)),),
                0, target / "bin" / "python", wsl=InWsl(wsl_target(DISTRO)))


def _alive(mark: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if any(mark in part for part in proc.info["cmdline"] or ()):
            found.append(proc)
    return found


def test_cancel_ends_the_step_inside_wsl_then_removes_the_folder(wsl_standin, ubuntu) -> None:
    folder, mark = f"{ubuntu}/env", f"step-{uuid.uuid4().hex}"
    code = (f"import os, time; os.mkdir({folder + '/bin'!r}); print('started', flush=True); "
            f"time.sleep(600)  # {mark}")
    cancel, seen = threading.Event(), []

    def on_line(line: str) -> None:
        seen.append(line)
        if line == "started":
            cancel.set()

    result = build(_quick_plan(folder, code), on_line, cancel)
    assert result.cancelled and not result.ok, seen
    assert result.message == f"Cancelled; wsl://{DISTRO}{folder} was removed."
    assert not wsl_standin.local(folder).exists() and user_interpreters() == []
    assert wait_none(lambda: _alive(mark), 10) == []  # ended there, not only wsl.exe here


def test_a_failed_step_inside_wsl_removes_the_folder_and_says_why(wsl_standin, ubuntu) -> None:
    folder = f"{ubuntu}/env"
    code = (f"import os, sys; os.mkdir({folder + '/bin'!r}); print('ERROR: Could not install "
            "packages due to an OSError: [Errno 28] No space left on device'); sys.exit(3)")
    lines: list[str] = []
    result = build(_quick_plan(folder, code), lines.append, threading.Event())
    assert not result.ok and "step failed (exit status 3)" in result.message, result.message
    assert f"wsl://{DISTRO}{folder} was removed; nothing was registered" in result.message
    assert lines[2:] == ["ERROR: Could not install packages due to an OSError: [Errno 28] "
                         "No space left on device"]  # streamed as it came
    assert not wsl_standin.local(folder).exists()


def test_an_interrupted_build_inside_wsl_is_removed_first(wsl_standin, ubuntu) -> None:
    folder = f"{ubuntu}/env"
    left = wsl_standin.local(folder)
    (left / "lib").mkdir(parents=True)
    (left / PROOF).write_text("made\n")
    (left / "lib" / "half.py").write_text("x")
    run = _env_create("--wsl", "--cpu", "--path", folder, "--dry-run")
    assert f"First: removes what an interrupted build left in wsl://{DISTRO}{folder}" in run.stdout
    lines: list[str] = []
    result = build(_quick_plan(folder, "print('ok')"), lines.append, threading.Event(),
                   register=False)
    assert lines[0] == f"Removing what an interrupted build left in wsl://{DISTRO}{folder}"
    # The step made no venv: its probe fails, and what this build made goes too.
    assert not result.ok and "does not import" in result.message and not left.exists()


def test_removal_inside_wsl_never_touches_a_folder_without_the_proof(wsl_standin,
                                                                    ubuntu) -> None:
    mine = wsl_standin.local(f"{ubuntu}/mine")
    (mine / "deep").mkdir(parents=True)
    (mine / "deep" / PROOF).write_text("made\n")  # deeper down does not count
    (mine / "thesis.tex").write_text("mine")
    WslFolder(_quick_plan(f"{ubuntu}/mine", "")).remove()
    assert (mine / "thesis.tex").read_text() == "mine" and (mine / "deep" / PROOF).exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_failing_pip_inside_wsl_removes_the_venv_there(wsl_standin, ubuntu,
                                                         distro_pip) -> None:
    distro_pip(f"[global]\nindex-url = http://127.0.0.1:{_closed_port()}/simple\n"
               "retries = 1\ntimeout = 5\n")
    target = f"{ubuntu}/env"
    run = _env_create("--wsl", "--cpu", "--yes", "--path", target, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "== Create the virtual environment" in run.stdout  # the venv was made, then pip
    assert "pip cannot reach the package index" in run.stdout, run.stdout
    assert f"wsl://{DISTRO}{target} was removed; nothing was registered" in run.stdout
    assert not wsl_standin.local(target).exists() and user_interpreters() == []


@pytest.mark.skipif(sys.platform == "win32", reason="Ctrl+C is a console event on Windows")
def test_ctrl_c_during_pip_inside_wsl_leaves_nothing(wsl_standin, ubuntu, distro_pip) -> None:
    """pip asks an index that never answers; Ctrl+C once it asked."""
    with socket.socket() as index:
        index.bind(("127.0.0.1", 0))
        index.listen(8)
        index.settimeout(300)
        distro_pip(f"[global]\nindex-url = http://127.0.0.1:{index.getsockname()[1]}/simple\n"
                   "retries = 0\ntimeout = 300\n")
        target = f"{ubuntu}/env"
        proc = subprocess.Popen([sys.executable, "-m", "core", "env", "create", "--wsl",
                                 "--cpu", "--yes", "--path", target], cwd=REPO, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            asked, _ = index.accept()  # pip, inside the distribution, at work
            asked.close()
            proc.send_signal(signal.SIGINT)
            out, _ = proc.communicate(timeout=120)
        finally:
            proc.kill()
    assert proc.returncode == 130, out
    assert f"Cancelled (Ctrl+C): wsl://{DISTRO}{target} was removed; nothing was registered" \
        in out
    assert not wsl_standin.local(target).exists() and user_interpreters() == []
    assert wait_none(lambda: _alive(target), 10) == []  # no pip left running there


def _pip_conf_of_this_machine() -> str:
    """This machine's pip configuration (its indexes, links, certificates, as ``pip config
    list`` shows them), and its cache, as a pip.conf for the distribution."""
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True,
                            text=True, check=True).stdout
    cache = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], capture_output=True,
                           text=True, check=False).stdout.strip()
    settings = {}
    for line in sorted(listed.splitlines(), key=lambda ln: ln.startswith(":env:")):  # env wins
        key, _, value = line.partition("=")
        section, _, name = key.rpartition(".")
        if section in ("global", "install", ":env:") and value:
            settings[name] = ast.literal_eval(value)
    if cache:
        settings["cache-dir"] = cache
    return "[global]\n" + "".join(f"{name} = {value}\n" for name, value in settings.items())


@pytest.mark.tf
def test_builds_probes_and_registers_a_tensorflow_venv_inside_wsl(wsl_standin, ubuntu,
                                                                  distro_pip) -> None:
    """The real build (~1 min): tensorflow-cpu from the package index pip is configured with,
    into a venv of the distribution's python3, probed there, registered as wsl://, listed."""
    distro_pip(_pip_conf_of_this_machine())
    target = f"{ubuntu}/tf-env"
    run = _env_create("--wsl", DISTRO, "--cpu", "--yes", "--path", target, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    out = run.stdout
    assert out.index("Download: about") < out.index("== Create the virtual environment")
    assert "Successfully installed" in out and "tensorflow-cpu-" in out  # pip's, streamed
    python = f"wsl://{DISTRO}{target}/bin/python"
    assert f"Built {python} and added to the training interpreters: TensorFlow 2." in out
    assert user_interpreters() == [python]
    assert not (wsl_standin.local(target) / PROOF).exists()
    assert not (wsl_standin.local(target) / ".tensordeck-tmp").exists()
    assert Interpreter(python, "user") in discover_interpreters(use_conda=False)
    # Found again by the search inside WSL too, it is listed once.
    found = [i.path for i in discover_interpreters(use_conda=False, wsl=True)]
    assert found.count(python) == 1


def test_environment_is_not_this_machines(wsl_standin, ubuntu, monkeypatch) -> None:
    """Nothing of this machine's environment reaches the steps there (WSLENV names nothing),
    and the builders' temporary folder is inside the environment."""
    monkeypatch.setenv("WSLENV", "SECRET_TOKEN")
    monkeypatch.setenv("SECRET_TOKEN", "do-not-pass")
    folder = f"{ubuntu}/env"
    code = ("import os; print('SEEN', os.environ.get('SECRET_TOKEN'), os.environ['TMPDIR'], "
            "os.environ.get('WSL_DISTRO_NAME'))")
    lines: list[str] = []
    build(_quick_plan(folder, code), lines.append, threading.Event(), register=False)
    assert f"SEEN None {folder}/.tensordeck-tmp {DISTRO}" in lines
    assert os.environ["WSLENV"] == "SECRET_TOKEN"  # this process's own, untouched

