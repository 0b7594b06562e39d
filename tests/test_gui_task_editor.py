"""The task editor's per-entry restart policy, as a real widget (offscreen) and through the
Cluster view's editor and its validation."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from core.config import parse_config
from gui.widgets.task_editor import RESTART_COLUMN, TaskEditor
from tests.conftest import tensordeck
from tests.gui_fixtures import retype

pytest_plugins = ["tests.gui_fixtures"]

ENTRIES = [
    {"role": "chief"},
    {"role": "worker", "count": 2,
     "restart": {"policy": "on_failure", "max_restarts": 4, "backoff_seconds": 2.5}},
    {"role": "ps", "restart": {"policy": "never"}},
]


def test_the_task_editor_offers_a_restart_policy_per_entry(qtbot):
    editor = TaskEditor()
    qtbot.addWidget(editor)
    editor.set_value(ENTRIES)
    assert editor.value() == ENTRIES  # the backoff, which has no control, is kept
    chief = editor.cell(0, RESTART_COLUMN)
    assert chief.policy.currentData() is None and not chief.max_restarts.isEnabled()
    with qtbot.waitSignal(editor.changed):
        chief.policy.setCurrentIndex(chief.policy.findData("on_failure"))
    assert chief.max_restarts.isEnabled()
    with qtbot.waitSignal(editor.changed):
        chief.max_restarts.setValue(2)
    assert editor.value()[0] == {"role": "chief",
                                 "restart": {"policy": "on_failure", "max_restarts": 2}}

    def job() -> dict:
        return {"name": "t", "strategy": "parameter_server", "script": "t.py",
                "tasks": editor.value()}

    cfg = parse_config(job())
    assert cfg.restart_for("chief", 0).max_restarts == 2
    assert cfg.restart_for("worker", 1).backoff_seconds == 2.5
    assert cfg.restart_for("ps", 0).policy == "never"
    editor.cell(1, RESTART_COLUMN).policy.setCurrentIndex(0)  # back to the job's policy
    assert "restart" not in editor.value()[1]
    assert parse_config(job()).restart_for("worker", 0).max_restarts == 3  # the default


def test_the_cluster_view_keeps_and_checks_an_entrys_restart(qtbot, window, tmp_path):
    (tmp_path / "train.py").write_text("print('x')\n")
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"name": "t", "strategy": "parameter_server",
                                "script": "train.py", "tasks": ENTRIES}))
    assert window.open_file(str(path))
    cluster = window.cluster
    assert json.loads(cluster.to_json())["tasks"] == ENTRIES
    assert cluster.validate() == []
    # A bad restart in the file is shown as it is, with validation's one line for it.
    broken = [*ENTRIES[:2], {"role": "ps", "restart": {"policy": "on_failure",
                                                       "max_restarts": 0}}]
    path.write_text(json.dumps({"name": "t", "strategy": "parameter_server",
                                "script": "train.py", "tasks": broken}))
    assert window.open_file(str(path))
    assert json.loads(cluster.to_json())["tasks"] == broken
    assert [str(p) for p in cluster.validate()] == [
        "tasks[2].restart: policy 'on_failure' needs max_restarts >= 1"]


#: The issue's broken file: count 0, the port as a string, an unknown policy, no chief (in
#: parameter_server) and a key core does not know.
BROKEN = {"name": "t", "strategy": "parameter_server", "script": "train.py",
          "tasks": [{"role": "worker", "count": 0}, {"role": "ps", "port": "23100"}],
          "restart": {"policy": "sometimes"}, "colour": "blue"}


def _save(qtbot, window) -> dict:
    qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    return json.loads(window.cluster.path.read_text())


def test_a_broken_file_opens_as_it_is_with_the_clis_problems_and_saves_unchanged(
        qtbot, window, tmp_path):
    (tmp_path / "train.py").write_text("print('x')\n")
    path = tmp_path / "job.json"
    path.write_text(json.dumps(BROKEN))
    cli = tensordeck("validate", str(path), timeout=120)
    assert cli.returncode == 2
    cli_problems = [line.split(": ", 1)[1] for line in cli.stderr.splitlines()
                    if line.startswith(str(path))]
    assert window.open_file(str(path))
    window.activateWindow()
    cluster, editor = window.cluster, window.cluster.tasks
    assert editor.cell(0, 1).text() == "0"
    assert editor.cell(1, 3).text() == '"23100"'  # a string, shown as one, not as "auto"
    assert cluster.restart_policy.currentText() == "sometimes"
    assert [str(p) for p in cluster.problems] == cli_problems and len(cli_problems) >= 3
    assert all(cluster.problem_labels[key].isVisible() for key in ("tasks", "restart"))
    assert _save(qtbot, window) == BROKEN
    # One cell edited: that key of that row changes, the broken values elsewhere stay.
    retype(qtbot, editor.cell(1, 2), "127.0.0.2")
    assert _save(qtbot, window)["tasks"] == [
        {"role": "worker", "count": 0}, {"role": "ps", "port": "23100", "host": "127.0.0.2"}]
    retype(qtbot, editor.cell(0, 1), "1000")  # core allows up to 1024 tasks in an entry
    qtbot.waitUntil(lambda: not any("count" in str(p) for p in cluster.problems))
    retype(qtbot, editor.cell(1, 3), "23100")
    retype(qtbot, editor.cell(1, 2), "")  # back to the default host: the key goes
    assert _save(qtbot, window)["tasks"] == [{"role": "worker", "count": 1000},
                                             {"role": "ps", "port": 23100}]
    retype(qtbot, editor.cell(1, 3), "")  # auto again
    assert _save(qtbot, window)["tasks"][1] == {"role": "ps"}


def test_the_editor_says_core_s_defaults_and_bounds(qtbot):
    from core.config import MAX_TASKS

    editor = TaskEditor()
    qtbot.addWidget(editor)
    editor.set_value([{"role": "worker"}])
    count, host, port = (editor.cell(0, col) for col in (1, 2, 3))
    assert host.text() == "localhost" and count.placeholderText() == "1"
    assert "65535" in port.toolTip() and port.placeholderText() == "auto"
    for text in (str(MAX_TASKS), "-1", "x y", '"7"', "[1]"):
        retype(qtbot, count, text)
        assert editor.value() == [{"role": "worker", "count": json.loads(text)}
                                  if text != "x y" else {"role": "worker", "count": "x y"}]
    hostile = "$(id>PWN); rm -rf / \u202e\x00"  # pasted: QTest cannot type a NUL
    QApplication.clipboard().setText(hostile)
    retype(qtbot, host, "")
    qtbot.keyClick(host, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert editor.value()[0]["host"] == hostile.strip()
    problems = [str(p) for p in _problems({"name": "t", "strategy": "single", "script": "t.py",
                                           "tasks": editor.value()})]
    assert any(p.startswith("tasks[0]") for p in problems)


def _problems(data: dict) -> list:
    from core.config import ConfigError

    try:
        parse_config(data)
    except ConfigError as exc:
        return exc.problems
    return []


def test_nodes_and_env_keep_the_files_values_until_their_cell_is_edited(qtbot, window,
                                                                        tmp_path):
    (tmp_path / "train.py").write_text("print('x')\n")
    path = tmp_path / "job.json"
    data = {"name": "t", "strategy": "parameter_server", "script": "train.py",
            "tasks": [{"role": "chief"}, {"role": "worker", "node": "a"}, {"role": "ps"}],
            "nodes": {"a": {"host": "10.0.0.2", "python": "python3", "port": "2222",
                            "password": "yes", "shell": "posix"},
                      "b": {"host": 7, "python": "python3"}},
            "env": {"SEED": 5, "MODE": None, "PLAIN": "x"}}
    path.write_text(json.dumps(data))
    assert window.open_file(str(path))
    window.activateWindow()
    cluster = window.cluster
    nodes, env = cluster.nodes, cluster.env
    assert nodes.cell(1, 1).text() == "7" and env.table.item(0, 1).text() == "5"
    retype(qtbot, cluster.name, "t2")  # an edit elsewhere changes none of them
    saved = _save(qtbot, window)
    assert saved["nodes"] == data["nodes"] and saved["env"] == data["env"]
    retype(qtbot, nodes.cell(1, 1), "10.0.0.3")  # one cell: its key only
    env.table.item(0, 1).setText("6")  # what typing into the cell ends with
    saved = _save(qtbot, window)
    assert saved["nodes"]["b"] == {"host": "10.0.0.3", "python": "python3"}
    assert saved["nodes"]["a"] == data["nodes"]["a"]
    assert saved["env"] == {"SEED": "6", "MODE": None, "PLAIN": "x"}
    retype(qtbot, nodes.cell(0, 5), "/srv/runs")  # the work folder of a
    nodes.password_box(0).click()  # shown unticked ("yes" is not true): ticked now
    saved = _save(qtbot, window)
    assert saved["nodes"]["a"] == {**data["nodes"]["a"], "workdir": "/srv/runs",
                                   "password": True}
