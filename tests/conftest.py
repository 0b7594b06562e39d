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


def leftovers(run_dir: Path | str) -> list[psutil.Process]:
    """Processes (tasks or their children) still alive from the run in ``run_dir``."""
    run_dir = str(run_dir)
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get("TENSORDECK_RUN_DIR") == run_dir and proc.status() != "zombie":
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def wait_no_leftovers(run_dir: Path | str, timeout: float = 5.0) -> list[psutil.Process]:
    deadline = time.monotonic() + timeout
    while (alive := leftovers(run_dir)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


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


@pytest.fixture(autouse=True)
def _no_user_state(tmp_path_factory, monkeypatch):
    """Keep tests away from the real user's settings and caches."""
    home = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    # platformdirs on Windows reads the known folders, not XDG_*: its own override variables.
    monkeypatch.setenv("WIN_PD_OVERRIDE_APPDATA", str(home / "appdata"))
    monkeypatch.setenv("WIN_PD_OVERRIDE_LOCAL_APPDATA", str(home / "localappdata"))
    yield


if os.environ.get("QT_QPA_PLATFORM") is None:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
