"""Under the Chinese UI, the Cluster view says a config's field problems in Chinese (core.config
writes them from core.messages' catalogue, the window says them in its language); the file and
``tensordeck validate`` keep English."""

from __future__ import annotations

import json
import re

from core.config import ConfigError, load_config

pytest_plugins = ["tests.gui_fixtures"]

CHINESE = re.compile("[\u4e00-\u9fff]")


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
