"""Under the Chinese UI, the Cluster view says a config's field problems in Chinese (core.config
writes them from core.messages' catalogue, the window says them in its language); the file and
``tensordeck validate`` keep English."""

from __future__ import annotations

import json

from core.config import ConfigError, load_config
from tests.gui_fixtures import CHINESE

pytest_plugins = ["tests.gui_fixtures"]


def test_field_problems_read_in_chinese(qtbot, qapp, window, tmp_path):
    from gui.i18n import install_translators

    path = tmp_path / "job.json"
    path.write_text(json.dumps({"name": "t", "script": "train.py", "strategy": "mirrored",
                                "tasks": [{"role": "worker", "count": 0, "colour": "red"}],
                                "stop_grace_seconds": -1}))
    try:
        load_config(path)
    except ConfigError as exc:
        english = [p.message for p in exc.problems]
    assert any(m.startswith("must be >= ") for m in english)
    assert any(m.startswith("unknown key") for m in english)
    try:
        install_translators(qapp, "zh_CN")
        assert window.open_file(str(path))
        labels = window.cluster.problem_labels
        tasks, grace = labels["tasks"].text(), labels["stop_grace_seconds"].text()
    finally:
        install_translators(qapp, "en")
    assert "未知的键" in tasks and "必须 >= 1" in tasks, tasks
    assert CHINESE.search(grace) and "must be" not in grace, grace


#: A config whose fields break the type rules and the value rules (core.config.value_rules and
#: the records' own checks: ValueError texts), each message English in the file's terms.
RULE_BREAKER = {"name": "a/b", "script": "train.py", "strategy": "mirrored",
                "tasks": [{"role": "worker", "count": "2", "gpus": [0, 0], "host": "bad host"}],
                "env": {"TF_CONFIG": "{}", "1X": "y"}, "args": "--epochs 3",
                "restart": {"policy": "on_failure", "max_restarts": 0},
                "stop_grace_seconds": None}
#: What the English says, and that no label may still say under the Chinese UI.
ENGLISH_WORDS = ("must be", "not a", "remove it", "is not a", "twice", "rename it", "needs")


def _problems_of(path) -> list[str]:
    try:
        load_config(path)
    except ConfigError as exc:
        return [str(p) for p in exc.problems]
    raise AssertionError("the config was accepted")


def test_type_and_value_rule_problems_read_in_chinese(qtbot, qapp, window, tmp_path):
    """The type words ("must be an integer, not a string") and the value rules' texts (a GPU
    listed twice, a host name, a reserved variable, on_failure without restarts, the job
    name) next to their fields, in Chinese; validate keeps English."""
    from gui.i18n import install_translators

    path = tmp_path / "job.json"
    path.write_text(json.dumps(RULE_BREAKER))
    english = "\n".join(_problems_of(path))
    for said in ("tasks[0].count: must be an integer, not a string", "lists a GPU twice",
                 "'bad host' is not a host name", "TF_CONFIG is set by TensorDeck",
                 "args: must be a list, not a string", "must be a number, not null",
                 "needs max_restarts >= 1", "name: must be 1-64 characters"):
        assert said in english, english
    try:
        install_translators(qapp, "zh_CN")
        assert window.open_file(str(path))
        labels = window.cluster.problem_labels
        shown = {key: labels[key].text() for key in ("name", "tasks", "env", "args", "restart",
                                                     "stop_grace_seconds")}
    finally:
        install_translators(qapp, "en")
    for key, text in shown.items():
        assert CHINESE.search(text), (key, text)
        assert not any(word in text for word in ENGLISH_WORDS), (key, text)
    assert "必须是整数，而不是字符串" in shown["tasks"] and "同一个 GPU 列了两次" in shown["tasks"]
    assert "'bad host' 不是主机名" in shown["tasks"]  # the file's own value, as it wrote it
    assert "必须是列表，而不是字符串" in shown["args"]
    assert "必须是数字，而不是空值 null" in shown["stop_grace_seconds"]
    assert "由 TensorDeck 为每个任务设置" in shown["env"]


def test_f5_on_a_broken_config_says_its_problems_in_chinese(qtbot, qapp, window, tmp_path,
                                                              monkeypatch):
    """F5 with a config that cannot run: the window's refusal lists every problem in
    Chinese, each at its place in the file; a refusal core raises reads the same."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    from gui.i18n import install_translators
    from gui.refusal import refusal_problems

    path = tmp_path / "job.json"
    path.write_text(json.dumps(RULE_BREAKER))
    said: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda parent, title, text, *rest: said.append((title, text)))
    try:
        install_translators(qapp, "zh_CN")
        assert window.open_file(str(path))
        window.activateWindow()
        qtbot.keyClick(window, Qt.Key.Key_F5)
        qtbot.waitUntil(lambda: bool(said))
        try:
            load_config(path)
        except ConfigError as exc:
            refused = refusal_problems(exc)
    finally:
        install_translators(qapp, "en")
    (title, text), = said
    lines = text.splitlines()
    places = [line.split(": ")[0] for line in lines]
    assert CHINESE.search(title), title
    assert all(p.split(": ")[0] in places for p in _problems_of(path)), lines
    assert "tasks[0].count: 必须是整数，而不是字符串" in lines, lines
    for line in lines + refused:
        assert CHINESE.search(line) and not any(w in line for w in ENGLISH_WORDS), line
    assert window.current_page() == "cluster"
