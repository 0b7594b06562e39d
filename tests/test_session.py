"""One run path (core.session): the window (Start, F5, History's "Run again") and the command
line refuse the same runs, with the same reasons, and a refused run leaves nothing behind."""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from core.config import ConfigError
from core.ports import port_problem
from core.session import DoctorRefused, RunSession
from core.topology import plan_run
from tests.conftest import REPO, tensordeck

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt

from tests.gui_fixtures import wait_for_run

pytest_plugins = ["tests.gui_fixtures"]

needs_tf = pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None,
    reason="the doctor's TF1 check needs TensorFlow 2 installed in the test interpreter",
)

#: TF1 API that TF 2 removed: the doctor calls it an error (tf1-api-on-tf2). The branch is
#: never taken, so with --no-doctor the task runs (and shows that only the gate refused it).
TF1 = """import sys

if "--graph" in sys.argv:
    import tensorflow as tf

    tf.Session()
print("ran", flush=True)
"""
#: Python 3.12 syntax (PEP 695): this launcher (3.11) cannot compile it.
NEWER_SYNTAX = "type Vector = list[float]\nprint('ran')\n"


def older_launcher() -> tuple[int, int]:
    """A launcher one minor version older than this Python (the tasks' here), whichever it is."""
    return sys.version_info[0], sys.version_info[1] - 1


def write_job(folder: Path, script: str, **config) -> Path:
    (folder / "task.py").write_text(script)
    data = {"name": "refused", "strategy": "single", "script": "task.py", **config}
    path = folder / "job.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def warnings_shown(monkeypatch) -> list[str]:
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: shown.append(args[2]))
    return shown


@needs_tf
def test_the_window_and_the_cli_refuse_the_same_doctor_error(
    qtbot, window, tmp_path, warnings_shown
):
    config = write_job(tmp_path, TF1)
    assert window.open_file(str(config))
    view = window.run_view
    starts = {
        "Start button": lambda: qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton),
        "F5": lambda: qtbot.keyClick(window, Qt.Key.Key_F5),
        # History's Run again: a config file and a new run folder (see core.history).
        "Run again": lambda: window.history.rerun.emit(str(config),
                                                       str(tmp_path / "runs" / "again")),
    }
    for how, start in starts.items():
        warnings_shown.clear()
        start()
        assert wait_for_run(qtbot, view) is None, how
        assert len(warnings_shown) == 1, how
        assert "tf1-api-on-tf2" in warnings_shown[0] and "tf.Session" in warnings_shown[0], how
        # The reason stays in the Run view's log once the message is closed.
        assert "tf1-api-on-tf2" in view.logs.combined.toPlainText(), how
        assert view.status.text() == "failed" and view.start_button.isEnabled(), how
        assert not (tmp_path / "runs").exists(), how

    cli = tensordeck("--run", str(config))
    assert cli.returncode == 2
    assert "tf1-api-on-tf2" in cli.stderr and "tf.Session" in cli.stderr
    assert "nothing was started: fix the errors above, or pass --no-doctor" in cli.stderr
    assert cli.stdout == "" and not (tmp_path / "runs").exists()
    assert tensordeck("validate", str(config)).returncode == 2
    started = tensordeck("--run", str(config), "--no-doctor")
    assert started.returncode == 0 and "ran" in started.stdout  # only the gate refused it


@needs_tf
def test_the_session_raises_typed_refusals_and_releases_the_ports(tmp_path):
    config = write_job(tmp_path, TF1, strategy="multi_worker_mirrored",
                       tasks=[{"role": "worker", "count": 2}])
    session = RunSession(config)
    with pytest.raises(DoctorRefused) as refused:
        session.open(lambda event: None)
    assert [f.id for f in refused.value.findings] == ["tf1-api-on-tf2"]
    assert "tf.Session" in refused.value.findings[0].evidence
    assert session.run is None and not (tmp_path / "runs").exists()
    plan = session.plan
    assert plan is not None and all(t.port for t in plan.tasks)
    # Released: a refused run holds no port (a held one fails the same bind test).
    assert [port_problem(t.port) for t in plan.tasks] == [None, None]
    skipped = RunSession(config, doctor=False)
    assert skipped.check() == []  # --no-doctor: no gate


