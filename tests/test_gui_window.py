"""The main window as a whole: the language menu, the size on a small or scaled screen, and
Start (F5) with unsaved edits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from tests.conftest import REPO
from tests.gui_fixtures import answer, retype, wait_for_run

pytest_plugins = ["tests.gui_fixtures"]

REAL_QUESTION = QMessageBox.question  # before the autouse fixture replaces it


def test_one_language_is_ticked_and_a_switch_offers_the_restart(qtbot, window, settings,
                                                                 tmp_path, monkeypatch):
    monkeypatch.setattr(QMessageBox, "question", REAL_QUESTION)
    restarted = tmp_path / "restarted"
    window.restart_command = [sys.executable, "-c",
                              f"import pathlib; pathlib.Path({str(restarted)!r}).touch()"]
    actions = window.language_menu.actions()
    assert [a.isChecked() for a in actions] == [True, False, False]  # the system's
    seen: list[str] = []
    answer(QMessageBox.StandardButton.No, seen)
    actions[2].trigger()  # 简体中文, later
    assert [a.isChecked() for a in actions] == [False, False, True]
    assert settings.language == "zh_CN" and seen and "Restart" in seen[0]
    assert window.isVisible() and not restarted.exists()
    actions[2].trigger()  # the language already chosen: nothing to ask
    assert len(seen) == 1
    answer(QMessageBox.StandardButton.Yes, seen)
    actions[1].trigger()  # English, now
    assert [a.isChecked() for a in actions] == [False, True, False]
    assert settings.language == "en" and len(seen) == 2
    qtbot.waitUntil(restarted.exists, timeout=30_000)
    assert not window.isVisible()


FIT_SCRIPT = textwrap.dedent("""
    import json, sys
    from PySide6.QtCore import QSettings
    from gui.app import make_app
    from gui.settings import Settings
    app = make_app()
    from gui.main_window import MainWindow
    window = MainWindow(Settings(QSettings(sys.argv[1], QSettings.Format.IniFormat)),
                        gpu_feed=False)
    window.show()
    window.show_page("run")
    app.processEvents()
    def rect(r):
        return [r.x(), r.y(), r.width(), r.height()]
    start = window.run_view.start_button
    corner = start.mapToGlobal(start.rect().bottomRight())
    from PySide6.QtWidgets import QWizard
    from gui.wizard import ConfigWizard
    wizard = ConfigWizard(window, look=False)
    wizard.show()
    app.processEvents()
    next_button = wizard.button(QWizard.WizardButton.NextButton)
    next_corner = next_button.mapToGlobal(next_button.rect().bottomRight())
    print(json.dumps({"area": rect(window.screen().availableGeometry()),
                      "window": rect(window.geometry()), "start": [corner.x(), corner.y()],
                      "start_visible": not start.visibleRegion().isEmpty(),
                      "wizard": rect(wizard.geometry()),
                      "next": [next_corner.x(), next_corner.y()]}))
""")


def _fitted(tmp_path, scale: str, remembered: tuple[int, int] | None = None) -> dict:
    ini = tmp_path / f"settings-{scale}.ini"
    if remembered:  # a window state saved on a bigger screen
        from PySide6.QtCore import QSettings

        from gui.main_window import MainWindow
        from gui.settings import Settings

        big = MainWindow(Settings(QSettings(str(ini), QSettings.Format.IniFormat)),
                         gpu_feed=False)
        big.resize(*remembered)
        big.settings.save_window_state(big.saveGeometry(), big.saveState())
        big.cluster.dirty = False
        big.deleteLater()
    screen = tmp_path / "screen.json"  # the offscreen platform's one screen: 1024x700
    screen.write_text(json.dumps({"screens": [{"name": "small", "x": 0, "y": 0, "width": 1024,
                                               "height": 700, "logicalDpi": 96, "dpr": 1}]}))
    # Qt splits platform arguments at ":": the file is named relative to the child's folder,
    # never with a drive ("C:\\...").
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={screen.name}",
           "QT_SCALE_FACTOR": scale, "HOME": str(tmp_path),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, "-c", FIT_SCRIPT, str(ini)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_the_windows_fit_a_small_scaled_screen_with_start_and_next_on_it(qtbot, tmp_path):
    for scale, remembered in (("1.5", None), ("1", None), ("1.5", (1900, 1200))):
        seen = _fitted(tmp_path, scale, remembered)
        ax, ay, aw, ah = seen["area"]
        x, y, w, h = seen["window"]
        assert ax <= x and ay <= y and x + w <= ax + aw and y + h <= ay + ah, (scale, seen)
        sx, sy = seen["start"]
        assert seen["start_visible"] and sx <= ax + aw and sy <= ay + ah, (scale, seen)
        x, y, w, h = seen["wizard"]  # the first start's other window
        nx, ny = seen["next"]
        assert y + h <= ay + ah and x + w <= ax + aw, (scale, seen)
        assert nx <= ax + aw and ny <= ay + ah, (scale, seen)


def shortcut(qtbot, window, key: Qt.Key) -> None:
    """Press a window's shortcut. The window is made active first, as a desktop does when a
    dialog over it closes (the offscreen platform leaves no window active)."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, key)


