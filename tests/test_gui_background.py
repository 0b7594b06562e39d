"""Background work and object lifetimes under real Qt (issue 12, bug 1: exit 139 after the
wizard's Full check twice and Finish with "Start the run when I press Finish")."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytest.importorskip("PySide6")


def test_every_background_action_repeated_and_interleaved_neither_crashes_nor_warns(tmp_path):
    """tests/gui_storm.py in a child: a crash (exit 139) or any Qt warning (abort) fails here,
    with the fault handler's traceback of every thread in the message."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONFAULTHANDLER": "1"}
    done = subprocess.run([sys.executable, "-m", "tests.gui_storm", str(tmp_path), "10"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "storm ok" in done.stdout, (
        f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}")
