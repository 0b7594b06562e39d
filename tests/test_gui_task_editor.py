"""The task editor's per-entry restart policy, as a real widget (offscreen) and through the
Cluster view's editor and its validation."""

from __future__ import annotations

import json

from core.config import parse_config
from gui.widgets.task_editor import RESTART_COLUMN, TaskEditor

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
