"""The window with WSL 2 (through the wsl.exe stand-in, tests/wsl): the Machine view finds the
Python inside the distribution and probes it there, "Use for this job" makes it the job's
interpreter, and Start trains inside the distribution, as a user does it with clicks."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from gui.views.machine import InterpreterCard
from tests.gui_fixtures import click_when_shown, wait_for_run

pytest_plugins = ["tests.gui_fixtures"]

DISTRO = "Ubuntu-22.04"
SHOW = ("import os\nprint('inside', os.environ.get('WSL_DISTRO_NAME'), "
        "os.environ['TENSORDECK_TASK'], flush=True)\n")


def test_a_python_inside_wsl_is_found_chosen_and_trains_from_the_window(
        qtbot, window, tmp_path, monkeypatch, wsl_standin):
    wsl_standin.use(monkeypatch)
    python = f"wsl://{DISTRO}{wsl_standin.homes[DISTRO]}/tf/bin/python"
    (tmp_path / "show.py").write_text(SHOW)
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"name": "wsl", "strategy": "single", "script": "show.py"}))
    assert window.open_file(str(job))

    window.show_page("machine")
    view = window.machine
    qtbot.mouseClick(view.refresh_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.checking, timeout=240_000)
    cards = {c.path: c for c in view.findChildren(InterpreterCard)}
    assert python in cards, sorted(cards)
    card = cards[python]
    assert "TensorFlow" in card.summary.text(), card.summary.text()  # probed inside WSL
    click_when_shown(qtbot, card.use_button)
    assert window.current_page() == "cluster"
    assert window.cluster.python.currentText() == python

    assert window.cluster.dirty  # an edit: Start asks to save it, the user says Save
    seen: list[str] = []

    def save_it(_parent, _title, text, *_buttons):
        seen.append(text)
        return QMessageBox.StandardButton.Save

    monkeypatch.setattr(QMessageBox, "question", save_it)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert seen and "Save your changes" in seen[0]
    assert window.current_page() == "run"
    result = wait_for_run(qtbot, window.run_view, timeout_ms=240_000)
    assert result.status.value == "succeeded"
    assert json.loads(job.read_text())["python"] == python
    [run_dir] = (tmp_path / "runs").iterdir()
    assert f"inside {DISTRO} worker:0" in (run_dir / "logs" / "worker-0.log").read_text()
