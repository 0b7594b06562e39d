"""The window's log says every run event with the console's words (core.describe), in the
window's language: each event type goes through the Run view's real path (the session's
``events`` signal) in English and in Chinese."""

from __future__ import annotations

import json

import pytest

from core.config import parse_config
from core.describe import describe_event
from core.topology import plan_run
from tests.test_describe import SHOWN, sample

pytest_plugins = ["tests.gui_fixtures"]


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_run_views_log_says_every_event_as_the_console_does(qtbot, qapp, window, tmp_path,
                                                                 language):
    from gui.i18n import install_translators

    (tmp_path / "task.py").write_text("print('hi')\n")
    config = {"name": "t", "strategy": "multi_worker_mirrored", "script": "task.py",
              "tasks": [{"role": "worker", "count": 2}]}
    (tmp_path / "job.json").write_text(json.dumps(config))
    plan = plan_run(parse_config(config), tmp_path / "job.json", run_dir=tmp_path / "run")
    plan.release_ports()
    view = window.run_view
    window.show_page("run")
    try:
        install_translators(qapp, language)
        view.session.planned.emit(plan)
        for kind in SHOWN:
            event = sample(kind)
            view.session.events.emit([event])
            shown = view.logs.combined.toPlainText()
            assert describe_event(event, language) in shown, (kind.__name__, shown[-300:])
    finally:
        install_translators(qapp, "en")