def test_start_asks_before_saving_over_the_open_file(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setattr(QMessageBox, "question", REAL_QUESTION)
    (tmp_path / "train.py").write_text("print('trained')\n")
    path = tmp_path / "job.json"
    original = json.dumps({"name": "t", "strategy": "single", "script": "train.py"})
    path.write_text(original)
    assert window.open_file(str(path))
    retype(qtbot, window.cluster.name, "renamed")
    seen: list[str] = []
    answer(QMessageBox.StandardButton.Cancel, seen)
    shortcut(qtbot, window, Qt.Key.Key_F5)
    assert seen and str(path) in seen[0]
    assert path.read_text() == original and not window.run_view.running
    assert window.cluster.dirty
    answer(QMessageBox.StandardButton.Save, seen)
    shortcut(qtbot, window, Qt.Key.Key_F5)
    assert json.loads(path.read_text())["name"] == "renamed"
    assert wait_for_run(qtbot, window.run_view).status == "succeeded"
    shortcut(qtbot, window, Qt.Key.Key_F5)  # saved: nothing to ask, it runs again
    assert len(seen) == 2
    assert wait_for_run(qtbot, window.run_view).status == "succeeded"


def started_window(report: str) -> str:
    """What ``report`` (an expression of ``window``) prints in a fresh interpreter once the
    window has started and been shown."""
    child = textwrap.dedent("""
        import sys
        from gui.app import make_app
        app = make_app()
        from gui.main_window import MainWindow
        window = MainWindow()
        window.show()
        app.processEvents()
        print({report})
    """).format(report=report)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", child], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_the_window_starts_without_loading_ssh_pyqtgraph_or_numpy():
    """asyncssh and cryptography cost the window 0.2 s of its start: they load when the LAN is
    first used (Preflight, a LAN run, a host key to trust), not before. pyqtgraph and the
    Resources tab's charts cost 0.35 s, numpy 0.1 s: they load when a chart is first drawn."""
    loaded = ('sorted(m for m in ("asyncssh", "core.remote.connect", "pyqtgraph", "numpy") '
              'if m in sys.modules)')
    assert started_window(loaded) == "[]"


def test_the_starter_job_is_checked_once_then_shown_without_pydantic():
    """The Cluster view checks the starter job as it starts; pydantic and the schema cost the
    start 0.17 s, so the check is remembered (the cache of checked configs) and later starts
    show the same verdict without them."""
    # Not the status line: it moves on to the background check 0.4 s after the fields' check,
    # which a start on a loaded machine can outlast.
    report = '"pydantic" in sys.modules, window.cluster.problems'
    assert started_window(report) == "True []"  # no problem in the fields
    assert started_window(report) == "False []"


def test_the_first_save_as_opens_in_the_documents_folder(qtbot, window, monkeypatch, tmp_path):
    """Save As of a job never saved, before any other save (``--no-wizard``, or the wizard
    cancelled): the dialog starts in Documents/TensorDeck, not in the current folder (the app's
    own after a double-click); a script already chosen puts it beside the script."""
    import platformdirs
    from PySide6.QtWidgets import QFileDialog

    monkeypatch.chdir(tmp_path)
    starts = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda parent, title, start, *rest: starts.append(start) or ("", ""))
    assert window.cluster.path is None
    window.cluster.script.clear()
    assert window.save_as() is False
    script = tmp_path / "project" / "train.py"
    script.parent.mkdir()
    script.write_text("print('hi')")
    window.cluster.script.setText(str(script))
    window.save_as()
    documents = Path(platformdirs.user_documents_dir())
    assert starts == [str(documents / "TensorDeck" / "job.json"),
                      str(script.parent / "job.json")]