def test_a_syntax_error_is_refused_before_anything_starts(qtbot, window, tmp_path,
                                                          warnings_shown):
    config = write_job(tmp_path, "print('one')\ndef broken(:\n    pass\n")
    cli = tensordeck("--run", str(config), "--no-doctor")
    assert cli.returncode == 2, cli.stdout + cli.stderr
    assert f"script: {tmp_path / 'task.py'}:2: invalid syntax" in cli.stderr
    assert "tensordeck: nothing was started." in cli.stderr
    assert tensordeck("validate", str(config)).returncode == 2
    window.run_view.start(config)
    assert wait_for_run(qtbot, window.run_view) is None
    assert f"{tmp_path / 'task.py'}:2: invalid syntax" in warnings_shown[0]
    assert not (tmp_path / "runs").exists()


def test_syntax_this_python_lacks_is_no_error_for_a_newer_task_python(tmp_path, monkeypatch):
    """The launcher compiles the script: its refusal holds only for a task Python that is not
    newer. A launcher older than the task's interpreter (one minor version older here, in this
    process: the task runs this same Python) leaves it to the doctor's warning."""
    config = write_job(tmp_path, NEWER_SYNTAX)
    cfg = json.loads(config.read_text())
    from core.config import parse_config

    with pytest.raises(ConfigError, match=r"task.py:1: invalid syntax"):
        plan_run(parse_config(cfg), config, probe_python=True)
    monkeypatch.setattr("core.local_checks.launcher_version", older_launcher)
    plan = plan_run(parse_config(cfg), config, probe_python=True)
    plan.release_ports()


def test_the_window_shows_the_doctors_warnings_and_runs(qtbot, window, tmp_path, monkeypatch):
    """A warning does not refuse the run; the Run view's log shows it."""
    monkeypatch.setattr("core.local_checks.launcher_version", older_launcher)  # see above
    config = write_job(tmp_path, NEWER_SYNTAX)
    window.show_page("run")
    window.run_view.start(config)
    result = wait_for_run(qtbot, window.run_view)
    assert result is not None and result.status.value == "failed"  # 3.11 cannot run it
    log = window.run_view.logs.combined.toPlainText()
    assert "script-not-parsed" in log and "task.py:1" in log
    assert log.index("script-not-parsed") < log.index("started (pid")


def test_planning_never_imports_remote():
    """core.topology builds plans only; acting on nodes is core.remote's (see core.session)."""
    tree = ast.parse((REPO / "core" / "topology.py").read_text(encoding="utf-8"))
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    } | {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
         for alias in node.names}
    assert not [name for name in imported if name and name.startswith("core.remote")]
    loaded = tensordeck_modules("validate", "resources/examples/quickstart.json")
    assert not {"core.remote.prepare", "core.remote.connect", "asyncssh"} & loaded


def tensordeck_modules(*args: str) -> set[str]:
    """The modules a CLI command loaded (a local-only config: no node, so no SSH)."""
    import subprocess

    code = ("import sys\nfrom core.cli import main\nmain(sys.argv[1:])\n"
            "print(' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         cwd=REPO).stdout.splitlines()[-1]
    return set(out.split())


@pytest.mark.skipif(sys.platform == "win32", reason="the slow interpreter is a shell script")
def test_stop_while_the_window_plans_starts_nothing(qtbot, window, tmp_path):
    """Stop pressed while the interpreter is still being proven (a slow one here): the run
    never opens, the view says so, and no run folder is made."""
    slow = tmp_path / "slow-python"
    slow.write_text(f'#!/bin/sh\nsleep 3\nexec "{sys.executable}" "$@"\n')
    slow.chmod(0o755)
    config = write_job(tmp_path, "print('ran')\n", python=str(slow))
    view = window.run_view
    window.show_page("run")
    view.start(config)
    qtbot.waitUntil(view.stop_button.isEnabled, timeout=5_000)
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    assert wait_for_run(qtbot, view) is None
    assert view.reason.text() == "Stopped before the run started. Nothing ran."
    assert not (tmp_path / "runs").exists()
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)  # once more: nothing to stop
