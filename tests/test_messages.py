"""core.messages: message ids with parameters in English and Simplified Chinese, the command
line in the system's language, and English read back from files said in the window's."""

from __future__ import annotations

import os
import re
import string

import pytest

from core import messages
from core.messages import CATALOGUE, recognise, system_language, tr, translate_text
from tests.conftest import tensordeck


@pytest.fixture(autouse=True)
def _system_language():
    yield
    messages.set_language(None)


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_message_says_the_same_things_in_both_languages():
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for message_id, message in CATALOGUE.items():
        assert message.en and message.zh_CN, message_id
        assert _fields(message.en) == _fields(message.zh_CN), message_id
        assert not cjk.search(message.en), message_id
        if cjk.search(message.zh_CN):  # Chinese punctuation, not ASCII, after Chinese text
            assert not re.search(r"[\u4e00-\u9fff][,;:]", message.zh_CN), message_id


def test_the_system_language_decides_unless_one_is_chosen():
    for environ, expected in (({"LANG": "zh_CN.UTF-8"}, "zh_CN"), ({"LANG": "C"}, "en"),
                              ({"LANGUAGE": "zh_TW:en", "LANG": "en_US"}, "zh_CN"),
                              ({"LC_ALL": "en_GB.UTF-8", "LANG": "zh_CN"}, "en"),
                              ({"TENSORDECK_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
                              ({}, "en")):
        assert system_language(environ, "linux") == expected, environ
    messages.set_language("zh_CN")
    assert tr("run.completed") == "已完成"
    messages.set_language("en")
    assert tr("run.completed") == "completed"
    messages.set_language("klingon")  # not one we have: the system's
    assert messages.language() == system_language()


def test_english_read_back_is_said_in_the_chosen_language():
    task = "worker:1 ($(id) 数据\n)"  # a hostile name stays as it is, inside the message
    english = tr("run.task_exited", "en", task=task, code="143")
    assert recognise(english) == ("run.task_exited", {"task": task, "code": "143"})
    assert translate_text(english, "zh_CN") == f"{task} 已退出，退出码 143"
    assert translate_text(english, "en") == english
    for unknown in ("", "something core never said", "completed!"):
        assert translate_text(unknown, "zh_CN") == unknown
    for message_id, message in CATALOGUE.items():  # every message comes back from its English
        params = {name: f"<{name}>" for name in _fields(message.en)}
        said = message.en.format(**params)
        assert translate_text(said, "zh_CN") == message.zh_CN.format(**params), message_id


def test_the_command_line_follows_the_system_language():
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "TENSORDECK_LANG")}
    utf8 = {**env, "PYTHONIOENCODING": "utf-8"}  # a Windows pipe is ANSI (cp1252) otherwise
    chinese = tensordeck("--help", env={**utf8, "LANG": "zh_CN.UTF-8"}, timeout=60,
                         encoding="utf-8")
    assert CATALOGUE["cli.description"].zh_CN in chinese.stdout.replace("\n", "")
    assert CATALOGUE["cli.validate"].zh_CN in chinese.stdout
    english = tensordeck("--help", env={**env, "LANG": "C.UTF-8"}, timeout=60)
    assert "check a config file" in english.stdout and "检查" not in english.stdout
    chosen = tensordeck("--help", env={**env, "LANG": "zh_CN.UTF-8", "TENSORDECK_LANG": "en"},
                        timeout=60)
    assert chosen.stdout == english.stdout


def test_output_that_cannot_show_chinese_gets_english_not_a_crash():
    """A Windows pipe or file is written in the ANSI code page; cp1252 has no Chinese."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "TENSORDECK_LANG")}
    ansi = tensordeck("--help", env={**env, "LANG": "zh_CN.UTF-8", "PYTHONIOENCODING": "cp1252"},
                      timeout=60, encoding="cp1252")
    assert ansi.returncode == 0, ansi.stderr
    assert "check a config file" in ansi.stdout
