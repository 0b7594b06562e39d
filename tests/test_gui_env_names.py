"""The Cluster view's variable editor refuses what every export and ``validate`` refuse: a
variable name that is no identifier (no shell can set it), with core's words."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from tests.conftest import tensordeck

pytest_plugins = ["tests.gui_fixtures"]


def _type_new_variable(qtbot, editor, name: str) -> None:
    """Click "Add variable", type the name in the cell it opens, press Enter (as a person)."""
    qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)
    cell = QApplication.focusWidget()
    assert isinstance(cell, QLineEdit), cell
    qtbot.keyClicks(cell, name)
    qtbot.keyClick(cell, Qt.Key.Key_Return)


def test_a_variable_name_no_shell_can_set_is_refused_as_the_cli_refuses_it(qtbot, window,
                                                                        tmp_path):
    cluster = window.cluster
    label = cluster.problem_labels["env"]
    _type_new_variable(qtbot, cluster.env, "X;touch F")
    qtbot.waitUntil(lambda: not label.isHidden())
    assert "'X;touch F' is not a valid variable name" in label.text()
    assert "no shell can export such a name" in label.text()
    (tmp_path / "train.py").write_text("")
    cluster.script.setText(str(tmp_path / "train.py"))
    path = cluster.save(tmp_path / "job.json")
    assert json.loads(path.read_text())["env"] == {"X;touch F": ""}
    said = tensordeck("validate", str(path)).stderr
    assert next(p for p in cluster.problems if p.where == "env").message in said
    cell = cluster.env.table.item(cluster.env.table.rowCount() - 1, 0)
    cell.setText("X_OK")
    qtbot.waitUntil(lambda: label.isHidden())
