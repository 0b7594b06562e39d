"""The ``env`` of a config: a two-column table of variable names and values."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidgetItem, QWidget

from gui.widgets.row_table import RowTable


class EnvEditor(RowTable):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(2, 100, parent)
        self.table.setHorizontalHeaderLabels([self.tr("Variable"), self.tr("Value")])
        self.add_button.setText(self.tr("Add variable"))
        self.table.itemChanged.connect(self.changed)

    def add_clicked(self) -> None:
        self._add("", "")
        self.table.editItem(self.table.item(self.table.rowCount() - 1, 0))

    def _add(self, key: str, value: str) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, 0, QTableWidgetItem(key))
        self.table.setItem(row, 1, QTableWidgetItem(value))

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
