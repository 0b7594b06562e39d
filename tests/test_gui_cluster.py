"""The Cluster view: forms <-> the config file the CLI runs, and validation as you type."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys

import pytest
from PySide6.QtCore import Qt

from core.gpu import read_gpus
from tests.conftest import EXAMPLES, tensordeck
from tests.gui_fixtures import NOT_PYTHON, click_when_shown, retype

pytest_plugins = ["tests.gui_fixtures"]


def test_opening_quickstart_shows_it_and_saves_it_unchanged(qtbot, window, tmp_path):
    for name in ("quickstart.json", "train_ps.py"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    assert window.open_file(str(tmp_path / "quickstart.json"))
    cluster = window.cluster
    assert cluster.strategy.currentData() == "parameter_server"
    assert cluster.tasks.table.rowCount() == 3
    assert cluster.problems == []
    shipped = json.loads((EXAMPLES / "quickstart.json").read_text())
    assert cluster.to_dict() == shipped
    assert json.loads(cluster.preview.toPlainText()) == shipped
    out = tmp_path / "copy.json"
    cluster.save(out)
    assert json.loads(out.read_text()) == shipped
    assert window.settings.recent_files() == [str(tmp_path / "quickstart.json")]


def test_an_edit_shows_a_message_next_to_the_field_and_fixing_it_clears_it(qtbot, window):
    cluster = window.cluster
    label = cluster.problem_labels["name"]
    assert label.isHidden()
    cluster.name.clear()
    qtbot.keyClicks(cluster.name, "bad/name")
    qtbot.waitUntil(lambda: not label.isHidden())
    assert "none of" in label.text()
    assert cluster.name.property("invalid") is True
    qtbot.keyClick(cluster.name, Qt.Key.Key_Backspace)
    qtbot.keyClicks(cluster.name, "-5")
    cluster.name.setText("good-name")
    qtbot.waitUntil(lambda: label.isHidden())
    assert cluster.name.property("invalid") is False
    assert cluster.problems == []


def test_task_problems_name_the_row(qtbot, window):
    cluster = window.cluster
    cluster.strategy.setCurrentIndex(cluster.strategy.findData("parameter_server"))
    cluster.tasks.set_value([{"role": "chief", "count": 2}, {"role": "worker"}, {"role": "ps"}])
    qtbot.waitUntil(lambda: not cluster.problem_labels["tasks"].isHidden())
    text = cluster.problem_labels["tasks"].text()
    assert "Row 1 (count): a cluster has at most one chief" in text
    retype(qtbot, cluster.tasks.cell(0, 1), "1")
    qtbot.waitUntil(lambda: cluster.problem_labels["tasks"].isHidden())


def test_gpu_checkboxes_offer_the_machines_gpus(qtbot, window, h200_nvml):
    window.machine.show_gpus(read_gpus(h200_nvml, processes=False))
    cluster = window.cluster
    assert cluster.no_gpu_note.isHidden()
    picker = cluster.tasks.cell(0, 4)
    actions = [a for a in picker.menu().actions() if a.isCheckable()]
    assert [a.text().split(":")[0] for a in actions] == ["GPU 0", "GPU 1"]
    actions[1].setChecked(True)
    assert cluster.to_dict()["tasks"][0]["gpus"] == [1]


def test_what_the_forms_save_is_what_the_cli_runs(qtbot, window, tmp_path):
    (tmp_path / "train.py").write_text("print('trained')\n")
    cluster = window.cluster
    cluster.name.setText("from-forms")
    cluster.script.setText(str(tmp_path / "train.py"))
    cluster.args.setText('--epochs 2 --note "two words"')  # quoted alike on Windows and POSIX
    cluster.env.set_value({"MY_FLAG": "1"})
    path = cluster.save(tmp_path / "job.json")
    saved = json.loads(path.read_text())
    assert saved["script"] == "train.py"  # relative to the config's folder
    assert saved["args"] == ["--epochs", "2", "--note", "two words"]
    result = tensordeck("--run", str(path), timeout=60)
    assert result.returncode == 0, result.stderr
    assert "trained" in result.stdout


def test_a_typed_windows_path_keeps_its_backslashes(qtbot, window, tmp_path, monkeypatch):
    from core import cmdline

    monkeypatch.setattr(cmdline, "WINDOWS", True)  # the rules the window uses on Windows
    cluster = window.cluster
    typed = r'--data C:\data\train "C:\My Data\x" --out \\server\share\ '
    expected = ["--data", r"C:\data\train", r"C:\My Data\x", "--out", "\\\\server\\share\\"]
    cluster.args.clear()
    qtbot.keyClicks(cluster.args, typed)
    assert cluster.args.text() == typed
    assert cluster.to_dict()["args"] == expected
    path = cluster.save(tmp_path / "job.json")
    assert json.loads(path.read_text())["args"] == expected
    assert window.open_file(str(path))  # the field shows the file's list, and means it again
    assert cluster.args.text() == typed.rstrip()
    assert cluster.to_dict()["args"] == expected


def test_an_unclosed_quote_is_a_message_next_to_the_field(qtbot, window):
    cluster = window.cluster
    label = cluster.problem_labels["args"]
    cluster.args.clear()
    qtbot.keyClicks(cluster.args, '--note "two words')
    qtbot.waitUntil(lambda: not label.isHidden())
    assert "not closed" in label.text()
    assert cluster.args.property("invalid") is True
    assert cluster.to_dict()["args"] == ["--note", '"two', "words"]  # the preview still shows it
    qtbot.keyClicks(cluster.args, '"')
    qtbot.waitUntil(lambda: label.isHidden())
    assert cluster.to_dict()["args"] == ["--note", "two words"]


def schema_enum(*path: str) -> list:
    """The values core's JSON Schema allows at ``path`` (null aside)."""
    from core.config import schema

    prop = schema()
    for key in path:
        prop = prop[key]
    options = prop.get("anyOf", [prop])
    return [v for option in options for v in option.get("enum", [option.get("const")])
            if v is not None]


