"""The wsl.exe stand-in for the tests: both builds of tests/wsl/wsl_standin.c and its Linux
server (tests/wsl/wsl_server.py), once per session.

On Linux the fixture builds and starts them. Windows CPython (the Windows lane, under Wine)
cannot start a Linux program: there the lane's Linux side builds them and starts the server
(``python3 -m tests.wsl.build DIR``, ``python3 -m tests.wsl.wsl_server --state DIR --venv ...
--drive c=$WINEPREFIX/drive_c --drive z=/``) and sets ``TENSORDECK_WSL_STANDIN=DIR`` (as Windows
names it); without it the tests skip, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pytest

from tests.wsl.build import GCC, build_linux, build_windows

ENV = "TENSORDECK_WSL_STANDIN"
PORT_VARIABLE = "TENSORDECK_TEST_WSL_PORT"
REPO = Path(__file__).resolve().parents[2]
#: wsl.exe's own failures exit with -1, which Windows reports as 4294967295 and Linux as 255.
WSL_FAILED = 0xFFFFFFFF if sys.platform == "win32" else 255


@dataclass
class WslStandIn:
    """The stand-in: ``wsl_exe`` answers as the scenario whose port it is given."""

    state: Path
    wsl_exe: Path
    ports: dict[str, int]
    #: Each distribution's user home (a Linux path).
    homes: dict[str, str]
    #: Each Windows drive letter and the Linux folder mounted at /mnt/<letter>.
    drives: dict[str, str]
    process: subprocess.Popen | None = field(default=None, repr=False)

    def environ(self, scenario: str = "wsl") -> dict[str, str]:
        """The variables that make ``wsl.exe`` this stand-in, answering as ``scenario``."""
        path = f"{self.wsl_exe.parent}{os.pathsep}{os.environ.get('PATH', '')}"
        return {"PATH": path, PORT_VARIABLE: str(self.ports[scenario])}

    def use(self, monkeypatch: pytest.MonkeyPatch, scenario: str = "wsl") -> None:
        for name, value in self.environ(scenario).items():
            monkeypatch.setenv(name, value)

    def run(self, *args: str, scenario: str = "wsl", stdin: bytes = b"",
            env: Mapping[str, str] | None = None, timeout: float = 120
            ) -> subprocess.CompletedProcess[bytes]:
        """The stand-in run with ``args`` to its end."""
        return subprocess.run([str(self.wsl_exe), *args], input=stdin, capture_output=True,
                              timeout=timeout, check=False,
                              env={**os.environ, **self.environ(scenario), **(env or {})})

    def tf_version(self, python: str) -> str | None:
        """The TensorFlow that ``python`` (a Linux path in the default distribution) has
        installed, read there: under the Windows lane, not the one this machine's tests see."""
        from core.interpreters.probe import TF_DISTRIBUTIONS

        code = ("import sys\nfrom importlib import metadata\nfor name in sys.argv[1:]:\n"
                "    try:\n        print(metadata.version(name))\n        break\n"
                "    except metadata.PackageNotFoundError:\n        pass\n")
        done = self.run("-e", python, "-c", code, *TF_DISTRIBUTIONS)
        assert done.returncode == 0, done.stderr
        return done.stdout.decode().strip() or None

    def local(self, linux_path: str) -> Path:
        """A Linux path of the distributions as the tests' platform opens it: under
        ``/mnt/<letter>``, that drive's file (``C:\\x`` on Windows, the folder the server
        mounts there on Linux); any other, the Linux file (``Z:\\...`` under Wine)."""
        parts = PurePosixPath(linux_path).parts
        if len(parts) >= 3 and parts[:2] == ("/", "mnt") and parts[2] in self.drives:
            if sys.platform == "win32":
                return Path(f"{parts[2].upper()}:\\", *parts[3:])
            return Path(self.drives[parts[2]], *parts[3:])
        if sys.platform == "win32":
            return Path("Z:" + linux_path.replace("/", "\\"))
        return Path(linux_path)


def _attach(state: Path, process: subprocess.Popen | None = None) -> WslStandIn:
    info = json.loads((state / "server.json").read_text())
    build = "windows" if sys.platform == "win32" else "linux"
    drives = dict(d.split("=", 1) for d in info["drives"])
    return WslStandIn(state, state / build / "wsl.exe", info["ports"], info["homes"], drives,
                      process)


def start_server(state: Path, venv: str | None = None) -> subprocess.Popen:
    """The server, serving from ``state`` once ``server.json`` is there; it stops with
    everything it started when its stdin closes."""
    args = ["--venv", venv] if venv else []
    process = subprocess.Popen([sys.executable, "-m", "tests.wsl.wsl_server", "--state",
                                str(state), *args], cwd=REPO, stdin=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not (state / "server.json").exists():
        if process.poll() is not None or time.monotonic() > deadline:
            stop_server(process)
            pytest.fail(f"the wsl.exe stand-in's server did not start (exit {process.poll()})")
        time.sleep(0.05)
    return process


def stop_server(process: subprocess.Popen) -> None:
    assert process.stdin is not None
    process.stdin.close()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _why_not_here() -> str | None:
    if sys.platform == "win32":
        return (f"the wsl.exe stand-in's server is a Linux program: the Windows lane starts it "
                f"(python3 -m tests.wsl.wsl_server) and sets {ENV}")
    if shutil.which(GCC) is None:
        return "gcc missing: the Linux build of the wsl.exe stand-in needs it"
    return None


def session_standin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WslStandIn]:
    """The stand-in of this session (see the module's docstring)."""
    prepared = os.environ.get(ENV)
    if prepared:
        yield _attach(Path(prepared))
        return
    why = _why_not_here()
    if why:
        pytest.skip(why)
    state = tmp_path_factory.mktemp("wsl-standin")
    build_linux(state)
    build_windows(state)  # for the lane and for the test of the build itself
    venv = sys.prefix if sys.prefix != sys.base_prefix else None
    process = start_server(state, venv)
    try:
        info = json.loads((state / "server.json").read_text())
        if info["no_namespace"]:
            pytest.skip(info["no_namespace"])
        yield _attach(state, process)
    finally:
        stop_server(process)
