"""The wsl.exe stand-in itself (tests/wsl/): the program the WSL tests put first on PATH must
behave as real wsl.exe does for what TensorDeck uses, or those tests prove nothing.

On Linux the stand-in is its gcc build; on the Windows lane its mingw build, run by Windows
CPython under Wine, with the same Linux server."""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import wait_none
from tests.wsl.fixtures import WSL_FAILED, start_server, stop_server

ECHO = ("import json, os, sys; print(json.dumps({'argv': sys.argv[1:], 'cwd': os.getcwd(), "
        "'env': dict(os.environ)}))")


def echo(standin, *options: str, args: tuple[str, ...] = (),
         env: dict[str, str] | None = None) -> dict:
    """What python3 in the distribution sees, started with ``options -e python3``."""
    done = standin.run(*options, "-e", "python3", "-c", ECHO, *args, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_bytes_round_trip_binary_and_large(wsl_standin):
    data = bytes(range(256)) * 16 + random.Random(7).randbytes(3 << 20) + b"\r\n\0\x1a"
    done = wsl_standin.run("-e", "cat", stdin=data)
    assert done.returncode == 0 and done.stdout == data
    done = wsl_standin.run("-e", "sh", "-c", "cat >&2; printf out", stdin=data)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"out", data)


@pytest.mark.parametrize(("script", "status"), [
    ("exit 0", 0), ("exit 3", 3), ("exit 255", 255),
    ("kill -TERM $$", 128 + 15), ("kill -KILL $$", 128 + 9),
])
def test_exit_status_crosses(wsl_standin, script, status):
    assert wsl_standin.run("-e", "sh", "-c", script).returncode == status


def test_listings_are_utf16le_without_bom_with_crlf(wsl_standin):
    quiet = wsl_standin.run("-l", "-q")
    assert quiet.returncode == 0
    assert quiet.stdout == "Ubuntu-22.04\r\nLegacy\r\nMinimal\r\n".encode("utf-16-le")
    verbose = wsl_standin.run("--list", "--verbose")
    text = verbose.stdout.decode("utf-16-le")
    assert not verbose.stdout.startswith(b"\xff\xfe") and text.endswith("\r\n")
    header, ubuntu, legacy, minimal = text.splitlines()
    assert header.split() == ["NAME", "STATE", "VERSION"]
    assert ubuntu.split() == ["*", "Ubuntu-22.04", "Running", "2"]
    assert legacy.split() == ["Legacy", "Stopped", "1"] and legacy.startswith("  ")
    assert minimal.split() == ["Minimal", "Running", "2"]
    status = wsl_standin.run("--status").stdout.decode("utf-16-le")
    assert "Default Distribution: Ubuntu-22.04" in status


@pytest.mark.parametrize(("scenario", "args", "status", "message"), [
    ("wsl", ["-d", "Fedora", "-e", "true"], WSL_FAILED,
     "There is no distribution with the supplied name."),
    ("no-distro", ["-l", "-v"], WSL_FAILED, "has no installed distributions"),
    ("no-distro", ["-e", "true"], WSL_FAILED, "WSL_E_DEFAULT_DISTRO_NOT_FOUND"),
    ("not-installed", ["-l", "-q"], 1, "The Windows Subsystem for Linux is not installed"),
    ("wsl", ["--frobnicate"], WSL_FAILED, "Invalid command line argument: --frobnicate"),
    ("wsl", ["-d"], WSL_FAILED, "Command line argument -d requires a value."),
])
def test_wsl_exe_refusals(wsl_standin, scenario, args, status, message):
    done = wsl_standin.run(*args, scenario=scenario)
    assert done.returncode == status
    assert message in done.stderr.decode("utf-16-le") and done.stdout == b""


def test_exec_runs_no_shell_and_keeps_every_argument(wsl_standin):
    args = ["a b", "", 'q"uote', "back\\slash\\", "$HOME", "; echo no", "*", "日本"]
    assert echo(wsl_standin, args=tuple(args))["argv"] == args
    missing = wsl_standin.run("-e", "no-such-program")
    assert missing.returncode == 1 and b"execvpe(no-such-program) failed" in missing.stderr


def test_the_rest_of_the_line_goes_through_the_shell(wsl_standin):
    assert wsl_standin.run("--", "echo", "$HOME").stdout.decode().strip() == \
        wsl_standin.homes["Ubuntu-22.04"]
    assert wsl_standin.run("echo", "$WSL_DISTRO_NAME").stdout == b"Ubuntu-22.04\n"


def test_clean_environment_plus_what_wslenv_names(wsl_standin):
    env = {"TD_ONE": "1", "TD_PATH": "C:\\x y\\z", "TD_LIST": "C:\\a;D:\\b", "TD_BACK": "w",
           "TD_HIDDEN": "not passed", "WSLENV": "TD_ONE:TD_PATH/p:TD_LIST/l:TD_BACK/w:TD_NONE"}
    seen = echo(wsl_standin, "-d", "ubuntu-22.04", env=env)["env"]
    assert {k: v for k, v in seen.items() if k.startswith("TD_")} == {
        "TD_ONE": "1", "TD_PATH": "/mnt/c/x y/z", "TD_LIST": "/mnt/c/a:/mnt/d/b"}
    assert seen["WSLENV"] == env["WSLENV"]
    assert seen["HOME"] == wsl_standin.homes["Ubuntu-22.04"]
    assert seen["WSL_DISTRO_NAME"] == "Ubuntu-22.04" and seen["WSL_INTEROP"]
    assert "PYTEST_CURRENT_TEST" not in seen
    assert not any(name.startswith("TENSORDECK_") for name in seen)
    assert seen["PATH"].startswith("/usr/local/sbin:") and seen["LANG"] == "C.UTF-8"


