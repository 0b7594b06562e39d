"""The ``tasks`` of a config as a table: role, count, host, port, GPUs, node and restart policy
per entry, the GPUs as checkable items of the machine's real GPUs, the node one of the config's
``nodes``, the restart policy the entry's own or the job's (core.config.JobConfig.restart_for)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QSpinBox,
    QToolButton,
    QWidget,
)

from core.jobfile import ROLES
from gui.widgets.row_table import RowTable

NODE_COLUMN = 5
RESTART_COLUMN = 6


class GpuPicker(QToolButton):
    """Which GPUs a task entry sees: default (None), none ([]), or chosen indexes."""

    changed = Signal()

    def __init__(self, gpus: list[tuple[int, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._value: list[int] | None = None
        menu = QMenu(self)
        self._default = menu.addAction(self.tr("Default (ps: none, others: all)"))
        self._none = menu.addAction(self.tr("No GPU (CPU only)"))
        menu.addSeparator()
        self._gpu_actions: dict[int, QAction] = {}
        for index, name in gpus:
            action = menu.addAction(f"GPU {index}: {name}")
            action.setCheckable(True)
            self._gpu_actions[index] = action
            action.toggled.connect(self._on_gpu_toggled)
        if not gpus:
            empty = menu.addAction(self.tr("No NVIDIA GPU found on this machine"))
            empty.setEnabled(False)
        self._default.triggered.connect(lambda: self.set_value(None))
        self._none.triggered.connect(lambda: self.set_value([]))
        self.setMenu(menu)
        self._update_text()

    def value(self) -> list[int] | None:
        return None if self._value is None else list(self._value)

    def set_value(self, value: list[int] | None) -> None:
        self._value = None if value is None else list(value)
        for index, action in self._gpu_actions.items():
            action.blockSignals(True)
            action.setChecked(bool(value) and index in value)
            action.blockSignals(False)
        self._update_text()
        self.changed.emit()

    def _on_gpu_toggled(self) -> None:
        self._value = [i for i, a in self._gpu_actions.items() if a.isChecked()]
        self._update_text()
        self.changed.emit()

    def _update_text(self) -> None:
        if self._value is None:
            self.setText(self.tr("Default"))
        elif not self._value:
            self.setText(self.tr("None (CPU)"))
        else:
            self.setText(", ".join(f"GPU {i}" for i in self._value))


class RestartPicker(QWidget):
    """An entry's ``restart``: the job's (None), never, or on failure up to N times. The
    entry's ``backoff_seconds``, which has no control here, is kept as it was."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.policy = QComboBox()
        self.policy.addItem(self.tr("Job's policy"), None)
        self.policy.addItem(self.tr("Never"), "never")
        self.policy.addItem(self.tr("On failure"), "on_failure")
        self.policy.setToolTip(self.tr("Job's policy: the job's restart setting; in "
                                       "parameter_server, workers restart on failure"))
        self.max_restarts = QSpinBox()
        self.max_restarts.setRange(0, 100)  # 0 with on_failure: validation says what is wrong
        self.max_restarts.setSuffix(self.tr(" times"))
        self._backoff: object = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.policy, 1)
        layout.addWidget(self.max_restarts)
        self.policy.currentIndexChanged.connect(self._on_policy)
        self.max_restarts.valueChanged.connect(self.changed)
        self._on_policy()

    def _on_policy(self) -> None:
        self.max_restarts.setEnabled(self.policy.currentData() == "on_failure")
        self.changed.emit()

    def set_value(self, restart: object) -> None:
        """From the file: anything that is not a known policy shows as the job's."""
        restart = restart if isinstance(restart, dict) else {}
        count = restart.get("max_restarts")
        self.blockSignals(True)
        self.max_restarts.setValue(count if isinstance(count, int) else 3)
        self.policy.setCurrentIndex(max(self.policy.findData(restart.get("policy")), 0))
        self.blockSignals(False)
        self._backoff = restart.get("backoff_seconds")
        self._on_policy()

    def value(self) -> dict | None:
        policy = self.policy.currentData()
        if policy is None:
            return None
        out: dict = {"policy": policy}
        if policy == "on_failure":
            out["max_restarts"] = self.max_restarts.value()
            if self._backoff is not None:
                out["backoff_seconds"] = self._backoff
        return out


