"""The Machine view (GPU cards from recorded NVML answers, findings with Copy / Run fix) and
the History view (runs made by the real CLI)."""

from __future__ import annotations

import json
import os
import sys

import psutil
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel

from core.findings import Finding, FixStep
from core.gpu import read_gpus
from gui.views.machine import FindingCard, MachineView, fix_programs
from tests.conftest import tensordeck
from tests.gui_fixtures import wait_for_run
from tests.nvml_replay import ReplayNvml

pytest_plugins = ["tests.gui_fixtures"]


def test_gpu_cards_show_each_gpu_and_the_no_driver_state(qtbot, h200_nvml):
    view = MachineView(nvml=h200_nvml)
    qtbot.addWidget(view)
    view.show_gpus(read_gpus(h200_nvml, processes=False))
    assert sorted(view.gpu_cards) == [0, 1]
    text = view.gpu_cards[0].details.text()
    assert "MiB" in text and "°C" in text and "CUDA up to" in text
    view.show_gpus(read_gpus(ReplayNvml.load("driver_not_loaded"), processes=False))
    assert view.gpu_cards == {}
    texts = [label.text() for label in view.findChildren(QLabel)]
    assert "The NVIDIA driver is not running" in texts


def test_finding_card_copies_and_runs_a_fix_after_confirmation(qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    view = MachineView()
    qtbot.addWidget(view)
    view.show()
    code = "print('hello from the fix')"
    step = FixStep("Say hello", f'python -c "{code}"', "any",
                   argv=((sys.executable, "-c", code),))
    view.show_findings([Finding("demo", "warning", "A demo problem", "evidence line", (step,))])
    card = view.findChildren(FindingCard)[0]
    copy, run = [b for b in card.findChildren(type(view.refresh_button))]
    copy.click()
    assert QGuiApplication.clipboard().text() == step.command
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.StandardButton.No)
    run.click()
    assert view.fix_output.isHidden()  # declined: nothing ran
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.StandardButton.Yes)
    run.click()
    qtbot.waitUntil(lambda: "[exit code 0]" in view.fix_output.toPlainText(), timeout=10_000)
    assert "hello from the fix" in view.fix_output.toPlainText()


def test_fix_commands_for_another_system_cannot_be_run():
    programs = (("winget", "install", "x"),)
    assert fix_programs(FixStep("x", "winget install x", "powershell", programs), "linux") is None
    assert fix_programs(FixStep("x", "ls", "bash", (("ls",),)), "win32") is None
    assert fix_programs(FixStep("x", "dir", "cmd", (("where", "x"),)), "win32") == (("where", "x"),)
    assert fix_programs(FixStep("x", "conda activate x", "conda"), "linux") is None  # a terminal


def test_history_lists_cli_runs_and_reruns_one(qtbot, window, tmp_path, job):
    path = job("print('from history')", strategy="single", tasks=[{"role": "worker"}])
    assert tensordeck("--run", str(path), timeout=60).returncode == 0
    assert window.open_file(str(path))
    window.show_page("history")
    history = window.history
    qtbot.waitUntil(lambda: history.table.rowCount() == 1, timeout=10_000)
    assert history.table.item(0, 1).text() == "succeeded"
    qtbot.waitUntil(lambda: history.logs.count() == 1, timeout=10_000)
    assert "from history" in history.logs.widget(0).toPlainText()
    assert "changed since" not in history.details.text()
    with qtbot.waitSignal(history.rerun):
        qtbot.mouseClick(history.rerun_button, Qt.MouseButton.LeftButton)
    assert window.current_page() == "run"
    assert wait_for_run(qtbot, window.run_view).status.value == "succeeded"


def test_run_again_runs_that_runs_config_not_the_changed_file(qtbot, window, tmp_path, job):
    """The file changed since (other arguments): Run again runs what that run ran, each time
    in a new run folder beside the first, and says so; the open file is left as it is."""
    path = job("import sys\nprint('args', sys.argv[1:])", strategy="single",
               tasks=[{"role": "worker"}], args=["--lr", "0.1"])
    assert tensordeck("--run", str(path), timeout=60).returncode == 0
    (first,) = (tmp_path / "runs").iterdir()
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "args": ["--lr", "0.5"]}))
    assert window.open_file(str(path))
    history = window.history
    nav = window.nav
    qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton,
                     pos=nav.visualItemRect(nav.item(3)).center())  # History
    qtbot.waitUntil(lambda: history.table.rowCount() == 1, timeout=10_000)
    qtbot.waitUntil(lambda: "changed since this run" in history.details.text(), timeout=10_000)
    folders = {first}
    for _ in range(2):
        qtbot.mouseClick(history.rerun_button, Qt.MouseButton.LeftButton)
        assert window.current_page() == "run"
        result = wait_for_run(qtbot, window.run_view)
        assert result.status.value == "succeeded"
        run_dir = window.run_view.run_dir
        assert run_dir.parent == tmp_path / "runs" and run_dir not in folders
        folders.add(run_dir)
        log = (run_dir / "logs" / "worker-0.log").read_text()
        assert "args ['--lr', '0.1']" in log
        qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton,
                         pos=nav.visualItemRect(nav.item(3)).center())
        runs = len(folders)
        qtbot.waitUntil(lambda: history.table.rowCount() == runs, timeout=10_000)  # noqa: B023
        history.table.selectRow(history.table.rowCount() - 1)  # the first run, the oldest
    assert json.loads(path.read_text())["args"] == ["--lr", "0.5"]
    assert window.cluster.path == path and not window.cluster.dirty


def test_history_shows_a_garbage_summary_as_unreadable_and_a_live_run_as_running(
        qtbot, window, tmp_path, job):
    path = job("print('x')", strategy="single", tasks=[{"role": "worker"}])
    assert tensordeck("--run", str(path), timeout=60).returncode == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    me = {"pid": os.getpid(), "started_at": psutil.Process().create_time(), "host": None}
    summary.update(status="running", exit_code=None, ended_at=None, launcher=me)
    (run_dir / "summary.json").write_text(json.dumps(summary))  # as if this process ran it
    garbage = tmp_path / "runs" / "garbage"
    garbage.mkdir()
    (garbage / "summary.json").write_text('{"status": "running", "tasks": 7}')
    history = window.history
    history.set_folders([str(tmp_path)])
    history.refresh()
    qtbot.waitUntil(lambda: history.table.rowCount() == 2, timeout=10_000)
    shown = {history.table.item(row, 0).text(): history.table.item(row, 1).text()
             for row in range(2)}
    assert shown == {"t": "running", "garbage": "unreadable"}
    row = next(r for r in range(2) if history.table.item(r, 0).text() == "garbage")
    history.table.selectRow(row)
    assert "tasks: Input should be a valid list" in history.details.text()
    assert not history.rerun_button.isEnabled()

