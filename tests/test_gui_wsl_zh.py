"""Under the Chinese UI, WSL's refusals (core.wsl.refusals: WSL not installed, a WSL 1
distribution ...) read in Chinese in the Machine view: on the card of an interpreter inside WSL
that cannot be reached, and in the doctor's finding about it. Core keeps the English (its
``str()``, the command line's); the window says the refusal's message id in its language.
The environment builder's plan: tests/test_gui_envbuild_zh.py."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from tests.gui_fixtures import CHINESE
from tests.nvml_replay import ReplayNvml

pytest_plugins = ["tests.gui_fixtures"]


@pytest.mark.parametrize(("scenario", "python", "refusal"), [
    ("wsl", "wsl://Legacy/usr/bin/python3", "wsl1"),
    ("not-installed", "wsl://Ubuntu-22.04/usr/bin/python3", "not-installed"),
], ids=["wsl1", "not-installed"])
def test_an_unreachable_wsl_interpreter_reads_in_chinese(qtbot, chinese, this_python_probed,
                                                         wsl_standin, monkeypatch, scenario,
                                                         python, refusal):
    import core.wsl.discover as wsl_discover
    from core.interpreters.discover import add_user_interpreter
    from core.messages import tr
    from core.wsl.refusals import Wsl1Distribution, WslNotInstalled
    from gui.views.machine import FindingCard, InterpreterCard, MachineView

    wsl_standin.use(monkeypatch, scenario)
    # Only the interpreter asked for inside WSL: the survey's own Pythons are not the point.
    monkeypatch.setattr(wsl_discover, "survey_wsl",
                        lambda env=None, **_: wsl_discover.WslSurvey(None))
    add_user_interpreter(python)
    said = Wsl1Distribution("Legacy") if refusal == "wsl1" else WslNotInstalled()
    english, chinese_text = str(said), said.said("zh_CN")
    assert english == ("WSL distribution Legacy runs as WSL 1, which has no GPU: convert it "
                       "with 'wsl --set-version Legacy 2'" if refusal == "wsl1" else
                       "WSL is not installed: run 'wsl --install' in a terminal opened as "
                       "administrator, then restart Windows")
    assert CHINESE.search(chinese_text)
    view = MachineView(nvml=ReplayNvml({"init_error": "LIBRARY_NOT_FOUND", "system": {},
                                        "devices": []}))
    qtbot.addWidget(view)
    view.show()
    qtbot.mouseClick(view.refresh_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.checking, timeout=180_000)
    [card] = [c for c in view.findChildren(InterpreterCard) if c.path == python]
    assert card.summary.text() == (f"{tr('verdict.probe-failed', 'zh_CN')}: {python}: "
                                   f"{chinese_text}"), card.summary.text()
    [finding] = [f for f in view.findings if f.subject == python]
    assert english in finding.evidence  # core keeps English
    [finding_card] = [c for c in view.findChildren(FindingCard) if finding.title_in() in
                      [label.text() for label in c.findChildren(QLabel)]]
    texts = [label.text() for label in finding_card.findChildren(QLabel)]
    assert any(text.endswith(f"{python}: {chinese_text}") for text in texts), texts
    assert not any(english in text for text in texts), texts
