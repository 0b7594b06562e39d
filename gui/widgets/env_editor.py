"""The ``env`` of a config: a two-column table of variable names and values."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)


class EnvEditor(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels([self.tr("Variable"), self.tr("Value")])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(100)
        add = QPushButton(self.tr("Add variable"))
        remove = QPushButton(self.tr("Remove selected"))
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        add.clicked.connect(self._add_empty)
        remove.clicked.connect(self._remove_selected)
        self.table.itemChanged.connect(self.changed)

    def _add_empty(self) -> None:
        self._add("", "")
        self.table.editItem(self.table.item(self.table.rowCount() - 1, 0))

    def _add(self, key: str, value: str) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, 0, QTableWidgetItem(key))
        self.table.setItem(row, 1, QTableWidgetItem(value))

    def _remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        for row in rows:
            self.table.removeRow(row)
        self.changed.emit()

    def set_value(self, env: dict) -> None:
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for key, value in env.items():
            self._add(str(key), str(value))
        self.table.blockSignals(False)
        self.changed.emit()

    def value(self) -> dict[str, str]:
        """Rows with a name (a value may be empty); a row being typed without a name is left
        out, so it does not show as an error until it has one."""
        out = {}
        for row in range(self.table.rowCount()):
            key = (self.table.item(row, 0).text() if self.table.item(row, 0) else "").strip()
            value = self.table.item(row, 1).text() if self.table.item(row, 1) else ""
            if key:
                out[key] = value
        return out