def combo_values(combo) -> list:
    return [combo.itemData(i) for i in range(combo.count()) if combo.itemData(i) is not None]


def test_every_choice_core_accepts_is_offered_with_a_label(qtbot, window):
    cluster = window.cluster
    assert combo_values(cluster.strategy) == schema_enum("properties", "strategy")
    assert combo_values(cluster.cluster_spec) == schema_enum("properties", "cluster_spec")
    assert combo_values(cluster.cross_ops) == schema_enum("properties", "cross_device_ops")
    assert combo_values(cluster.restart_policy) == schema_enum(
        "$defs", "RestartPolicy", "properties", "policy")
    assert combo_values(cluster.tasks.cell(0, 0)) == []  # roles are the combo's texts
    role = cluster.tasks.cell(0, 0)
    assert [role.itemText(i) for i in range(role.count())] == schema_enum(
        "$defs", "TaskGroup", "properties", "role")
    for strategy in schema_enum("properties", "strategy"):
        cluster.strategy.setCurrentIndex(cluster.strategy.findData(strategy))
        assert cluster.strategy_help.text()  # each one explained in plain words
    assert cluster.restart_policy.itemText(1) == "On failure: restart the task"


def test_every_shipped_example_saved_by_the_window_loads_to_the_same_model(qtbot, window,
                                                                          tmp_path):
    from core.config import config_to_json, load_config

    examples = sorted(EXAMPLES.glob("*.json"))
    assert len(examples) >= 4
    cluster = window.cluster
    for example in examples:
        assert window.open_file(str(example))
        cluster.name.clear()
        qtbot.keyClicks(cluster.name, "edited")  # one edit by the user: only that changes
        saved = cluster.save(tmp_path / example.name)
        original, again = load_config(example), load_config(saved)
        assert again == dataclasses.replace(original, name="edited"), example.name
        data = json.loads(saved.read_text())
        dumped = config_to_json(again)
        assert [key for key in data if key in dumped] == list(dumped), example.name


