"""The ``tasks`` of a config as a table: role, count, host, port, GPUs, node and restart policy
per entry, the GPUs as checkable items of the machine's real GPUs, the node one of the config's
``nodes``, the restart policy the entry's own or the job's (core.config.JobConfig.restart_for)."""

from __future__ import annotations

import json

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QFontMetrics
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMenu,
    QSpinBox,
    QToolButton,
    QWidget,
)

from core.config import PS_WORKER_RESTARTS, RestartPolicy, TaskGroup
from core.jobfile import RESTART_POLICIES, ROLES, bounds, default, keys
from gui.widgets.row_table import RowTable

HOST_COLUMN = 2
NODE_COLUMN = 5
RESTART_COLUMN = 6
DEFAULT_HOST = str(default(TaskGroup, "host"))
DEFAULT_COUNT = default(TaskGroup, "count")
#: What "On failure" offers first: core's own count for parameter_server workers (its default,
#: 0, is refused with on_failure).
FIRST_MAX_RESTARTS = PS_WORKER_RESTARTS
PORT_LOW, PORT_HIGH = (int(b) for b in bounds(TaskGroup, "port"))


def _text(value: object) -> str:
    """A file's value for a text cell: a string as it is, anything else as its JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


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
        labels = {"never": self.tr("Never"), "on_failure": self.tr("On failure")}
        for policy in RESTART_POLICIES:
            self.policy.addItem(labels.get(policy, policy), policy)
        self.policy.setToolTip(self.tr("Job's policy: the job's restart setting; in "
                                       "parameter_server, workers restart on failure"))
        self.max_restarts = QSpinBox()
        # From 0 whatever core's bound: 0 with on_failure is shown, and validation explains.
        self.max_restarts.setRange(0, int(bounds(RestartPolicy, "max_restarts")[1] or 2**31 - 1))
        self.max_restarts.setSuffix(self.tr(" times"))
        # Sized for 4 digits, not for the largest number it takes (2**31 - 1, unbounded).
        self.max_restarts.setFixedWidth(
            self.max_restarts.fontMetrics().horizontalAdvance("9999" + self.tr(" times")) + 36)
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
        """From the file: a policy core does not know is shown as the file says it."""
        restart = restart if isinstance(restart, dict) else {}
        count = restart.get("max_restarts")
        self.blockSignals(True)
        self.max_restarts.setValue(count if _is_int(count) else FIRST_MAX_RESTARTS)
        policy = restart.get("policy")
        if policy is not None and self.policy.findData(policy) < 0:
            self.policy.addItem(_text(policy), policy)
        self.policy.setCurrentIndex(max(self.policy.findData(policy), 0))
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


class ValueEdit(QLineEdit):
    """A number of the file as text: empty for the default (the placeholder says which), a
    number as it is, any other value as its JSON (``"23100"``, quoted: a string, not a port),
    so that the cell shows what the file says and validation says what is wrong with it."""

    def set_file_value(self, value: object) -> None:
        self.setText("" if value is None else str(value) if _is_int(value)
                     else json.dumps(value, ensure_ascii=False))

    def file_value(self) -> object:
        """None for an empty cell (the key is left out), else what the text says."""
        text = self.text().strip()
        if not text:
            return None
        try:
            return json.loads(text)
        except ValueError:
            return text


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class TaskEditor(RowTable):
    """Rows of (role, count, host, port, GPUs, node, restart); ``changed`` on every edit.

    Each row keeps its entry as the file said it; an edit replaces only the key of the cell
    edited, so a value the cells cannot offer (an unknown key, a bad value in another cell or
    another row) is saved as it was until the user edits that cell."""

    def __init__(self, parent: QWidget | None = None) -> None:
        # A host as long as an IPv4 address stays readable in its cell.
        host = QFontMetrics(QApplication.font()).horizontalAdvance("255.255.255.255") + 16
        super().__init__(7, 130, parent, stretch=[HOST_COLUMN], minimum={HOST_COLUMN: host})
        self.gpus: list[tuple[int, str]] = []
        self.nodes: list[str] = []
        self._entries: list[dict] = []
        self.table.setHorizontalHeaderLabels([self.tr("Role"), self.tr("Count"), self.tr("Host"),
                                              self.tr("Port"), self.tr("GPUs"), self.tr("Node"),
                                              self.tr("Restart")])
        header = self.table.horizontalHeader()
        header.setMinimumSectionSize(0)
        # The host takes the room left (never less than its header: see RowTable); numbers get
        # what 5 digits need, the rest their text.
        digits = self.fontMetrics().horizontalAdvance("65535") + 24
        for col in range(self.table.columnCount()):
            if col != HOST_COLUMN:
                header.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed if col in (1, 3)
                                            else QHeaderView.ResizeMode.ResizeToContents)
        for col in (1, 3):
            self.table.setColumnWidth(col, digits)
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
        entry = dict(entry)
        row = self.table.rowCount()
        self.table.insertRow(row)
        self._entries.append(entry)
        role = QComboBox()
        role.addItems(ROLES)
        if entry.get("role") not in ROLES:  # shown as the file says it; validation explains
            role.addItem(_text(entry.get("role")), entry.get("role"))
            role.setCurrentIndex(role.count() - 1)
        else:
            role.setCurrentText(entry["role"])
        count = ValueEdit()
        count.setPlaceholderText(str(DEFAULT_COUNT))
        count.set_file_value(entry.get("count"))
        host = QLineEdit(_text(entry.get("host", DEFAULT_HOST)))
        host.setPlaceholderText(DEFAULT_HOST)
        port = ValueEdit()
        port.setPlaceholderText(self.tr("auto"))
        port.setToolTip(self.tr("A port from {low} to {high}, or empty: a free one is picked at "
                                "each start").format(low=PORT_LOW, high=PORT_HIGH))
        port.set_file_value(entry.get("port"))
        gpus = GpuPicker(self.gpus)
        gpus.set_value(entry.get("gpus") if isinstance(entry.get("gpus"), list) else None)
        node = QComboBox()
        self._fill_nodes(node, entry.get("node") if isinstance(entry.get("node"), str) else None)
        restart = RestartPicker()
        restart.set_value(entry.get("restart"))
        for col, widget in enumerate((role, count, host, port, gpus, node, restart)):
            self.table.setCellWidget(row, col, widget)

        def edited(key: str, value: object, omitted: object = None) -> None:
            if value == omitted:
                entry.pop(key, None)
            else:
                entry[key] = value
            self.changed.emit()

        role.currentIndexChanged.connect(
            lambda: edited("role", role.currentData() if role.currentData() is not None
                           else role.currentText()))
        count.textEdited.connect(lambda: edited("count", count.file_value()))
        host.textEdited.connect(lambda: edited("host", host.text().strip() or DEFAULT_HOST,
                                               DEFAULT_HOST))
        port.textEdited.connect(lambda: edited("port", port.file_value()))
        gpus.changed.connect(lambda: edited("gpus", gpus.value()))
        node.currentIndexChanged.connect(lambda: edited("node", node.currentData()))
        restart.changed.connect(lambda: edited("restart", restart.value()))
        self.changed.emit()

    def row_removed(self, row: int) -> None:
        del self._entries[row]

    def add_clicked(self) -> None:
        self.add_row({"role": "worker"})

    def cell(self, row: int, col: int) -> QWidget:
        return self.table.cellWidget(row, col)

    def set_value(self, entries: list[dict]) -> None:
        self.blockSignals(True)
        self.table.setRowCount(0)
        self._entries = []
        for entry in entries:
            self.add_row(entry if isinstance(entry, dict) else {})
        self.blockSignals(False)
        self.changed.emit()

    def value(self) -> list[dict]:
        """The entries as the config file says them: as loaded, with the user's edits; the
        keys core knows in its order, then any others."""
        order = {key: i for i, key in enumerate(keys(TaskGroup))}
        return [dict(sorted(e.items(), key=lambda kv: order.get(kv[0], len(order))))
                for e in self._entries]
