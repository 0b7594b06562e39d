"""Every background action of the window, repeated and interleaved, in a process of its own
(run by tests/test_gui_background.py): the wizard's interpreter search, quick and full checks,
preflight, run start, Stop, and a start from the wizard's Finish, while the GPU sampler and the
event bridge tick. Python's fault handler is on and every Qt warning aborts (the process exits
with a core-dump status and the traceback of every thread), so an object-lifetime bug shows as
a failed test, not as a crash a user finds.

``python -m tests.gui_storm FOLDER ROUNDS``; prints ``storm ok`` at the end.
"""

from __future__ import annotations

import faulthandler
import json
import os
import sys
import time
from pathlib import Path

#: The offscreen platform plugin's own notes: not about TensorDeck's objects.
_PLATFORM_NOISE = ("This plugin does not support",)

STEPS = """import sys, time
n = int(sys.argv[sys.argv.index('--steps') + 1])
for i in range(0, n + 1, 100):
    print(f'step {i}/{n} loss={1 / (i + 1):.4f}', flush=True)
    time.sleep(0.002)
"""


def _fatal_warnings() -> None:
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    def handler(kind: QtMsgType, _context: object, message: str) -> None:
        if kind == QtMsgType.QtDebugMsg or kind == QtMsgType.QtInfoMsg:
            return
        if message.startswith(_PLATFORM_NOISE):
            return
        sys.stderr.write(f"Qt {kind.name}: {message}\n")
        sys.stderr.flush()
        faulthandler.dump_traceback(all_threads=True)
        os.abort()

    qInstallMessageHandler(handler)


def main(folder: Path, rounds: int) -> None:
    faulthandler.enable()
    sys.setswitchinterval(1e-4)  # hand the GIL over often: races show sooner
    from PySide6.QtCore import QSettings, Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QMessageBox, QWizard

    app = QApplication([])
    _fatal_warnings()
    from gui.main_window import MainWindow
    from gui.settings import Settings
    from gui.wizard import ConfigWizard
    from tests.nvml_replay import ReplayNvml

    # Dialogs a person would close: answered at once, so the storm goes on.
    QMessageBox.warning = staticmethod(lambda *args: QMessageBox.StandardButton.Ok)
    QMessageBox.question = staticmethod(lambda *args: QMessageBox.StandardButton.Yes)

    def wait_until(condition, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                raise SystemExit("storm: timed out")
            QTest.qWait(10)

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "train.py").write_text(STEPS)
    job = {"name": "storm", "strategy": "parameter_server", "script": "train.py",
           "args": ["--steps", "3000"], "stop_grace_seconds": 2,
           "tasks": [{"role": "chief"}, {"role": "worker"}, {"role": "ps"}]}
    (folder / "job.json").write_text(json.dumps(job))
    settings = Settings(QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(settings, nvml=ReplayNvml.load("h200x2_linux"))
    window.preflight_import_tf = False
    window.show()
    view = window.run_view
    click = QTest.mouseClick
    left = Qt.MouseButton.LeftButton
    def go_to(wizard, page) -> None:
        """Next until ``page`` (the pages between depend on the strategy)."""
        for _ in range(10):
            if wizard.currentPage() is page:
                return
            wizard.next()
            QTest.qWait(10)
        raise SystemExit(f"storm: the wizard did not reach {type(page).__name__}")

    def answer_wizard(round_: int) -> None:
        wizard = QApplication.activeModalWidget()
        assert isinstance(wizard, ConfigWizard), wizard
        check = wizard.interpreter_page.check_button
        for _ in range(2):  # the Full check twice, as in the report
            click(check, left)
            wait_until(check.isEnabled)
        window.open_file(str(folder / "job.json"))
        click(view.start_button, left)  # a run, while the wizard probes again
        click(check, left)
        window.preflight()
        QTest.qWait(150)
        click(view.stop_button, left)
        wait_until(lambda: not view.running)
        click(view.start_button, left)
        wait_until(lambda: not view.running)
        wizard.next()
        wizard.strategy_page.buttons["parameter_server"].click()
        go_to(wizard, wizard.script_page)
        wizard.script_page.script.setText(str(folder / "train.py"))
        wizard.script_page.args.setText("--steps 6000")
        go_to(wizard, wizard.review_page)
        wizard.review_page.path.setText(str(folder / f"wizard{round_}.json"))
        wizard.review_page.run_now.setChecked(True)
        wait_until(check.isEnabled)
        click(wizard.button(QWizard.WizardButton.FinishButton), left)
        if wizard.isVisible():  # else its modal loop would wait for a person forever
            sys.stderr.write(f"storm: Finish did not close the wizard (on {wizard.currentId()})\n")
            os._exit(3)

    for round_ in range(rounds):
        # File > New: the wizard runs modal (its own event loop) and is answered from inside
        # it, as a person would; on Finish the window saves the config and starts the run.
        QTimer.singleShot(0, lambda r=round_: answer_wizard(r))
        window.new_config()
        QTest.qWait(200)
        click(view.stop_button, left)
        wait_until(lambda: not view.running)
        if window.preflight_dialog is not None:
            window.preflight_dialog.close()
    window.run_view.shutdown(10)
    window.cluster.dirty = False
    window.close()
    QTest.qWait(100)
    del app
    print("storm ok", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
