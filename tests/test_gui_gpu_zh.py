"""Under the Chinese UI, the Machine view's finding about the GPUs says what NVML reported in
Chinese: the doctor writes ``NVML: <what NVML said>`` as a catalogue message (core.messages
"doctor.nvml"), the window says it in its language; quoted output stays as it is."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from tests.nvml_replay import ReplayNvml

pytest_plugins = ["tests.gui_fixtures"]

CHINESE = re.compile("[\u4e00-\u9fff]")


@pytest.fixture
def chinese(qapp):
    from gui.i18n import install_translators

    assert install_translators(qapp, "zh_CN") == "zh_CN"
    yield
    install_translators(qapp, "en")


@pytest.mark.parametrize(("recording", "message_id"), [
    ("driver_mismatch", "gpu.driver_mismatch"),
    ({"init_error": "LIBRARY_NOT_FOUND", "system": {}, "devices": []}, "gpu.no_driver"),
    ({"init_error": "DRIVER_NOT_LOADED", "system": {}, "devices": []}, "gpu.driver_not_loaded"),
], ids=["mismatch", "no-driver", "not-loaded"])
def test_the_gpu_findings_nvml_line_reads_in_chinese(qtbot, chinese, this_python_probed,
                                                     recording, message_id):
    from core.messages import CATALOGUE
    from gui.views.machine import FindingCard, MachineView

    nvml = ReplayNvml.load(recording) if isinstance(recording, str) else ReplayNvml(recording)
    view = MachineView(nvml=nvml)
    qtbot.addWidget(view)
    view.show()
    qtbot.mouseClick(view.refresh_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.checking, timeout=120_000)
    english = f"NVML: {CATALOGUE[message_id].en}"
    [finding] = [f for f in view.findings if f.evidence == english]  # core keeps English
    [card] = [c for c in view.findChildren(FindingCard) if finding.title_in() in
              [label.text() for label in c.findChildren(QLabel)]]
    texts = [label.text() for label in card.findChildren(QLabel)]
    assert f"NVML：{CATALOGUE[message_id].zh_CN}" in texts, texts
    assert english not in texts
