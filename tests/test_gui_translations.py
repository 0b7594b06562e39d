"""The zh_CN translations the window loads, including the words it translates at run time
(core's, which lupdate cannot find in the window's sources)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QCoreApplication

from gui.i18n import install_translators

pytest_plugins = ["tests.gui_fixtures"]


def test_the_doctors_verdicts_are_translated_at_run_time(qapp):
    from core.doctor.machine import VERDICTS

    install_translators(qapp, "zh_CN")
    try:
        said = {v: QCoreApplication.translate("Verdict", v) for v in VERDICTS.values()}
    finally:
        install_translators(qapp, "en")
    assert [v for v, zh in said.items() if zh == v] == []