def test_opening_a_config_with_errors_shows_what_the_cli_says_and_saves_it_unchanged(
        qtbot, window, tmp_path):
    (tmp_path / "train.py").write_text("print('x')\n")
    data = {"name": "bad", "strategy": "parameter_server", "script": "train.py",
            "tasks": [{"role": "worker", "count": 0}, {"role": "ps", "port": "23100"}],
            "restart": {"policy": "sometimes", "backoff_seconds": 0.125},
            "stop_grace_seconds": 7200, "colour": "red"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data, indent=1))
    cli = tensordeck("validate", str(path))
    assert cli.returncode == 2
    said = [line for line in cli.stderr.splitlines() if line.startswith(f"{path}: ")]
    assert len(said) == 4
    assert window.open_file(str(path))
    cluster = window.cluster
    assert [f"{path}: {p}" for p in cluster.problems] == said
    assert cluster.restart_policy.currentText() == "sometimes"  # what the file says
    assert cluster.grace.value() == 7200
    assert not cluster.dirty and cluster.to_dict() == data
    cluster.save()
    assert json.loads(path.read_text()) == data
    # An edit of one field writes that field; every other value stays the user's.
    cluster.grace.clear()
    qtbot.keyClicks(cluster.grace, "30")
    assert cluster.dirty
    cluster.save()
    assert json.loads(path.read_text()) == {**data, "stop_grace_seconds": 30}


def test_a_file_the_cli_refuses_to_read_is_refused_with_its_message(qtbot, window, tmp_path,
                                                                    monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: warnings.append(args[2]))
    path = tmp_path / "twice.json"
    path.write_text('{"name": "a", "strategy": "single", "script": "t.py", "name": "b"}')
    cli = tensordeck("validate", str(path))
    before = window.cluster.to_dict()
    assert not window.open_file(str(path))
    assert warnings == [cli.stderr.splitlines()[0]]
    assert "duplicate key 'name'" in warnings[0]
    assert window.cluster.to_dict() == before and window.cluster.path != path


def test_new_gpus_from_the_machine_view_are_not_an_edit(qtbot, window, h200_nvml, tmp_path):
    for name in ("quickstart.json", "train_ps.py"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    assert window.open_file(str(tmp_path / "quickstart.json"))
    window.machine.show_gpus(read_gpus(h200_nvml, processes=False))
    assert window.cluster.tasks.cell(0, 4).menu().actions()[-1].text().startswith("GPU 1")
    assert not window.cluster.dirty and "*" not in window.windowTitle()


def test_a_config_of_wrong_shapes_opens_with_core_s_problems_and_saves_unchanged(
        qtbot, window, tmp_path):
    from core.config import ConfigError, load_config

    data = {"name": 5, "script": ["a"], "args": "x", "python": 5, "tasks": "x", "env": [1],
            "nodes": [], "restart": [], "stop_grace_seconds": "ten",
            "cross_device_ops": {"a": 1}, "cluster_spec": 3, "run_dir": False, "address": 7}
    path = tmp_path / "shapes.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as core_says:
        load_config(path)
    assert window.open_file(str(path))
    cluster = window.cluster
    assert cluster.problems == core_says.value.problems
    assert cluster.problem_labels["strategy"].text() == "is required"
    assert cluster.strategy.currentText() == ""  # the file names none
    cluster.save()
    assert json.loads(path.read_text()) == data


def test_visiting_the_machine_view_changes_nothing_in_the_config(qtbot, window, tmp_path,
                                                                 this_python_probed):
    (tmp_path / "train.py").write_text("print('x')\n")
    path = tmp_path / "job.json"
    data = {"name": "t", "strategy": "parameter_server", "script": "train.py",
            "tasks": [{"role": "chief", "gpus": [1]}, {"role": "worker", "count": 2},
                      {"role": "ps", "gpus": []}]}
    path.write_text(json.dumps(data))
    assert window.open_file(str(path))
    nav = window.nav
    for _ in range(2):  # twice: the second visit finds the report made
        qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton,
                         pos=nav.visualItemRect(nav.item(0)).center())
        assert window.current_page() == "machine"
        qtbot.waitUntil(lambda: window.machine.report is not None, timeout=60_000)
        qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton,
                         pos=nav.visualItemRect(nav.item(1)).center())
        assert not window.cluster.dirty and "*" not in window.windowTitle()
    # Until its checks end (Refresh lit again): none may land in a later test's window.
    qtbot.waitUntil(window.machine.refresh_button.isEnabled, timeout=240_000)
    assert not window.cluster.dirty
    assert json.loads(window.cluster.to_json()) == data


def _validate_lines(path) -> list[str]:
    """The problems ``tensordeck validate`` prints for ``path``, as one line each."""
    result = tensordeck("validate", str(path), timeout=120)
    return [line.split(": ", 1)[1] for line in result.stderr.splitlines()
            if line.startswith(str(path))]