class TaskEditor(RowTable):
    """Rows of (role, count, host, port, GPUs, node, restart); ``changed`` on every edit."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(7, 130, parent)
        self.gpus: list[tuple[int, str]] = []
        self.nodes: list[str] = []
        self.table.setHorizontalHeaderLabels([self.tr("Role"), self.tr("Count"), self.tr("Host"),
                                              self.tr("Port"), self.tr("GPUs"), self.tr("Node"),
                                              self.tr("Restart")])
        self.add_button.setText(self.tr("Add task"))

    def set_machine_gpus(self, gpus: list[tuple[int, str]]) -> None:
        """The GPUs the pickers offer; keeps the current rows."""
        rows = self.value()
        self.gpus = gpus
        self.set_value(rows)

    def set_nodes(self, names: list[str]) -> None:
        """The machines the node combos offer besides this one; keeps each row's choice (a name
        no longer in ``names`` stays, so that its problem shows)."""
        self.nodes = list(names)
        for row in range(self.table.rowCount()):
            self._fill_nodes(self.cell(row, NODE_COLUMN), self.node_of(row))

    def _fill_nodes(self, combo: QComboBox, current: str | None) -> None:
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(self.tr("this machine"), None)
        for name in self.nodes:
            combo.addItem(name, name)
        if current is not None and combo.findData(current) < 0:
            combo.addItem(current, current)
        combo.setCurrentIndex(max(combo.findData(current), 0))
        combo.blockSignals(False)

    def node_of(self, row: int) -> str | None:
        return self.cell(row, NODE_COLUMN).currentData()

    def add_row(self, entry: dict) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        role = QComboBox()
        role.addItems(ROLES)
        if entry.get("role") in ROLES:
            role.setCurrentText(entry["role"])
        count = QSpinBox()
        count.setRange(1, 256)
        count.setValue(int(entry.get("count", 1)) if isinstance(entry.get("count", 1), int) else 1)
        host = QLineEdit(str(entry.get("host", "localhost")))
        port = QSpinBox()
        port.setRange(0, 65535)
        port.setSpecialValueText(self.tr("auto"))
        port.setValue(entry["port"] if isinstance(entry.get("port"), int) else 0)
        gpus = GpuPicker(self.gpus)
        gpus.set_value(entry.get("gpus") if isinstance(entry.get("gpus"), list) else None)
        node = QComboBox()
        self._fill_nodes(node, entry.get("node") if isinstance(entry.get("node"), str) else None)
        restart = RestartPicker()
        restart.set_value(entry.get("restart"))
        for col, widget in enumerate((role, count, host, port, gpus, node, restart)):
            self.table.setCellWidget(row, col, widget)
        role.currentIndexChanged.connect(self.changed)
        count.valueChanged.connect(self.changed)
        host.textChanged.connect(self.changed)
        port.valueChanged.connect(self.changed)
        gpus.changed.connect(self.changed)
        node.currentIndexChanged.connect(self.changed)
        restart.changed.connect(self.changed)
        self.changed.emit()

    def add_clicked(self) -> None:
        self.add_row({"role": "worker"})

    def cell(self, row: int, col: int) -> QWidget:
        return self.table.cellWidget(row, col)

    def set_value(self, entries: list[dict]) -> None:
        self.blockSignals(True)
        self.table.setRowCount(0)
        for entry in entries:
            self.add_row(entry if isinstance(entry, dict) else {})
        self.blockSignals(False)
        self.changed.emit()

    def value(self) -> list[dict]:
        """The entries as the config file says them: only what differs from the defaults."""
        out = []
        for row in range(self.table.rowCount()):
            entry: dict = {"role": self.cell(row, 0).currentText()}
            if self.cell(row, 1).value() != 1:
                entry["count"] = self.cell(row, 1).value()
            host = self.cell(row, 2).text().strip()
            if host and host != "localhost":
                entry["host"] = host
            if self.cell(row, 3).value():
                entry["port"] = self.cell(row, 3).value()
            gpus = self.cell(row, 4).value()
            if gpus is not None:
                entry["gpus"] = gpus
            if self.node_of(row) is not None:
                entry["node"] = self.node_of(row)
            restart = self.cell(row, RESTART_COLUMN).value()
            if restart is not None:
                entry["restart"] = restart
            out.append(entry)
        return out
