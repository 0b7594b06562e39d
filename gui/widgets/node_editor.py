"""The ``nodes`` of a config as a table: one row per machine of the LAN that runs tasks, reached
over SSH. Keys the table does not show (``shell``, ``script``) are kept per row."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from core.config import Node
from core.jobfile import bounds, default
from gui.widgets.row_table import RowTable

#: The columns edited as text: column -> config key.
_TEXT_COLUMNS = {0: "name", 1: "host", 2: "user", 4: "python", 5: "workdir", 6: "address",
                 7: "key_file"}
PORT_COLUMN = 3
PASSWORD_COLUMN = 8
DEFAULT_WORKDIR = default(Node, "workdir")
DEFAULT_PORT = default(Node, "port")


class NodeEditor(RowTable):
    """Rows of (name, host, user, port, python, workdir, address, key file, password from the
    keyring); ``changed`` on every edit."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(9, 110, parent)
        # Per row: the node as the file says it, and what its cells showed of it. A cell the
        # user has not changed keeps the file's value (one the cell cannot show included).
        self._files: list[tuple[dict, dict[str, object]]] = []
        self.table.setHorizontalHeaderLabels([
            self.tr("Name"), self.tr("Host"), self.tr("User"), self.tr("SSH port"),
            self.tr("Python"), self.tr("Work folder"), self.tr("Address"), self.tr("Key file"),
            self.tr("Password")])
        self.table.horizontalHeaderItem(PASSWORD_COLUMN).setToolTip(self.tr(
            "Log in with the password stored in the system keyring (tensordeck login CONFIG "
            "NODE stores it; it never goes into the file)."))
        self.add_button.setText(self.tr("Add machine"))

    def cell(self, row: int, col: int) -> QWidget:
        return self.table.cellWidget(row, col)

    def add_row(self, name: str, node: dict) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        values = {"name": name, **node}
        for col, key in _TEXT_COLUMNS.items():
            value = values.get(key)
            edit = QLineEdit("" if value is None else value if isinstance(value, str)
                             else json.dumps(value, ensure_ascii=False))
            if key == "workdir":
                edit.setPlaceholderText(DEFAULT_WORKDIR)
            elif key == "user":
                edit.setPlaceholderText(self.tr("your user name"))
            elif key == "address":
                edit.setPlaceholderText(self.tr("same as host"))
            elif key == "key_file":
                edit.setPlaceholderText(self.tr("agent, ~/.ssh"))
            edit.textChanged.connect(self.changed)
            self.table.setCellWidget(row, col, edit)
        port = QSpinBox()
        port.setRange(*bounds(Node, "port"))
        port.setValue(node["port"] if isinstance(node.get("port"), int) else DEFAULT_PORT)
        port.valueChanged.connect(self.changed)
        self.table.setCellWidget(row, PORT_COLUMN, port)
        password = QCheckBox()
        password.setChecked(node.get("password") is True)
        password.toggled.connect(self.changed)
        holder = QWidget()
        centred = QHBoxLayout(holder)
        centred.setContentsMargins(0, 0, 0, 0)
        centred.setAlignment(Qt.AlignmentFlag.AlignCenter)
        centred.addWidget(password)
        self.table.setCellWidget(row, PASSWORD_COLUMN, holder)
        self._files.append((dict(node), self._cells(row)))
        self.changed.emit()

    def _cells(self, row: int) -> dict[str, object]:
        """What each cell of ``row`` shows, by config key (the name aside)."""
        shown: dict[str, object] = {key: self.cell(row, col).text().strip()
                                    for col, key in _TEXT_COLUMNS.items() if key != "name"}
        shown["port"] = self.cell(row, PORT_COLUMN).value()
        shown["password"] = self.password_box(row).isChecked()
        return shown

    def password_box(self, row: int) -> QCheckBox:
        return self.cell(row, PASSWORD_COLUMN).findChild(QCheckBox)

    def add_clicked(self) -> None:
        taken = set(self.names())
        number = self.table.rowCount() + 1
        while f"node{number}" in taken:
            number += 1
        self.add_row(f"node{number}", {})

    def row_removed(self, row: int) -> None:
        del self._files[row]

    def set_value(self, nodes: dict) -> None:
        self.blockSignals(True)
        self.table.setRowCount(0)
        self._files = []
        for name, node in nodes.items():
            self.add_row(str(name), node if isinstance(node, dict) else {})
        self.blockSignals(False)
        self.changed.emit()

    def names(self) -> list[str]:
        return [self.cell(row, 0).text().strip() for row in range(self.table.rowCount())]

    def duplicate_names(self) -> list[str]:
        """Names given to two rows, or empty: the file would keep only one of them."""
        names = self.names()
        return sorted({n for n in names if names.count(n) > 1 or not n})

    def value(self) -> dict[str, dict]:
        """The nodes as the config file says them: as loaded, with the cells the user changed
        (a cell back at its default leaves its key out)."""
        out: dict[str, dict] = {}
        for row, name in enumerate(self.names()):
            loaded, shown = self._files[row]
            node = dict(loaded)
            for key, now in self._cells(row).items():
                if now == shown[key]:
                    continue
                if now in ("", False) or (key, now) in (("workdir", DEFAULT_WORKDIR),
                                                        ("port", DEFAULT_PORT)):
                    node.pop(key, None)  # an empty host or python: "is required" shows
                else:
                    node[key] = now
            out.setdefault(name, node)
        return out
