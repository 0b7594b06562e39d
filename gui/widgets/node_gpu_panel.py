"""GPU charts of the LAN nodes of a run: one group per node, named after it, fed by
:class:`core.remote.gpus.NodeGpuMonitor` (nvidia-smi over SSH) while the run lasts."""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QObject, Signal, Slot
from PySide6.QtWidgets import QGroupBox, QLabel, QScrollArea, QVBoxLayout, QWidget

from core.config import Node
from core.gpu.info import GpuReport, GpuState
from gui.i18n import core_text
from gui.widgets.charts import GpuCharts


class _NodeFeed(QObject):
    """One node's monitor; ``report(GpuReport)`` re-emitted on the GUI thread."""

    report = Signal(object)

    def __init__(self, node: Node, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        from core.remote.gpus import NodeGpuMonitor  # SSH: loaded when a LAN run starts

        self.monitor = NodeGpuMonitor(node, name, self.report.emit)


class NodeGpuPanel(QScrollArea):
    """``start(nodes)`` shows and samples each node; ``stop()`` ends the sampling (charts stay)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.charts: dict[str, GpuCharts] = {}
        self.messages: dict[str, QLabel] = {}
        self._feeds: list[_NodeFeed] = []
        self._body = QWidget()
        self._layout = QVBoxLayout(self._body)
        self.setWidget(self._body)

    def start(self, nodes: dict[str, Node]) -> None:
        self.stop()
        for name in list(self.charts):
            self.charts.pop(name).parentWidget().deleteLater()
        self.messages.clear()
        for name, node in nodes.items():
            group = QGroupBox(QCoreApplication.translate("NodeGpuPanel", "Node {name}")
                              .format(name=name))
            message = QLabel()
            message.setObjectName("muted")
            message.setWordWrap(True)
            message.hide()
            charts = GpuCharts()
            charts.empty.setText(QCoreApplication.translate(
                "NodeGpuPanel", "Waiting for the first sample from {name}…").format(name=name))
            column = QVBoxLayout(group)
            column.addWidget(message)
            column.addWidget(charts)
            self._layout.addWidget(group)
            self.charts[name], self.messages[name] = charts, message
            feed = _NodeFeed(node, name, self)
            feed.report.connect(lambda report, n=name: self._on_report(n, report))
            feed.monitor.start()
            self._feeds.append(feed)

    def stop(self) -> None:
        for feed in self._feeds:
            feed.monitor.stop()
            feed.deleteLater()
        self._feeds = []

    @property
    def running(self) -> bool:
        return any(feed.monitor.running for feed in self._feeds)

    def refresh(self) -> None:
        for charts in self.charts.values():
            charts.refresh()

    @Slot(str, object)
    def _on_report(self, name: str, report: GpuReport) -> None:
        if name not in self.charts:  # a late report of an earlier run
            return
        if report.state is GpuState.OK:
            self.messages[name].hide()
            self.charts[name].add_sample(time.time(), report.gpus)
        else:
            self.messages[name].setText(core_text(report.message))
            self.messages[name].show()
