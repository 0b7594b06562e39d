"""Under the Chinese UI, the Machine view's finding about the GPUs says what NVML reported in
Chinese: the doctor writes ``NVML: <what NVML said>`` as a catalogue message (core.messages
"doctor.nvml"), the window says it in its language; quoted output stays as it is."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from tests.gui_fixtures import CHINESE
from tests.nvml_replay import ReplayNvml

pytest_plugins = ["tests.gui_fixtures"]


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


def test_a_lost_gpus_card_says_nvmls_error_in_chinese(qtbot, chinese, this_python_probed):
    """A GPU that fell off the bus: its card says NVML's error in Chinese; core keeps NVML's
    English (GpuInfo.error)."""
    from gui.views.machine import GpuCard, MachineView

    nvml = ReplayNvml.load("h200x2_linux")
    nvml.broken[1] = "GPU_IS_LOST"
    view = MachineView(nvml=nvml)
    qtbot.addWidget(view)
    view.show()
    qtbot.mouseClick(view.refresh_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.report is not None, timeout=120_000)
    assert view.report.gpus[1].error == "GPU is lost"
    lines = view.findChildren(GpuCard)[1].details.text().splitlines()
    assert lines[-1] == "GPU 已丢失（从总线上掉线）", lines
    assert all(CHINESE.search(line) for line in lines), lines
    qtbot.waitUntil(lambda: not view.checking, timeout=120_000)


@pytest.mark.parametrize(("status", "stdout", "english", "chinese_text"), [
    (127, "", "nvidia-smi not found on node b: no NVIDIA driver there; tasks run on CPU",
     "节点 b 上找不到 nvidia-smi：那里没有 NVIDIA 驱动；任务在 CPU 上运行"),
    (9, "NVIDIA-SMI has failed", "nvidia-smi failed on node b: NVIDIA-SMI has failed",
     "节点 b 上的 nvidia-smi 失败：NVIDIA-SMI has failed"),
], ids=["no-smi", "smi-failed"])
def test_the_run_views_node_gpus_say_nvidia_smis_state_in_chinese(qtbot, chinese, monkeypatch,
                                                                  status, stdout, english,
                                                                  chinese_text):
    """The Run view's "Node GPUs" tab during a LAN run: what the node's nvidia-smi said (the
    monitor's report, core's English) reads in Chinese; nvidia-smi's own output stays."""
    import core.remote.gpus as remote_gpus
    from core.config import Node
    from core.remote.gpus import finished_report
    from gui.widgets.node_gpu_panel import NodeGpuPanel

    report = finished_report("b", status, stdout, "")
    assert report.message == english  # the command line's, as before

    class Monitor:  # the SSH monitor, answering at once with what nvidia-smi said
        def __init__(self, node, name, on_report):
            self.on_report, self.running = on_report, False

        def start(self):
            self.on_report(report)

        def stop(self, timeout: float = 10) -> None:
            pass

    monkeypatch.setattr(remote_gpus, "NodeGpuMonitor", Monitor)
    panel = NodeGpuPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.start({"b": Node(host="192.0.2.1", python="/usr/bin/python3")})
    label = panel.messages["b"]
    qtbot.waitUntil(label.isVisible)
    assert label.text() == chinese_text
    panel.stop()
