"""Shared fixtures: run the real ``tensordeck`` CLI, write job files, find leftover processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "resources" / "examples"


def under_wine() -> bool:
    """This Windows is Wine (the Windows lane): where Wine lacks what Windows has, tests say so."""
    if sys.platform != "win32":
        return False
    import ctypes

    return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")


def symlink_or_skip(link: Path, target: Path) -> None:
    """``link`` made a symbolic link to the folder ``target``, or the test skipped where this
    system makes none: Windows without developer mode refuses, and Wine's CreateSymbolicLinkW
    reports success and makes nothing."""
    try:
        link.symlink_to(target, target_is_directory=True)
    except OSError:
        pytest.skip("no symbolic links for this user (Windows without developer mode)")
    if not link.is_symlink():
        pytest.skip("this system said it made a symbolic link, yet there is none (Wine)")


def installed_tf_version() -> str | None:
    """The TensorFlow this interpreter (the one the tests' jobs run) has installed, read in this
    process. A probe is a child process, which can crash under Wine: what a test checks must
    not depend on that."""
    from importlib import metadata

    from core.interpreters.probe import TF_DISTRIBUTIONS

    for name in TF_DISTRIBUTIONS:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def tensordeck(*args: str, timeout: float = 240, **kwargs) -> subprocess.CompletedProcess:
    """Run the CLI as a user would, in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "core", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=kwargs.pop("cwd", REPO),
        **kwargs,
    )


def processes_with(environ_matches) -> list[psutil.Process]:
    """Live processes (no zombies) whose environment ``environ_matches`` (a predicate)."""
    found = []
    for proc in psutil.process_iter():
        try:
            if environ_matches(proc.environ()) and proc.status() != "zombie":
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def wait_none(find, timeout: float) -> list:
    """Call ``find`` until it finds nothing or ``timeout`` passed; what it found last."""
    deadline = time.monotonic() + timeout
    while (alive := find()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def leftovers(run_dir: Path | str) -> list[psutil.Process]:
    """Processes (tasks or their children) still alive from the run in ``run_dir``."""
    return processes_with(lambda env: env.get("TENSORDECK_RUN_DIR") == str(run_dir))


def wait_no_leftovers(run_dir: Path | str, timeout: float = 5.0) -> list[psutil.Process]:
    return wait_none(lambda: leftovers(run_dir), timeout)


@pytest.fixture
def job(tmp_path: Path):
    """``job(script, **config)`` writes task.py and job.json into tmp_path; returns job.json."""

    def make(script: str, **config) -> Path:
        (tmp_path / "task.py").write_text(script)
        data = {
            "name": "t",
            "strategy": "between_graph",
            "script": "task.py",
            "tasks": [{"role": "ps"}, {"role": "worker", "count": 2}],
            "stop_grace_seconds": 3,
            **config,
        }
        path = tmp_path / "job.json"
        path.write_text(json.dumps(data))
        return path

    return make


def read_summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def only_run_dir(config_path: Path) -> Path:
    runs = list((config_path.parent / "runs").iterdir())
    assert len(runs) == 1, runs
    return runs[0]


@pytest.fixture(scope="session")
def slurm(tmp_path_factory):
    """A real one-machine Slurm cluster (tests/slurm.py), shared by the Slurm test files."""
    from tests.slurm import session_cluster

    yield from session_cluster(tmp_path_factory)


@pytest.fixture(scope="session")
def slurm_gpus(tmp_path_factory):
    """A second cluster, whose node has two GPUs (empty files that Slurm hands out)."""
    from tests.slurm import session_cluster

    yield from session_cluster(tmp_path_factory, gpus=2)


@pytest.fixture(scope="session")
def wsl_standin(tmp_path_factory):
    """The wsl.exe stand-in and its Linux server (tests/wsl/fixtures.py), shared by the WSL
    test files: ``.use(monkeypatch, scenario)`` puts it first on PATH."""
    from tests.wsl.fixtures import session_standin

    yield from session_standin(tmp_path_factory)


def user_state_env(home: Path) -> dict[str, str]:
    """The variables that put the user's settings, caches, data and documents under ``home``
    (for the tests' own children that outlive a test's monkeypatch: module fixtures)."""
    return {
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_DOCUMENTS_DIR": str(home / "documents"),
        # platformdirs on Windows reads the known folders, not XDG_*: its own override variables.
        "WIN_PD_OVERRIDE_APPDATA": str(home / "appdata"),
        "WIN_PD_OVERRIDE_LOCAL_APPDATA": str(home / "localappdata"),
        "WIN_PD_OVERRIDE_PERSONAL": str(home / "documents"),
    }


@pytest.fixture(autouse=True)
def _no_user_state(tmp_path_factory, monkeypatch):
    """Keep tests away from the real user's settings and caches."""
    for name, value in user_state_env(tmp_path_factory.mktemp("xdg")).items():
        monkeypatch.setenv(name, value)
    yield


if os.environ.get("QT_QPA_PLATFORM") is None:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
