"""Exit codes: Windows status codes shown in hex with their name, signals by name, and the
launcher's own exit code always in 0-255 (summary.json and the CLI included)."""

from __future__ import annotations

import io
import json

import pytest

from core import supervisor
from core.exitcodes import (
    EXIT_CTRL_C,
    EXIT_TASK_CODE_OUT_OF_RANGE,
    NTSTATUS,
    describe,
    explain,
    launcher_exit_code,
)
from core.run_command import run_command
from tests.conftest import only_run_dir, read_summary
from tests.scripted import ScriptedProcess

ACCESS_VIOLATION = 0xC0000005


@pytest.mark.parametrize(("code", "text"), [
    (0, "0"),
    (1, "1"),
    (7, "7"),
    (3221225477, "0xC0000005 (access violation: the process crashed)"),
    (-1073741819, "0xC0000005 (access violation: the process crashed)"),  # the same, signed
    (0xC0000135, "0xC0000135 (DLL not found: a DLL the program needs is missing)"),
    (0xC000001D, "0xC000001D (illegal instruction: e.g. a TensorFlow build that needs AVX on a "
                 "CPU without it)"),
    (0xC000013A, "0xC000013A (Ctrl+C exit)"),
    (0xDEADBEEF, "0xDEADBEEF"),  # unknown status: still in hex
    (0x1234, "0x00001234"),
    (126, "126 (cannot execute: permission denied or not a program)"),
    (127, "127 (command not found)"),
    (130, "130 (interrupted, Ctrl+C: SIGINT)"),
    (137, "137 (killed: SIGKILL)"),
    (139, "139 (segmentation fault: the process crashed: SIGSEGV)"),
    (143, "143 (stopped by TensorDeck: SIGTERM)"),
    (-9, "137 (killed: SIGKILL)"),  # a raw POSIX returncode
    (150, "150"),
    (None, ""),
])
def test_describe(code, text):
    assert describe(code) == text


def test_every_known_status_is_shown_in_uppercase_hex_with_its_name():
    for code, meaning in NTSTATUS.items():
        assert describe(code) == f"0x{code:08X} ({meaning})"
        assert describe(code - (1 << 32)) == describe(code)  # signed on some paths


def test_explain_says_more_for_tooltips():
    assert "TensorDeck" in explain(143) and "128 + 15" in explain(143)
    assert "3221225477" in explain(ACCESS_VIOLATION) and "access violation" in explain(
        ACCESS_VIOLATION)
    assert "does not know" in explain(0xDEADBEEF)
    assert explain(0) == "" and explain(None) == ""
    assert "uncaught exception" in explain(1)
    assert "script chose it" in explain(42)


@pytest.mark.parametrize(("code", "exit"), [
    *((c, c) for c in (0, 1, 2, 125, 127, 130, 137, 143, 255)),
    (3221225477, EXIT_TASK_CODE_OUT_OF_RANGE),
    (-1073741819, EXIT_TASK_CODE_OUT_OF_RANGE),
    (0xC0000135, EXIT_TASK_CODE_OUT_OF_RANGE),
    (256, EXIT_TASK_CODE_OUT_OF_RANGE),
    (0xFFFFFFFF, EXIT_TASK_CODE_OUT_OF_RANGE),  # sys.exit(-1) on Windows
    (0xC000013A, EXIT_CTRL_C),
    (0xC000013A - (1 << 32), EXIT_CTRL_C),
    (-2, 130),
])
def test_launcher_exit_code_is_always_a_byte(code, exit):
    assert launcher_exit_code(code) == exit
    assert 0 <= launcher_exit_code(code) <= 255


def test_every_code_maps_into_a_byte():
    for code in (*range(-300, 600), *NTSTATUS, 1 << 32, (1 << 40) + 5):
        assert 0 <= launcher_exit_code(code) <= 255, code


def test_a_windows_crash_gives_exit_125_and_says_so(job, monkeypatch, capsys):
    """A task that crashed with 0xC0000005 (a scripted process: a Linux process cannot exit
    with it) goes through the supervisor, the CLI's exit and summary.json."""

    def crashed(argv, env, cwd=None, watchdog=None) -> ScriptedProcess:
        proc = ScriptedProcess(env["TENSORDECK_TASK"], on_stop=None)
        proc.exits(ACCESS_VIOLATION)
        return proc

    monkeypatch.setattr(supervisor, "TaskProcess", crashed)
    config = job("", strategy="single", tasks=[{"role": "worker"}])
    assert run_command(str(config), check=False) == EXIT_TASK_CODE_OUT_OF_RANGE
    err = capsys.readouterr().err
    assert "exit code 125 for the task's 0xC0000005 (access violation: the process crashed)" in err
    summary = read_summary(only_run_dir(config))
    assert summary["exit_code"] == ACCESS_VIOLATION
    assert summary["exit_description"] == describe(ACCESS_VIOLATION)
    task = summary["tasks"][0]
    assert (task["exit_code"], task["exit_description"]) == (ACCESS_VIOLATION, describe(
        ACCESS_VIOLATION))
    keys = list(task)
    assert keys[keys.index("exit_code") + 1] == "exit_description"
    json.dumps(summary)


def test_a_running_summary_has_no_description_yet(job, tmp_path):
    from core.config import load_config
    from core.console import ConsoleSink
    from core.run import Run
    from core.topology import plan_run

    config = job("", strategy="single", tasks=[{"role": "worker"}])
    plan = plan_run(load_config(config), config, run_dir=str(tmp_path / "run"))
    try:
        run = Run(plan, ConsoleSink(io.StringIO(), []))  # not executed: the summary says running
        summary = read_summary(tmp_path / "run")
        run._events.close()
    finally:
        plan.release_ports()
    assert summary["status"] == "running"
    assert summary["exit_description"] is None
    assert all(t["exit_description"] is None for t in summary["tasks"])


def test_every_meaning_is_said_in_chinese_and_files_keep_english():
    """The window says what an exit code means in its language (core.messages' exit.*);
    summary.json keeps English (describe's default)."""
    import re

    from core.exitcodes import SIGNALS, STATUS_CODES

    for code in (*STATUS_CODES, *(128 + n for n in SIGNALS), 126, 127):
        english, chinese = describe(code), describe(code, "zh_CN")
        assert chinese != english and re.search("[\u4e00-\u9fff]", chinese), (code, chinese)
        assert chinese.split(" ")[0] == english.split(" ")[0]  # the number as it is
    assert describe(137, "zh_CN") == "137 (已被强制终止: SIGKILL)"
