"""The ``env`` of a config: a two-column table of variable names and values."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidgetItem, QWidget

from gui.widgets.row_table import RowTable

FILE_VALUE = Qt.ItemDataRole.UserRole


class EnvEditor(RowTable):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(2, 100, parent)
        self.table.setHorizontalHeaderLabels([self.tr("Variable"), self.tr("Value")])
        self.add_button.setText(self.tr("Add variable"))
        self.table.itemChanged.connect(self.changed)

    def add_clicked(self) -> None:
        self._add("", "")
        self.table.editItem(self.table.item(self.table.rowCount() - 1, 0))

    def _add(self, key: str, value: object) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, 0, QTableWidgetItem(key))
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        item = QTableWidgetItem(shown)
        # The file's value, kept while the cell shows it unchanged: a number or a null
        # (which core refuses, and says so) is not turned into text behind the user's back.
        item.setData(FILE_VALUE, (shown, value))
        self.table.setItem(row, 1, item)

    def set_value(self, env: dict) -> None:
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for key, value in env.items():
            self._add(str(key), value)
        self.table.blockSignals(False)
        self.changed.emit()

    def value(self) -> dict[str, object]:
        """Rows with a name (a value may be empty); a row being typed without a name is left
        out, so it does not show as an error until it has one."""
        out = {}
        for row in range(self.table.rowCount()):
            key = (self.table.item(row, 0).text() if self.table.item(row, 0) else "").strip()
            item = self.table.item(row, 1)
            value: object = item.text() if item else ""
            loaded = item.data(FILE_VALUE) if item else None
            if loaded is not None and loaded[0] == value:
                value = loaded[1]
            if key:
                out[key] = value
        return out
