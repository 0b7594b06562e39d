"""Fixtures for the window's tests (pytest-qt, offscreen): settings in a temporary ini file,
a main window on recorded NVML answers, and waiting for a run started from the window."""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from gui.settings import Settings
from tests.conftest import user_state_env
from tests.nvml_replay import ReplayNvml


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def h200_nvml() -> ReplayNvml:
    """Two H200s, as NVML answered on a Linux GPU machine."""
    return ReplayNvml.load("h200x2_linux")


def probe_file(env: Mapping[str, str]) -> Path:
    """The file of this interpreter's cached probe, for a process with the user-state
    variables of ``env`` (tests.conftest.user_state_env)."""
    from core.interpreters.probe import cache_file

    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        return cache_file(sys.executable)


@pytest.fixture(scope="session")
def probed_once(tmp_path_factory) -> Path:
    """This interpreter's probe, TensorFlow's import included, made once a session (a real
    probe, in a child): the cached answer a check of this machine reads. Without it every
    check imports TensorFlow again in a fresh cache, ~25 s of CPU each under Wine."""
    from core.interpreters.probe import cached_probe

    env = user_state_env(tmp_path_factory.mktemp("probed"))
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        assert cached_probe(sys.executable).python_version
    return probe_file(env)


def seed_probe(probed: Path, env: Mapping[str, str]) -> None:
    """Put ``probed`` (probed_once) into the user cache of a process with ``env``, as after
    the user's first check of this machine."""
    target = probe_file(env)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(probed, target)


@pytest.fixture
def this_python_probed(probed_once: Path) -> None:
    """The test's own user cache holds this interpreter's probe (probed_once)."""
    seed_probe(probed_once, os.environ)


#: A real program that is no Python (on Windows, /bin/ls would be \bin\ls of the current
#: drive: missing, or under Wine a Linux program whose output bypasses the pipes).
NOT_PYTHON = (os.path.join(os.environ.get("SYSTEMROOT", r"C:\Windows"), "System32", "whoami.exe")
              if sys.platform == "win32" else "/bin/ls")
#: A Chinese character: what a text said in Chinese holds.
CHINESE = re.compile("[\u4e00-\u9fff]")


@pytest.fixture
def chinese(qapp):
    """The window in Simplified Chinese for the test, English again after it."""
    from gui.i18n import install_translators

    assert install_translators(qapp, "zh_CN") == "zh_CN"
    yield
    install_translators(qapp, "en")


@pytest.fixture(autouse=True)
def _no_modal_dialogs(monkeypatch):
    """A message box nobody answers would hang the test run: fail instead (tests that expect
    one replace it themselves)."""
    from PySide6.QtWidgets import QMessageBox

    def unexpected(*args, **kwargs):
        raise AssertionError(f"unexpected dialog: {args[1:3]}")

    for name in ("question", "warning", "information", "critical"):
        monkeypatch.setattr(QMessageBox, name, unexpected)


@pytest.fixture(autouse=True)
def _app_as_tensordeck_makes_it(qapp):
    """What gui.app.make_app adds to every QApplication that is not a look: the wheel guard."""
    from gui.widgets.wheel_guard import install_wheel_guard

    install_wheel_guard(qapp)


@pytest.fixture
def window(qtbot, settings, h200_nvml):
    """The main window on two recorded H200s, without the 1 Hz GPU sampler thread."""
    from gui.main_window import MainWindow

    win = MainWindow(settings, nvml=h200_nvml, gpu_feed=False)
    win.show()
    yield win
    win.run_view.shutdown(timeout=10)
    win.cluster.dirty = False  # edits made by the test: close without asking
    win.close()
    win.deleteLater()


def wait_for_run(qtbot, run_view, timeout_ms: int = 60_000):
    """Wait until the run started from ``run_view`` ends; returns its RunResult."""
    with qtbot.waitSignal(run_view.session.finished, timeout=timeout_ms) as blocker:
        pass
    return blocker.args[0]


def click_when_shown(qtbot, button, timeout_ms: int = 5_000) -> None:
    """Click ``button`` as a person does: once it is on screen at its size. Cards made by a
    check are laid out in steps (the page's old height first, crushing them to 0 px, then the
    scroll area grows the page); on a busy machine a click at once landed in between."""
    from PySide6.QtCore import Qt

    qtbot.waitUntil(lambda: button.isVisible() and button.height() >= button.sizeHint().height(),
                    timeout=timeout_ms)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def retype(qtbot, edit, text: str) -> None:
    """Replace what a line edit holds the way a person does: select all, then type."""
    from PySide6.QtCore import Qt

    edit.setFocus()
    qtbot.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    if text:
        qtbot.keyClicks(edit, text)
    else:
        qtbot.keyClick(edit, Qt.Key.Key_Delete)


def answer(button: QMessageBox.StandardButton, seen: list[str]) -> None:
    """Answer the next message box with ``button``; what it said goes into ``seen``. The box
    is modal: it is clicked from the event loop once it is open."""

    def click_it() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, click_it)
            return
        seen.append(box.text())
        box.button(button).click()

    QTimer.singleShot(0, click_it)
