"""Background work and object lifetimes under real Qt (issue 12, bug 1: exit 139 after the
wizard's Full check twice and Finish with "Start the run when I press Finish")."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytest.importorskip("PySide6")

pytest_plugins = ["tests.gui_fixtures"]


@pytest.mark.timeout(660)  # its child's own limit (600 s), not the suite's: slow under Wine
def test_every_background_action_repeated_and_interleaved_neither_crashes_nor_warns(
        tmp_path, this_python_probed):
    """tests/gui_storm.py in a child: a crash (exit 139) or any Qt warning (abort) fails here,
    with the fault handler's traceback of every thread in the message. The child's user cache
    (this test's) holds this interpreter's probe, as after a user's first check: the storm is
    about object lifetimes, and a first TensorFlow import would only add ~25 s under Wine."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONFAULTHANDLER": "1"}
    done = subprocess.run([sys.executable, "-m", "tests.gui_storm", str(tmp_path), "10"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "storm ok" in done.stdout, (
        f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}")


def test_a_lambda_of_a_widget_deleted_while_its_job_ran_is_not_called(qtbot):
    """Views hand lambdas that captured them (History's log tabs); a view deleted meanwhile
    (its window closed) gets no result, which would raise "Internal C++ object already
    deleted" in the event loop; a live one gets it."""
    import threading

    import shiboken6
    from PySide6.QtWidgets import QLabel

    from gui import background

    release = threading.Event()
    seen: list[str] = []
    gone, live = QLabel("gone"), QLabel("live")
    qtbot.addWidget(live)

    def nested(_result: object) -> None:
        seen.append(gone.text())

    background.run_in_background(lambda: release.wait(60), lambda _: seen.append(gone.text()))
    background.run_in_background(lambda: release.wait(60), nested)
    background.run_in_background(lambda: release.wait(60), lambda _, w=gone: seen.append(w.text()))
    background.run_in_background(lambda: release.wait(60), lambda _: seen.append(live.text()))
    shiboken6.delete(gone)
    release.set()
    qtbot.waitUntil(lambda: not background._relay._jobs, timeout=60_000)
    assert seen == ["live"]
