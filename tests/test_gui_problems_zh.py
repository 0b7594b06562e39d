"""Under the Chinese UI, what a config's fields say together (core.config.cross_field: no chief,
a port twice, an unknown node) and what its JSON holds that no field may (core.config.json_checks:
a key given twice) read in Chinese: in the Cluster view, in F5's refusal, in "Cannot open" and in
the run's refusal. Core raises them with their message ids; the file and ``tensordeck
validate`` keep English (tests/test_messages.py)."""

from __future__ import annotations

import json
import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from core.config import ConfigError, load_config
from tests.gui_fixtures import CHINESE

pytest_plugins = ["tests.gui_fixtures"]

#: A parameter_server job without its chief, two tasks on one port, a task on a node nobody
#: defined.
CROSS_FIELD = {"name": "t", "script": "train.py", "strategy": "parameter_server",
               "tasks": [{"role": "worker", "count": 2, "port": 2222},
                         {"role": "ps", "port": 2223}, {"role": "worker", "node": "ghost"}]}
#: What the English says, and no text under the Chinese UI may still say.
ENGLISH = re.compile(r"\b(needs|exactly|is also used|every task|no node|none defined|"
                     r"duplicate key|gives it twice|keep one)\b")


@pytest.fixture
def said(monkeypatch) -> list[tuple[str, str]]:
    """The message boxes' (title, text), instead of showing them."""
    boxes: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda parent, title, text, *rest: boxes.append((title, text)))
    return boxes


def _english_problems(path) -> list[str]:
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    return [str(p) for p in refused.value.problems]


def _all_chinese(lines: list[str]) -> None:
    for line in lines:
        assert CHINESE.search(line) and not ENGLISH.search(line), line


def test_cross_field_problems_read_in_chinese_in_the_view_and_f5(qtbot, window, chinese, said,
                                                                 tmp_path):
    path = tmp_path / "job.json"
    path.write_text(json.dumps(CROSS_FIELD))
    (tmp_path / "train.py").write_text("print('x')\n")
    english = "\n".join(_english_problems(path))
    for words in ("tasks: parameter_server needs exactly one chief (the coordinator)",
                  "tasks[1].port: port 2223 is also used by tasks[0]",
                  "tasks[2].node: no node 'ghost' (nodes: none defined)"):
        assert words in english, english
    assert window.open_file(str(path))
    tasks = window.cluster.problem_labels["tasks"].text()
    assert "需要恰好一个 chief" in tasks and "也被 tasks[0] 使用" in tasks, tasks
    assert "没有名为 'ghost' 的节点（节点：未定义任何节点）" in tasks, tasks
    _all_chinese([*tasks.splitlines(), window.cluster.status.text()])
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: bool(said))
    (title, text), = said
    assert CHINESE.search(title), title
    lines = text.splitlines()
    assert "tasks[1].port: 端口 2223 也被 tasks[0] 使用；每个任务都需要自己的端口" in lines, lines
    _all_chinese(lines)
    assert window.current_page() == "cluster"


def test_a_key_given_twice_reads_in_chinese_when_opened_and_when_run(qtbot, window, chinese,
                                                                     said, tmp_path):
    """Opening a file that gives a key twice: "Cannot open" says so in Chinese. A file that
    gains one after it was opened: the run's refusal (core read the file) says so too."""
    path = tmp_path / "job.json"
    twice = '{"name": "t", "name": "u", "script": "train.py", "tasks": [{"role": "worker"}]}'
    path.write_text(twice)
    (tmp_path / "train.py").write_text("print('x')\n")
    assert _english_problems(path) == ["name: duplicate key 'name': the file gives it twice; "
                                       "keep one"]
    assert not window.open_file(str(path))
    (title, text), = said
    assert text == f"{path}: name: 重复的键 'name'：文件中出现了两次；请只保留一个", text
    said.clear()
    path.write_text(json.dumps({"name": "t", "script": "train.py", "strategy": "single",
                                "tasks": [{"role": "worker"}]}))
    assert window.open_file(str(path))
    path.write_text(twice.replace('"tasks"', '"strategy": "single", "tasks"'))
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: bool(said), timeout=60_000)
    (title, text), = said
    assert "name: 重复的键 'name'：文件中出现了两次；请只保留一个" in text.splitlines(), text
    _all_chinese([title, *text.splitlines()[2:]])
    window.run_view.shutdown(timeout=10)


def test_a_schema_link_that_is_not_a_string_reads_in_chinese(qtbot, window, chinese, said,
                                                             tmp_path):
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"$schema": 5, "name": "t", "script": "train.py",
                                "tasks": [{"role": "worker"}]}))
    assert _english_problems(path) == ["$schema: must be a string"]  # the file's English
    assert window.open_file(str(path))  # opened, its problem shown with the form
    shown = window.cluster.problem_labels[""].text()
    assert "$schema: 必须是字符串" in shown.splitlines(), shown
    assert "must be a string" not in shown
