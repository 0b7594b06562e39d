"""The zh_CN translations the window loads: every string of the window has its Chinese (core's
words are core/messages.py's: tests/test_doctor_zh.py, tests/test_messages.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("PySide6")

from gui.i18n import TRANSLATIONS


def test_every_window_string_is_translated():
    root = ET.parse(TRANSLATIONS / "tensordeck_zh_CN.ts").getroot()
    messages = root.findall("./context/message")
    assert len(messages) > 300
    untranslated = [m.findtext("source") for m in messages
                    if m.find("translation").get("type") or not m.findtext("translation")]
    assert untranslated == []
