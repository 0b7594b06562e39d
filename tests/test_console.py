"""The terminal face of a run: exit lines with their meaning, and colours only where a console
renders them (VT processing on Windows)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from core import console
from core.console import ConsoleSink, enable_vt_processing
from core.events import TaskExited, TaskOutput, TaskState

ON_WINDOWS = sys.platform == "win32"


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_exit_line_names_a_windows_status_code():
    out = io.StringIO()
    sink = ConsoleSink(out, ["worker:0"], color=False)
    sink(TaskExited(0.0, "worker:0", 3221225477, TaskState.FAILED))
    sink(TaskExited(0.0, "worker:0", 137, TaskState.STOPPED))
    assert out.getvalue().splitlines() == [
        "tensordeck: worker-0 exited with code 0xC0000005 (access violation: the process "
        "crashed) (failed)",
        "tensordeck: worker-0 exited with code 137 (killed: SIGKILL) (stopped)",
    ]


@pytest.mark.parametrize("vt", [True, False])
def test_a_terminal_gets_escapes_only_where_they_render(monkeypatch, vt):
    monkeypatch.setattr(console, "enable_vt_processing", lambda stream: vt)
    out = FakeTerminal()
    sink = ConsoleSink(out, ["worker:0"])
    sink(TaskOutput(0.0, "worker:0", ("line",), progress="12/100"))
    sink(TaskOutput(0.0, "worker:0", ("done",)))
    assert ("\x1b[" in out.getvalue()) is vt
    if not vt:  # an old Windows console: what a pipe gets, finished lines only
        assert out.getvalue() == "[worker-0] line\n[worker-0] done\n"


def test_a_pipe_asks_for_no_console_mode(monkeypatch):
    def unexpected(stream):
        raise AssertionError("a stream that is not a terminal needs no VT processing")

    monkeypatch.setattr(console, "enable_vt_processing", unexpected)
    ConsoleSink(io.StringIO(), ["worker:0"])


class Untouchable(io.TextIOBase):
    def fileno(self) -> int:
        raise AssertionError("off Windows the stream is not looked at")


@pytest.mark.skipif(ON_WINDOWS, reason="the off-Windows case: Windows has its own tests below")
def test_vt_processing_is_a_no_op_off_windows():
    assert enable_vt_processing(Untouchable()) is True
    assert enable_vt_processing(io.StringIO()) is True


@pytest.mark.skipif(not ON_WINDOWS, reason="console modes exist only on Windows")
def test_vt_processing_is_refused_for_what_is_not_a_console(tmp_path):
    assert enable_vt_processing(io.StringIO()) is False  # no file descriptor
    read_end, write_end = os.pipe()
    with os.fdopen(read_end), os.fdopen(write_end, "w") as pipe:
        assert enable_vt_processing(pipe) is False
    with open(tmp_path / "out.txt", "w") as file:
        assert enable_vt_processing(file) is False


# Run in a console of its own, since the test process may have none (CI, pipes under Wine).
_CHILD = """
import ctypes, msvcrt, sys
from ctypes import wintypes
from core.console import ENABLE_VIRTUAL_TERMINAL_PROCESSING, enable_vt_processing
con = open("CONOUT$", "w")
enabled = enable_vt_processing(con)
mode = wintypes.DWORD()
ctypes.WinDLL("kernel32").GetConsoleMode(msvcrt.get_osfhandle(con.fileno()), ctypes.byref(mode))
is_wine = hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")
with open(sys.argv[1], "w") as out:
    out.write(f"{enabled} {bool(mode.value & ENABLE_VIRTUAL_TERMINAL_PROCESSING)} {is_wine}")
"""


@pytest.mark.skipif(not ON_WINDOWS, reason="console modes exist only on Windows")
def test_vt_processing_turns_on_in_a_windows_console(tmp_path):
    result = tmp_path / "result.txt"
    subprocess.run(
        [sys.executable, "-c", _CHILD, str(result)],
        creationflags=subprocess.CREATE_NEW_CONSOLE,  # type: ignore[attr-defined]
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        timeout=60,
        check=True,
    )
    enabled, mode_set, is_wine = (word == "True" for word in result.read_text().split())
    assert enabled == mode_set  # True exactly when the console now renders escapes
    if not is_wine:  # Windows 10+ consoles support it; Wine's console without a terminal not
        assert enabled


CUINIT = ("E0000 00:00:1795987944.345425   17950 cuda_platform.cc:52] failed call to cuInit: "
          "INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)")


@pytest.mark.parametrize("gpus_expected", [False, True])
def test_a_terminal_dims_tensorflows_known_noise_and_a_pipe_gets_it_as_printed(gpus_expected):
    lines = (CUINIT, "step 1/5 loss=0.5")
    terminal = FakeTerminal()
    ConsoleSink(terminal, ["worker:0"], color=True, gpus_expected=gpus_expected)(
        TaskOutput(0.0, "worker:0", lines))
    shown = terminal.getvalue().splitlines()
    dimmed = f"\x1b[2m{CUINIT}\x1b[0m"
    # On a run that should use its GPU, the no-GPU message is the problem: not dimmed.
    assert shown[0].endswith(CUINIT if gpus_expected else dimmed)
    assert shown[1].endswith("step 1/5 loss=0.5") and "\x1b[2m" not in shown[1]
    pipe = io.StringIO()
    ConsoleSink(pipe, ["worker:0"], gpus_expected=gpus_expected)(
        TaskOutput(0.0, "worker:0", lines))
    assert pipe.getvalue().splitlines()[0].endswith(CUINIT)
    assert "\x1b" not in pipe.getvalue()


def test_the_noise_list_is_not_imported_before_a_task_prints():
    code = ("import io, sys\nfrom core.console import ConsoleSink\n"
            "ConsoleSink(io.StringIO(), ['worker:0'])\n"
            "print('core.tfnoise' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.stdout.split() == ["False"], out.stderr
