"""Under the Chinese UI, what core says and the window shows reads in Chinese: the GPU card's
NVML message (no driver), the plan of "Make a TensorFlow environment", and the exit code's
tooltip in the task table. Core writes these in English (files, the command line); the window
says them in its language (core.messages)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from tests.gui_fixtures import CHINESE
from tests.nvml_replay import ReplayNvml

pytest_plugins = ["tests.gui_fixtures"]


def no_driver() -> ReplayNvml:
    """NVML without its library (nvml.dll / libnvidia-ml.so.1 missing): a machine with no
    NVIDIA driver, as nvidia-ml-py reports it."""
    return ReplayNvml({"init_error": "LIBRARY_NOT_FOUND", "system": {}, "devices": []})


def test_the_gpu_card_says_there_is_no_driver_in_chinese(qtbot, chinese, this_python_probed):
    """"Check again" clicked on a machine without the NVIDIA driver: the card says what NVML
    said, and what to do, in Chinese."""
    from core.messages import CATALOGUE
    from gui.views.machine import MachineView

    view = MachineView(nvml=no_driver())
    qtbot.addWidget(view)
    view.show()
    qtbot.mouseClick(view.refresh_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.checking, timeout=120_000)
    grid = view.gpu_grid
    card = [label.text() for i in range(grid.count())
            for label in grid.itemAt(i).widget().findChildren(QLabel)]
    assert CATALOGUE["gpu.no_driver"].zh_CN in card, card
    assert all(CHINESE.search(text) for text in card if text != "●"), card


def test_the_environment_plan_reads_in_chinese(qtbot, chinese):
    """The Machine view's "Make a TensorFlow environment" on two recorded H200s: the plan's
    why, where, download, steps and notes in Chinese; the commands as they run."""
    from gui.views.machine import MachineView

    view = MachineView(nvml=ReplayNvml.load("h200x2_linux"))
    qtbot.addWidget(view)
    view.show()
    qtbot.mouseClick(view.env_button, Qt.MouseButton.LeftButton)
    dialog = view.env_dialog
    qtbot.waitUntil(lambda: dialog.plan is not None, timeout=120_000)
    text = dialog.plan_view.toPlainText()
    said = [line for line in text.splitlines() if not line.startswith("  ")]
    assert len(said) >= 3 and all(CHINESE.search(line) for line in said), text
    for english in ("Where:", "Download:", "Commands:", "Steps for you:", "Note:", "the CPU",
                    "release", "Install", "Create"):
        assert english not in text.replace("tensorflow", ""), (english, text)
    assert "pip install" in text or not dialog.plan.buildable  # the commands stay commands
    dialog.close()


@pytest.mark.parametrize(("code", "words"), [
    (3221225477, "访问冲突"),  # 0xC0000005
    (137, "被立即强制终止"),  # SIGKILL: its hint
    (134, "已中止"),  # SIGABRT: its meaning
    (127, "找不到命令"),
    (1, "任务失败"),
    (3, "任务自己的退出码"),
], ids=["0xC0000005", "137", "134", "127", "1", "3"])
def test_an_exit_codes_tooltip_reads_in_chinese(qtbot, chinese, code, words):
    from core.events import TaskState
    from gui.widgets.task_table import COLUMNS, TaskTable

    table = TaskTable()
    qtbot.addWidget(table)
    table.set_tasks([SimpleNamespace(key="worker:0", role="worker", index=0, address=None,
                                     host="localhost")])
    table.task_started("worker:0", 100)
    table.task_exited("worker:0", code, TaskState.FAILED)
    tip = table.item(0, COLUMNS.index("exit code")).toolTip()
    assert words in tip, tip
    assert not re.search(r"\b(the|task|ended|status|exit code)\b", tip), tip
