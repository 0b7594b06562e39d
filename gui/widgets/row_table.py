"""The shape shared by the task, machine and environment editors: a table of rows with
"Add" and "Remove selected" under it, and one ``changed`` signal."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from gui.widgets.columns import stretch_readably


class RowTable(QWidget):
    """Subclasses name the columns and the add button, add rows in :meth:`add_clicked`, and
    may clean up in :meth:`row_removed`. The columns ``stretch`` (default: all) share the
    table's width, none narrower than its header's text or its ``minimum``."""

    changed = Signal()

    def __init__(self, columns: int, min_height: int, parent: QWidget | None = None, *,
                 stretch: Iterable[int] | None = None,
                 minimum: Mapping[int, int] | None = None) -> None:
        super().__init__(parent)
        self.table = QTableWidget(0, columns)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        stretch_readably(self.table, range(columns) if stretch is None else stretch, minimum)
        self.table.setMinimumHeight(min_height)
        self.add_button = QPushButton()
        self.remove_button = QPushButton(self.tr("Remove selected"))
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        self.add_button.clicked.connect(self.add_clicked)
        self.remove_button.clicked.connect(self.remove_selected)

    def add_clicked(self) -> None:
        raise NotImplementedError

    def row_removed(self, row: int) -> None:
        """Called after ``row`` left the table (bottom rows first)."""

    def remove_selected(self) -> None:
        """Remove the selected rows, or the last one when none is selected."""
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        if not rows and self.table.rowCount():
            rows = [self.table.rowCount() - 1]
        for row in rows:
            self.table.removeRow(row)
            self.row_removed(row)
        self.changed.emit()