def test_each_distribution_has_its_programs(wsl_standin):
    assert wsl_standin.run("-d", "Minimal", "-e", "python3").returncode == 1
    done = wsl_standin.run("-d", "Minimal", "-e", "sh", "-c", "echo $PATH")
    assert done.returncode == 0 and done.stdout.decode().strip().endswith("minimal-bin")


def test_working_folder_and_windows_drives(wsl_standin):
    name = f"td-{uuid.uuid4().hex}.txt"
    drive_c = wsl_standin.drives["c"]
    wsl_standin.local(f"{drive_c}/{name}").write_text("on C:")
    assert wsl_standin.run("-e", "cat", f"/mnt/c/{name}").stdout == b"on C:"
    assert wsl_standin.run("--cd", "C:\\", "-e", "cat", name).stdout == b"on C:"
    assert wsl_standin.run("--cd", "~", "-e", "pwd").stdout.decode().strip() == \
        wsl_standin.homes["Ubuntu-22.04"]
    assert wsl_standin.run("--cd", "/usr", "-e", "pwd").stdout == b"/usr\n"
    # Without --cd: wsl.exe's own folder, as the distribution reaches it.
    here = echo(wsl_standin)["cwd"]
    expected = "/mnt/z" + os.getcwd()[2:].replace("\\", "/") if sys.platform == "win32" \
        else os.getcwd()
    assert here == expected


def test_closing_stdin_reaches_the_command_as_eof(wsl_standin):
    proc = subprocess.Popen([str(wsl_standin.wsl_exe), "-e", "sh", "-c", "cat; echo eof"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env={**os.environ, **wsl_standin.environ()})
    out, _ = proc.communicate(b"last words\n", timeout=60)
    assert (proc.returncode, out) == (0, b"last words\neof\n")


KEEPS_RUNNING = """
import os, sys, time
print(os.getpid(), flush=True)
sys.stdin.read()
open(sys.argv[1], "w").write("eof")
time.sleep(600)
"""


def test_killing_the_stand_in_closes_stdin_and_leaves_the_command_running(wsl_standin):
    """Real wsl.exe does not end the Linux process when it dies: the command's stdin closes
    and the command goes on (TensorDeck's node agent must end its tasks itself)."""
    marker = f"/tmp/td-eof-{uuid.uuid4().hex}"
    proc = subprocess.Popen([str(wsl_standin.wsl_exe), "-e", "python3", "-c", KEEPS_RUNNING,
                             marker], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env={**os.environ, **wsl_standin.environ()})
    assert proc.stdout is not None
    pid = proc.stdout.readline().decode().strip()
    assert pid.isdigit()
    proc.kill()  # TerminateProcess on Windows, SIGKILL here
    proc.wait(timeout=30)
    try:
        deadline = time.monotonic() + 30
        while wsl_standin.run("-e", "cat", marker).stdout != b"eof":
            assert time.monotonic() < deadline, "the command never saw its stdin close"
            time.sleep(0.2)
        assert wsl_standin.run("-e", "kill", "-0", pid).returncode == 0, "the command died"
    finally:
        wsl_standin.run("-e", "kill", "-KILL", pid)
        wsl_standin.run("-e", "rm", "-f", marker)


@pytest.mark.skipif(sys.platform == "win32", reason="starts its own server, a Linux program")
def test_stopping_the_server_ends_everything_it_started(wsl_standin, tmp_path):
    """Each command has a session of its own, and what it starts may leave it (setsid): the
    server, a subreaper, still ends all of it when it stops."""
    import psutil

    process = start_server(tmp_path)
    ports = json.loads((tmp_path / "server.json").read_text())["ports"]
    try:
        done = wsl_standin.run("-e", "sh", "-c", "setsid sleep 600 </dev/null >/dev/null 2>&1 & "
                               "echo $!; sleep 600 </dev/null >/dev/null 2>&1 & echo $!",
                               env={"TENSORDECK_TEST_WSL_PORT": str(ports["wsl"])})
        pids = [int(p) for p in done.stdout.split()]
        assert len(pids) == 2 and all(psutil.pid_exists(p) for p in pids)
    finally:
        stop_server(process)

    def running() -> list[int]:
        alive = []
        for pid in pids:
            with contextlib.suppress(psutil.NoSuchProcess):
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    alive.append(pid)
        return alive

    assert wait_none(running, 10) == []


@pytest.mark.skipif(sys.platform == "win32", reason="mingw is a Linux program")
def test_the_windows_build_is_a_windows_console_program(wsl_standin):
    """The lane's stand-in: a PE32+ x86-64 console program that needs only Windows' own DLLs."""
    built = Path(wsl_standin.state) / "windows" / "wsl.exe"
    if not built.exists():
        pytest.skip("mingw-w64 missing: apt-get install gcc-mingw-w64-x86-64")
    data = built.read_bytes()
    pe = int.from_bytes(data[0x3C:0x40], "little")
    assert data[:2] == b"MZ" and data[pe:pe + 4] == b"PE\0\0"
    assert int.from_bytes(data[pe + 4:pe + 6], "little") == 0x8664  # x86-64
    optional = pe + 24
    assert int.from_bytes(data[optional:optional + 2], "little") == 0x20B  # PE32+
    assert int.from_bytes(data[optional + 68:optional + 70], "little") == 3  # console