def test_the_status_says_what_validate_says_about_interpreters_and_ports(qtbot, window,
                                                                        tmp_path):
    import socket
    import sys

    program = NOT_PYTHON
    (tmp_path / "train.py").write_text("print('x')\n")
    not_python = tmp_path / "python.txt"
    not_python.write_text("print('I am text')\n")
    not_python.chmod(0o755)
    taken = socket.socket()
    taken.bind(("", 0))
    taken.listen()
    port = taken.getsockname()[1]
    path = tmp_path / "job.json"
    path.write_text(json.dumps({
        "name": "t", "strategy": "parameter_server", "script": "train.py", "python": program,
        "tasks": [{"role": "chief", "port": port}, {"role": "worker"}, {"role": "ps"}]}))
    cluster = window.cluster
    with qtbot.waitSignal(cluster.checked, timeout=60_000):
        assert window.open_file(str(path))
    label = cluster.problem_labels["python"]
    assert label.isVisible() and f"{program} does not run as a Python" in label.text()
    assert "\n" not in label.text() and "import" not in label.text()  # not the probe's code
    assert not cluster.status.text().startswith("Valid")
    assert [str(p) for p in cluster.problems] == _validate_lines(path)
    edit = cluster.python.lineEdit()
    for python in (str(not_python), sys.executable, program, sys.executable):
        with qtbot.waitSignal(cluster.checked, timeout=60_000):
            retype(qtbot, edit, python)
        with qtbot.waitSignal(cluster.checked, timeout=60_000):  # checked again once saved
            qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
        assert json.loads(path.read_text())["python"] == python
        assert [str(p) for p in cluster.problems] == _validate_lines(path), python
        shown = cluster.problem_labels["python"].text()
        assert (python in shown) == (python != sys.executable)
    # With a Python, the port in use is what is left, as the command line says it.
    assert [p.where for p in cluster.problems] == ["tasks[0].port"]
    assert str(port) in cluster.problem_labels["tasks"].text()
    taken.close()
    with qtbot.waitSignal(cluster.checked, timeout=60_000):
        retype(qtbot, cluster.name, "t2")
    assert cluster.problems == [] and cluster.status.text().startswith("Valid")


def test_use_for_this_job_on_a_machine_card_sets_the_jobs_interpreter(qtbot, window, tmp_path,
                                                                       this_python_probed):
    """The Machine view's check, then a click on an interpreter card's "Use for this job": the
    Cluster view shows that interpreter for the open job, which is now unsaved."""
    from gui.views.machine import InterpreterCard

    shutil.copy(EXAMPLES / "mirrored.json", tmp_path / "mirrored.json")
    assert window.open_file(str(tmp_path / "mirrored.json"))
    window.show_page("machine")
    qtbot.mouseClick(window.machine.refresh_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.machine.checking, timeout=240_000)
    [mine] = [c for c in window.machine.findChildren(InterpreterCard) if c.path == sys.executable]
    click_when_shown(qtbot, mine.use_button)
    assert window.current_page() == "cluster"
    assert window.cluster.python.currentText() == sys.executable
    assert window.cluster.dirty and window.windowTitle().startswith("mirrored.json *")


