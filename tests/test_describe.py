"""Every run event a face shows is said by one function (core.describe.describe_event), in
English and in Chinese: the console prints exactly that line. (The window's log shows the
same line: tests/test_gui_events.py.)"""

from __future__ import annotations

import dataclasses
import io
import re

import pytest

from core.console import ConsoleSink
from core.describe import describe_event, event_message
from core.events import Event, RunStatus, RunStopping, TaskOutput, TaskState
from core.messages import LANGUAGES, set_language, tr

SAMPLES = {str: "worker:1", int: 137, float: 75.0, tuple: ("a",), TaskState: TaskState.FAILED,
           RunStatus: RunStatus.FAILED}


def every_event_type() -> list[type[Event]]:
    found, todo = [], [Event]
    while todo:
        kind = todo.pop()
        todo += kind.__subclasses__()
        if kind is not Event:
            found.append(kind)
    return sorted(found, key=lambda k: k.__name__)


def sample(kind: type[Event]) -> Event:
    """An event of ``kind`` with plain values in every field."""
    hints = {f.name: f.type for f in dataclasses.fields(kind)}
    values = {}
    for name, hint in hints.items():
        text = hint if isinstance(hint, str) else getattr(hint, "__name__", str(hint))
        values[name] = next((v for k, v in SAMPLES.items()
                             if (k if isinstance(k, str) else k.__name__) == text.split("[")[0]),
                            "stopped from the window")
    return kind(**values)


SHOWN = [k for k in every_event_type() if k is not TaskOutput]


def test_every_event_type_is_said():
    assert {k.__name__ for k in SHOWN} >= {"RunStarted", "TaskStarted", "TaskExited",
                                           "TaskRestarting", "RunWarning", "SlurmQueued",
                                           "RunStopping", "RunFinished"}


@pytest.mark.parametrize("kind", SHOWN, ids=lambda k: k.__name__)
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_event_is_one_whole_message_in_each_language(kind, language):
    event = sample(kind)
    text = describe_event(event, language)
    message_id, params = event_message(event, language)
    assert text == tr(message_id, language, **params)
    assert text and not re.search(r"\{\w+\}", text), text  # every field filled
    if language != "en":
        assert text != describe_event(event, "en"), text  # said in that language


@pytest.mark.parametrize("kind", SHOWN, ids=lambda k: k.__name__)
def test_the_console_prints_the_described_line(kind):
    out = io.StringIO()
    event = sample(kind)
    ConsoleSink(out, ["worker:1"], color=False)(event)
    assert out.getvalue() == f"tensordeck: {describe_event(event, 'en')}\n"


def test_a_reason_the_core_wrote_in_english_is_said_in_the_chosen_language():
    set_language("zh_CN")
    try:
        event = RunStopping(0.0, "stopped from the window")
        assert describe_event(event) == "正在停止：已从窗口停止"
    finally:
        set_language(None)
