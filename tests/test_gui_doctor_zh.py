"""The Machine view under the Chinese UI: a finding of the recorded corpus reads in Chinese
(title and fix steps), its evidence as the tool printed it. (A GUI test: the core's Chinese is
tested in tests/test_doctor_zh.py, which runs without Qt too.)"""

from __future__ import annotations

from core.doctor.explain import explain
from tests.test_doctor_zh import CHINESE, CORPUS


def test_machine_view_shows_a_corpus_finding_in_chinese(qtbot, qapp) -> None:
    from PySide6.QtWidgets import QLabel

    from gui.i18n import install_translators
    from gui.views.machine import FindingCard, MachineView

    case = next(c for c in CORPUS if c["id"] == "p08")  # msvcp140.dll missing (Windows)
    findings = explain(case["text"], platform="windows")
    try:
        assert install_translators(qapp, "zh_CN") == "zh_CN"
        view = MachineView()
        qtbot.addWidget(view)
        view.show_findings(findings)
        card = view.findChildren(FindingCard)[0]
        texts = [label.text() for label in card.findChildren(QLabel)]
    finally:
        install_translators(qapp, "en")
    first = findings[0]
    assert first.title_in("zh_CN") in texts and first.title not in texts
    assert first.evidence in texts  # the tool's output stays as it is
    for step in first.steps:
        assert "• " + step.text_in("zh_CN") in texts and "• " + step.text not in texts
    english = [s for s in texts if s.startswith("• ") or s == first.title_in("zh_CN")]
    assert all(CHINESE.search(s) for s in english)