def _wheel(widget, steps: int = -1) -> None:
    """One notch of the mouse wheel over ``widget``'s middle, as Qt delivers it."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    middle = QPointF(widget.rect().center())
    event = QWheelEvent(middle, QPointF(widget.mapToGlobal(middle.toPoint())), QPoint(0, 0),
                        QPoint(0, 120 * steps), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_the_wheel_over_a_field_scrolls_past_it_without_changing_the_config(qtbot, window,
                                                                            tmp_path):
    """Scrolling the form over every combo and spin box (twice, both directions, out of
    order) changes nothing and marks nothing edited; a field the user clicked into still
    takes the wheel."""
    from PySide6.QtWidgets import QAbstractSpinBox, QComboBox

    for name in ("quickstart.json", "train_ps.py"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    assert window.open_file(str(tmp_path / "quickstart.json"))
    cluster = window.cluster
    before = cluster.to_dict()
    fields = [w for kind in (QComboBox, QAbstractSpinBox) for w in cluster.findChildren(kind)
              if w.isEnabled()]
    assert len(fields) >= 8, fields  # strategy, interpreter, restart policy, counts, roles ...
    for widget in [*fields, *reversed(fields)]:
        for steps in (-1, 1):
            _wheel(widget, steps)
    assert cluster.to_dict() == before and not cluster.dirty
    qtbot.mouseClick(cluster.strategy, Qt.MouseButton.LeftButton)  # opens its list
    cluster.strategy.hidePopup()
    assert cluster.strategy.hasFocus()
    start = cluster.strategy.currentIndex()
    _wheel(cluster.strategy, -1)
    assert cluster.strategy.currentIndex() != start and cluster.dirty


def test_an_unknown_key_can_be_removed_from_the_window(qtbot, window, tmp_path):
    shutil.copy(EXAMPLES / "train_ps.py", tmp_path / "train_ps.py")
    data = json.loads((EXAMPLES / "quickstart.json").read_text())
    path = tmp_path / "job.json"
    path.write_text(json.dumps({**data, "colour": "blue", "gpu_count": 2}))
    assert window.open_file(str(path))
    cluster = window.cluster
    button = cluster.remove_unknown
    assert button.isVisible() and button.text() == "Remove the unknown keys: colour, gpu_count"
    assert any("unknown key" in str(p) for p in cluster.problems)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert not button.isVisible() and cluster.dirty and cluster.problems == []
    assert "colour" not in json.loads(cluster.preview.toPlainText())
    qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert json.loads(path.read_text()) == data and not cluster.dirty
    assert tensordeck("validate", str(path)).returncode == 0


def test_saving_an_unedited_file_keeps_it_byte_for_byte_and_an_undone_edit_is_none(
        qtbot, window, tmp_path):
    """Ctrl+S of a file nobody edited does not reformat it; typing a value back as it was
    clears the * mark (twice, in the name and in a spin box), and Ctrl+S still leaves it."""
    shutil.copy(EXAMPLES / "train_ps.py", tmp_path / "train_ps.py")
    data = json.loads((EXAMPLES / "quickstart.json").read_text())
    path = tmp_path / "job.json"
    written = json.dumps(data, separators=(",", ":"))  # the user's own compact layout
    path.write_text(written)
    assert window.open_file(str(path))
    cluster = window.cluster
    qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert path.read_text() == written
    for _ in range(2):
        qtbot.keyClicks(cluster.name, "x")
        assert cluster.dirty and cluster.path_label.text().endswith(" *")
        assert " *" in window.windowTitle()
        qtbot.keyClick(cluster.name, Qt.Key.Key_Backspace)
        assert not cluster.dirty and not cluster.path_label.text().endswith("*")
        assert " *" not in window.windowTitle()
    grace = cluster.grace.value()
    cluster.grace.setValue(grace + 1)
    assert cluster.dirty
    cluster.grace.setValue(grace)
    assert not cluster.dirty
    qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert path.read_text() == written


def test_every_problem_shows_at_once_next_to_its_field(qtbot, window, tmp_path):
    """A wrong name does not hide the missing chief, nor what the background check finds in
    the interpreter; fixing the name leaves the other two, as validate lists them."""
    (tmp_path / "train.py").write_text("print('ok')\n")
    (tmp_path / "notes.txt").write_text("not a program\n")
    path = tmp_path / "job.json"
    path.write_text(json.dumps({
        "name": "a/b", "strategy": "parameter_server", "script": "train.py",
        "python": "notes.txt", "tasks": [{"role": "worker", "count": 2}, {"role": "ps"}]}))
    assert window.open_file(str(path))
    cluster = window.cluster
    labels = cluster.problem_labels
    assert labels["name"].isVisible() and "chief" in labels["tasks"].text()
    with qtbot.waitSignal(cluster.checked, timeout=60_000):
        pass
    assert labels["python"].isVisible() and labels["name"].isVisible()
    assert "chief" in labels["tasks"].text()
    retype(qtbot, cluster.name, "job")
    qtbot.waitUntil(lambda: not labels["name"].isVisible() and labels["python"].isVisible(),
                    timeout=60_000)
    assert "chief" in labels["tasks"].text()
    listed = tensordeck("validate", str(path)).stderr  # the file still says a/b
    assert all(words in listed for words in ("name:", "chief", "python:"))
