"""The Linux side of the wsl.exe stand-in (tests/wsl/wsl_standin.c), for the tests only.

It runs each command the stand-in relays as real wsl.exe would, for the options TensorDeck
uses: ``-l`` / ``-l -q`` / ``-l -v`` (UTF-16LE with CRLF, no BOM, ``*`` marking the default),
``--status``, ``-d DISTRO``, ``--cd DIR``, ``-e/--exec CMD ARGS`` (no shell), ``--`` and a bare
command line (through ``sh -c``); wsl.exe's own messages and exit codes (-1, i.e. 4294967295 on
Windows and 255 on Linux) for an unknown distribution, none installed, WSL not installed.

Each "distribution" is this Linux machine: a command runs in a clean environment (PATH, HOME,
USER, LANG, WSL_DISTRO_NAME, WSL_INTEROP ... plus what WSLENV names, ``/p`` and ``/l`` paths
translated), in a mount namespace of its own where ``/mnt/<letter>`` is a Windows drive
(``--drive c=$WINEPREFIX/drive_c --drive z=/`` under Wine), in a session of its own. When the
stand-in's connection breaks (it was killed), the command's stdin is closed and the command
keeps running, as under real WSL; its output is read and dropped. The server is a child
subreaper: whatever its commands start stays its descendant, and all of it is killed when the
server stops (SIGTERM, or its stdin closing: the test session or the lane ended).

One port per scenario (``server.json`` in the state folder names them): ``wsl`` (Ubuntu-22.04,
WSL 2, default, whose home holds ``tf`` -> the venv given with --venv; Legacy, WSL 1; Minimal,
WSL 2 without python3 on its PATH),
``no-distro``, ``not-installed``, and hostile listings: ``garbage``, ``endless``, ``silent``,
``control``.

``gpu``: distributions as the Windows NVIDIA driver leaves them (:func:`gpu_distros`). What a
real WSL 2 distribution holds and this machine does not (``/usr/lib/wsl/lib`` with the driver's
libcuda and nvidia-smi, ``/dev/dxg``, a Linux driver's libcuda and dpkg records) is planted in
each command's mount namespace: the machine folder that would hold it is covered by a tmpfs
holding links to its own entries (through a bind of the original) and copies of the planted
files. Nothing is ever written under this machine's /usr, /dev or /var.

    python3 -m tests.wsl.wsl_server --state DIR [--venv PREFIX] [--drive LETTER=PATH ...]

Standard library only: the Windows lane starts it with the system's python3.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import pwd
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ARGV, CWD, ENV, STDIN_DATA, STDIN_EOF, STDOUT_DATA, STDERR_DATA, EXIT_STATUS = range(1, 9)
HEAD = struct.Struct(">BI")
MAX_FRAME = 1 << 24
CHUNK = 1 << 16
#: How long a connection waits for the stand-in to close its side after the exit status.
LINGER = 30
#: wsl.exe's own failures exit with -1.
WSL_FAILED = 0xFFFFFFFF
PR_SET_CHILD_SUBREAPER = 36
DISTRO_PATH = ("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/games:"
               "/usr/local/games:/usr/lib/wsl/lib")

NOT_INSTALLED = ("The Windows Subsystem for Linux is not installed. You can install by running "
                 "'wsl.exe --install'.\nFor more information please visit "
                 "https://aka.ms/wslinstall\n")
NO_DISTRIBUTION = ("Windows Subsystem for Linux has no installed distributions.\nYou can "
                   "resolve this by installing a distribution with the instructions below:\n\n"
                   "Use 'wsl.exe --list --online' to list available distributions\nand "
                   "'wsl.exe --install <Distro>' to install.\n"
                   "Error code: Wsl/Service/WSL_E_DEFAULT_DISTRO_NOT_FOUND\n")
UNKNOWN_DISTRIBUTION = ("There is no distribution with the supplied name.\n"
                        "Error code: Wsl/Service/WSL_E_DISTRO_NOT_FOUND\n")
INVALID_ARGUMENT = ("Invalid command line argument: {}\nPlease use 'wsl.exe --help' to get a "
                    "list of supported arguments.\n")
MISSING_VALUE = ("Command line argument {} requires a value.\nPlease use 'wsl.exe --help' to "
                 "get a list of supported arguments.\n")

# Runs inside the command's own mount namespace: the drives under /mnt, the working folder
# (real WSL falls back to the home folder when it cannot enter it), then the command; with -e
# a program that is not there fails as wsl.exe says it.
NAMESPACE_SCRIPT = r"""
PATH=/usr/sbin:/usr/bin:/sbin:/bin
cwd=$1 exec_mode=$2 distro_path=$3; shift 3
[ "$1" = "--" ] || mount -t tmpfs -o mode=755 wsl-drives /mnt || exit 1
while [ "$1" != "--" ]; do
  mkdir "/mnt/${1%%=*}" && mount --rbind "${1#*=}" "/mnt/${1%%=*}" || exit 1
  shift
done
shift
# TARGET=PLANTED: TARGET shows its own entries and PLANTED's. The new tree is made aside (on a
# tmpfs at PLANTED.work, beside a bind of TARGET at PLANTED.orig) and put over TARGET at once:
# programs load their libraries through /usr/lib while this runs.
while [ "$1" != "--" ]; do
  target=${1%%=*} planted=${1#*=}
  mount --rbind "$target" "$planted.orig" &&
    mount -t tmpfs -o mode=755 wsl-planted "$planted.work" || exit 1
  for entry in "$planted.orig"/* "$planted.orig"/.[!.]*; do
    name=${entry##*/}
    { [ -e "$entry" ] || [ -L "$entry" ]; } && [ ! -e "$planted/$name" ] &&
      [ ! -L "$planted/$name" ] || continue
    ln -s "$entry" "$planted.work/$name" || exit 1
  done
  cp -a "$planted/." "$planted.work/" && mount --bind "$planted.work" "$target" || exit 1
  shift
done
shift
cd "$cwd" 2>/dev/null || cd "$HOME" || cd /
export PATH="$distro_path"
if [ "$exec_mode" = exec ] && ! command -v "$1" >/dev/null 2>&1; then
  printf '<3>WSL (%s) ERROR: CreateProcessCommon:640: execvpe(%s) failed: %s\n' \
    "$$" "$1" "No such file or directory" >&2
  exit 1
fi
exec "$@"
"""


@dataclass(frozen=True)
class Distro:
    name: str
    version: int
    home: str
    default: bool = False
    state: str = "Running"
    #: Its programs' PATH (a distribution without python3 has its own).
    path: str = DISTRO_PATH
    #: (machine folder, folder of files planted over it) pairs (:func:`plant`).
    planted: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Scenario:
    name: str
    distros: tuple[Distro, ...] = ()
    installed: bool = True
    #: What ``-l`` prints: "real", or a hostile form (garbage, endless, silent, control).
    listing: str = "real"


@dataclass(frozen=True)
class Reply:
    """What wsl.exe answers by itself (a listing, an error): text in UTF-16LE, as it prints."""

    out: str = ""
    err: str = ""
    status: int = 0
    #: A listing, which a hostile scenario replaces.
    listing: bool = False


@dataclass(frozen=True)
class Command:
    distro: Distro
    cd: str | None
    argv: list[str]
    exec_mode: bool


def utf16(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode("utf-16-le")


# --- wsl.exe's command line --------------------------------------------------------------------


def parse(args: list[str], scenario: Scenario) -> Reply | Command:
    """What real wsl.exe does with ``args`` (its arguments after the program name)."""
    if not scenario.installed:
        return Reply(err=NOT_INSTALLED, status=1)
    distro = cd = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-l", "--list"):
            return listing(args[i + 1:], scenario)
        if arg == "--status":
            return status(scenario)
        if arg in ("-d", "--distribution", "--cd", "-e", "--exec") and i + 1 >= len(args):
            return Reply(err=MISSING_VALUE.format(arg), status=WSL_FAILED)
        if arg in ("-d", "--distribution", "--cd"):
            distro, cd = (args[i + 1], cd) if arg != "--cd" else (distro, args[i + 1])
            i += 2
        elif arg in ("-e", "--exec"):
            return command(scenario, distro, cd, args[i + 1:], exec_mode=True)
        elif arg == "--":
            return command(scenario, distro, cd, shell(args[i + 1:]), exec_mode=False)
        elif arg.startswith("-"):
            return Reply(err=INVALID_ARGUMENT.format(arg), status=WSL_FAILED)
        else:
            return command(scenario, distro, cd, shell(args[i:]), exec_mode=False)
    return command(scenario, distro, cd, ["/bin/sh"], exec_mode=False)


def shell(words: list[str]) -> list[str]:
    """The rest of the command line, through the default shell."""
    return ["/bin/sh", "-c", " ".join(words)] if words else ["/bin/sh"]


def command(scenario: Scenario, name: str | None, cd: str | None, argv: list[str], *,
            exec_mode: bool) -> Reply | Command:
    if not scenario.distros:
        return Reply(err=NO_DISTRIBUTION, status=WSL_FAILED)
    if name is None:
        return Command(next(d for d in scenario.distros if d.default), cd, argv, exec_mode)
    for distro in scenario.distros:
        if distro.name.lower() == name.lower():
            return Command(distro, cd, argv, exec_mode)
    return Reply(err=UNKNOWN_DISTRIBUTION, status=WSL_FAILED)


def listing(options: list[str], scenario: Scenario) -> Reply:
    if not scenario.distros:
        return Reply(err=NO_DISTRIBUTION, status=WSL_FAILED)
    distros = scenario.distros
    if "-q" in options or "--quiet" in options:
        return Reply(out="".join(f"{d.name}\n" for d in distros), listing=True)
    if "-v" in options or "--verbose" in options:
        width = max(len(d.name) for d in distros) + 4
        rows = [f"  {'NAME':<{width}}{'STATE':<16}VERSION"]
        rows += [f"{'*' if d.default else ' '} {d.name:<{width}}{d.state:<16}{d.version}"
                 for d in distros]
        return Reply(out="".join(f"{row}\n" for row in rows), listing=True)
    names = [f"{d.name} (Default)" if d.default else d.name for d in distros]
    return Reply(out="Windows Subsystem for Linux Distributions:\n" + "".join(
        f"{name}\n" for name in names), listing=True)


def status(scenario: Scenario) -> Reply:
    default = next((d for d in scenario.distros if d.default), None)
    if default is None:
        return Reply(err=NO_DISTRIBUTION, status=WSL_FAILED)
    return Reply(out=f"Default Distribution: {default.name}\nDefault Version: 2\n")


# --- Windows paths and WSLENV --------------------------------------------------------------------


def linux_path(path: str) -> str | None:
    """A Windows path as a WSL distribution reaches it (``C:\\x`` -> ``/mnt/c/x``,
    ``\\\\wsl$\\Distro\\x`` -> ``/x``); Linux paths stay; None for anything else."""
    if path.startswith("/"):
        return path
    path = path.replace("\\", "/")
    path = path[4:] if path.startswith("//?/") else path
    drive = re.match(r"([A-Za-z]):(/.*)?$", path)
    if drive:
        return f"/mnt/{drive[1].lower()}{drive[2] or '/'}".rstrip("/") or "/"
    share = re.match(r"//(wsl\$|wsl\.localhost)/[^/]+(/.*)?$", path, re.IGNORECASE)
    return (share[2] or "/") if share else None


def passed_variables(entries: list[str]) -> dict[str, str]:
    """The variables to set in Linux: WSLENV itself and those it names (``/p``: a path,
    ``/l``: a list of paths, translated; ``/w``: only from WSL to Windows, not passed)."""
    values = dict(entry.split("=", 1) for entry in entries if "=" in entry)
    wslenv = values.get("WSLENV", "")
    passed = {"WSLENV": wslenv} if wslenv else {}
    for item in filter(None, wslenv.split(":")):
        name, _, flags = item.partition("/")
        if name not in values or "w" in flags:
            continue
        value = values[name]
        if "p" in flags:
            value = linux_path(value) or value
        elif "l" in flags:
            value = ":".join(linux_path(p) or p for p in value.split(";") if p)
        passed[name] = value
    return passed


def linux_environment(distro: Distro, passed: dict[str, str]) -> dict[str, str]:
    user = pwd.getpwuid(os.getuid()).pw_name
    return {
        "PATH": distro.path, "HOME": distro.home, "USER": user, "LOGNAME": user,
        "SHELL": "/bin/sh", "LANG": "C.UTF-8", "HOSTTYPE": "x86_64",
        "NAME": socket.gethostname(), "WSL_DISTRO_NAME": distro.name,
        "WSL_INTEROP": f"/run/WSL/{os.getpid()}_interop", **passed,
    }


def working_folder(cd: str | None, windows_cwd: str, home: str) -> str:
    """``--cd`` (``~``, a Linux path or a Windows one), else wsl.exe's own folder translated."""
    if cd == "~":
        return home
    return linux_path(cd if cd is not None else windows_cwd) or home


# --- the connection ------------------------------------------------------------------------------


class Connection:
    """One stand-in's socket: frames in, frames out (from several threads)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.lock = threading.Lock()
        self.alive = True

    def read(self) -> tuple[int, bytes] | None:
        head = self._exactly(HEAD.size)
        if head is None:
            return None
        kind, size = HEAD.unpack(head)
        if size > MAX_FRAME:
            return None
        data = self._exactly(size)
        return None if data is None else (kind, data)

    def _exactly(self, size: int) -> bytes | None:
        data = b""
        while len(data) < size:
            try:
                chunk = self.sock.recv(min(CHUNK, size - len(data)))
            except OSError:
                return None
            if not chunk:
                return None
            data += chunk
        return data

    def send(self, kind: int, data: bytes = b"") -> bool:
        """Send one frame; False once the stand-in is gone (what follows is dropped)."""
        with self.lock:
            if self.alive:
                try:
                    self.sock.sendall(HEAD.pack(kind, len(data)) + data)
                except OSError:
                    self.alive = False
            return self.alive

    def exit(self, status: int) -> None:
        self.send(EXIT_STATUS, struct.pack(">I", status & 0xFFFFFFFF))
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        """Close once the stand-in has closed its side. A socket closed with unread input
        (the stand-in's stdin frames, which a listing never reads) sends a reset, and Windows
        then drops what the stand-in had not read yet: the exit status among it."""
        with contextlib.suppress(OSError):
            self.sock.settimeout(LINGER)
            while self.sock.recv(CHUNK):
                pass
        self.sock.close()


@dataclass
class Header:
    args: list[str]
    cwd: str
    env: list[str]


def read_header(conn: Connection) -> Header | None:
    parts: dict[int, bytes] = {}
    for kind in (ARGV, CWD, ENV):
        frame = conn.read()
        if frame is None or frame[0] != kind:
            return None
        parts[kind] = frame[1]

    def texts(data: bytes) -> list[str]:
        return [os.fsdecode(item) for item in data.split(b"\0")[:-1]]

    return Header(texts(parts[ARGV])[1:], os.fsdecode(parts[CWD]), texts(parts[ENV]))


class Server:
    def __init__(self, scenarios: dict[str, Scenario], drives: list[str], unshare: list[str]):
        self.scenarios = scenarios
        self.drives = drives
        self.unshare = unshare
        self.tracked: set[int] = set()
        self.lock = threading.Lock()

    def serve(self, scenario: Scenario, sock: socket.socket) -> None:
        conn = Connection(sock)
        try:
            header = read_header(conn)
            if header is not None:
                self.answer(scenario, conn, header)
        finally:
            conn.close()

    def answer(self, scenario: Scenario, conn: Connection, header: Header) -> None:
        action = parse(header.args, scenario)
        if isinstance(action, Command):
            self.run(conn, action, header)
        elif action.listing and scenario.listing != "real":
            hostile_listing(conn, scenario.listing)
        else:
            if action.out:
                conn.send(STDOUT_DATA, utf16(action.out))
            if action.err:
                conn.send(STDERR_DATA, utf16(action.err))
            conn.exit(action.status)

    def run(self, conn: Connection, cmd: Command, header: Header) -> None:
        env = linux_environment(cmd.distro, passed_variables(header.env))
        cwd = working_folder(cmd.cd, header.cwd, cmd.distro.home)
        mode = "exec" if cmd.exec_mode else "shell"
        # Without a mount namespace nothing is mounted (never over this machine's folders).
        drives = self.drives if self.unshare else []
        planted = [f"{target}={folder}" for target, folder in cmd.distro.planted
                   if self.unshare]
        argv = [*self.unshare, "/bin/sh", "-c", NAMESPACE_SCRIPT, "wsl-standin", cwd, mode,
                cmd.distro.path, *drives, "--", *planted, "--", *cmd.argv]
        with self.lock:  # the reaper must not wait for it before it is tracked
            proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True)
            self.tracked.add(proc.pid)
        readers = [threading.Thread(target=relay_output, args=(pipe, conn, kind), daemon=True)
                   for pipe, kind in ((proc.stdout, STDOUT_DATA), (proc.stderr, STDERR_DATA))]
        for reader in readers:
            reader.start()
        pump = threading.Thread(target=relay_input, args=(conn, proc), daemon=True)
        pump.start()
        code = proc.wait()
        for reader in readers:
            reader.join()
        with self.lock:
            self.tracked.discard(proc.pid)
        conn.exit(code if code >= 0 else 128 - code)
        pump.join()


def relay_output(pipe, conn: Connection, kind: int) -> None:
    """The command's output to the stand-in; read to its end even after the stand-in died,
    so that the command never blocks on a full pipe."""
    while data := os.read(pipe.fileno(), CHUNK):
        conn.send(kind, data)
    pipe.close()


def relay_input(conn: Connection, proc: subprocess.Popen) -> None:
    """The stand-in's stdin to the command's; its end, or the connection's, closes it."""
    stdin = proc.stdin
    assert stdin is not None
    while (frame := conn.read()) is not None and frame[0] == STDIN_DATA:
        with contextlib.suppress(OSError):  # the command closed its stdin: dropped
            stdin.write(frame[1])
            stdin.flush()
    with contextlib.suppress(OSError):
        stdin.close()


def hostile_listing(conn: Connection, kind: str) -> None:
    """A listing no reader should trust: binary noise, one that never ends, one that never
    comes, or a well-formed one whose name holds terminal escapes."""
    if kind == "garbage":
        conn.send(STDOUT_DATA, random.Random(20).randbytes(4096))
    elif kind == "endless":
        block = utf16("  NAME  STATE  VERSION\n" * 1000)
        while conn.send(STDOUT_DATA, block):
            pass
        return
    elif kind == "silent":
        while conn.read() is not None:  # until the caller gives up and kills the stand-in
            pass
        return
    elif kind == "control":
        conn.send(STDOUT_DATA, utf16("  NAME STATE VERSION\n* Ubu\x1b[31mntu Running 2\n"))
    conn.exit(0)


# --- processes -----------------------------------------------------------------------------------


def parents() -> dict[int, int]:
    """pid -> parent pid of every process (from /proc: no psutil on the lane's python3)."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                found[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return found


def descendants(root: int) -> list[int]:
    links = parents()
    out = []
    for pid in links:
        ancestor = links.get(pid)
        while ancestor is not None and ancestor != root and ancestor in links:
            ancestor = links[ancestor]
        if ancestor == root:
            out.append(pid)
    return out


def reap_orphans(server: Server) -> None:
    """Orphans of the commands become the server's children (a subreaper): wait for them."""
    while True:
        with server.lock:
            for pid in [p for p, parent in parents().items() if parent == os.getpid()]:
                if pid not in server.tracked:
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(pid, os.WNOHANG)
        time.sleep(0.2)


def kill_everything() -> None:
    for _ in range(100):
        victims = descendants(os.getpid())
        if not victims:
            return
        for pid in victims:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)
        for pid in victims:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)


def namespace_flags() -> list[str] | None:
    """How this machine gives a command a mount namespace: as root, else in a user namespace;
    None when neither works."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    for flags in (["--mount", "--propagation", "private"],
                  ["--user", "--map-root-user", "--mount", "--propagation", "private"]):
        probe = [unshare, *flags, "sh", "-c", "mount -t tmpfs none /mnt"]
        if subprocess.run(probe, capture_output=True, check=False).returncode == 0:
            return [unshare, *flags, "--"]
    return None


# --- the distributions ---------------------------------------------------------------------------


def make_home(folder: Path, venv: str | None) -> str:
    """A distribution user's home: ``tf`` (the test venv, with TensorFlow) and a Miniconda
    layout whose Pythons are the system's python3 (without TensorFlow)."""
    folder.mkdir(parents=True, exist_ok=True)
    if venv and not (folder / "tf").exists():
        (folder / "tf").symlink_to(venv, target_is_directory=True)
    system = shutil.which("python3", path="/usr/bin:/bin")
    for env in (folder / "miniconda3", folder / "miniconda3" / "envs" / "old"):
        (env / "conda-meta").mkdir(parents=True, exist_ok=True)
        (env / "bin").mkdir(exist_ok=True)
        if system and not (env / "bin" / "python").exists():
            (env / "bin" / "python").symlink_to(system)
    return str(folder)


def programs_without_python(folder: Path) -> str:
    """A PATH of a distribution without python3: sh and coreutils' timeout only."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("sh", "timeout"):
        found = shutil.which(name, path="/usr/bin:/bin")
        if found and not (folder / name).exists():
            (folder / name).symlink_to(found)
    return str(folder)


# --- distributions with a GPU ----------------------------------------------------------------

#: The Windows driver's nvidia-smi in WSL (/usr/lib/wsl/lib/nvidia-smi), as it answers.
NVIDIA_SMI = """#!/bin/sh
case "$*" in
  *--query-gpu=driver_version*) echo 560.94 ;;
  *) echo "NVIDIA-SMI 560.35.02    Driver Version: 560.94    CUDA Version: 12.6" ;;
esac
"""
#: Not a library: nothing loads it here (the doctor looks for the file).
LIBCUDA = "the stand-in of libcuda.so.1\n"
DPKG_RECORD = """Package: {name}
Status: {status}
Priority: optional
Section: restricted/libs
Installed-Size: 1
Maintainer: stand-in <nobody@example.invalid>
Architecture: amd64
Version: {version}
Description: the stand-in of a Linux NVIDIA driver package
"""
#: The usual folder of a Linux driver's libcuda that this machine has (a small one first: each
#: of its entries is linked again in every command's namespace; without either, /usr/lib
#: holds it).
LINUX_LIB = next((d for d in ("/usr/lib64", "/usr/lib/x86_64-linux-gnu")
                  if os.path.isdir(d) and not os.path.islink(d)), "/usr/lib/x86_64-linux-gnu")
#: pip's CUDA libraries (``tensorflow[and-cuda]``), as their installed records: the libraries
#: themselves serve only a GPU.
AND_CUDA = ("nvidia_cublas_cu12-12.5.3.2", "nvidia_cuda_runtime_cu12-12.5.82",
            "nvidia_cudnn_cu12-9.3.0.75")


@dataclass(frozen=True)
class Link:
    target: str


#: What the Windows NVIDIA driver gives every WSL 2 distribution, and the GPU device.
WINDOWS_DRIVER = {"/usr/lib/wsl/lib/libcuda.so.1": LIBCUDA,
                  "/usr/lib/wsl/lib/nvidia-smi": NVIDIA_SMI}
DXG = {"/dev/dxg": ""}
#: A Linux NVIDIA driver installed inside the distribution: its libcuda and apt's records (one
#: older driver removed, its configuration files left: not installed).
LINUX_DRIVER = {
    f"{LINUX_LIB}/libcuda.so.1": LIBCUDA,
    f"{LINUX_LIB}/libcuda.so": Link("libcuda.so.1"),
    "/var/lib/dpkg/status": "\n".join(
        DPKG_RECORD.format(name=name, status=status, version=version)
        for name, status, version in (
            ("nvidia-driver-550", "install ok installed", "550.120-0ubuntu1"),
            ("libnvidia-compute-550", "install ok installed", "550.120-0ubuntu1"),
            ("libnvidia-compute-535", "deinstall ok config-files", "535.183-0ubuntu1"))),
}


def plant(folder: Path, files: dict[str, str | Link]) -> tuple[tuple[str, str], ...]:
    """Write ``files`` (Linux path -> text or link) under ``folder``, grouped by the nearest
    folder of this machine that holds them; those (machine folder, planted folder) pairs are
    covered in each command's namespace (NAMESPACE_SCRIPT). A planted name is new in its
    machine folder, or a file there: it never hides a folder of this machine."""
    pairs: dict[str, str] = {}
    for path, content in files.items():
        target = Path(path).parent
        while not target.is_dir() or target.is_symlink():
            target = target.parent
        planted = folder / target.relative_to("/")
        dest = planted / Path(path).relative_to(target)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.is_symlink() or dest.exists():
            dest.unlink()
        if isinstance(content, Link):
            dest.symlink_to(content.target)
        else:
            dest.write_text(content)
            dest.chmod(0o755 if content.startswith("#!") else 0o644)
        for side in (".orig", ".work"):
            Path(f"{planted}{side}").mkdir(exist_ok=True)
        pairs[str(target)] = str(planted)
    return tuple(pairs.items())


def and_cuda_venv(folder: Path, venv: str) -> str:
    """A venv that sees ``venv``'s packages (a .pth file: TensorFlow) and holds the records of
    pip's CUDA libraries, as ``pip install tensorflow[and-cuda]`` leaves one."""
    def purelib(python: Path) -> Path:
        return Path(subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True, text=True, check=True).stdout.strip())

    if not (folder / "pyvenv.cfg").exists():
        subprocess.run([str(Path(venv) / "bin" / "python"), "-m", "venv", "--without-pip",
                        str(folder)], capture_output=True, check=True)
    site = purelib(folder / "bin" / "python")
    (site / "tensordeck-standin.pth").write_text(f"{purelib(Path(venv) / 'bin' / 'python')}\n")
    for record in AND_CUDA:
        name, version = record.split("-")
        (site / f"{record}.dist-info").mkdir(exist_ok=True)
        (site / f"{record}.dist-info" / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n")
    return str(folder)


def gpu_distros(state: Path, venv: str | None) -> tuple[Distro, ...]:
    """WSL 2 distributions on a machine with an NVIDIA GPU, each home's ``tf`` a venv with
    TensorFlow: Healthy (the Windows driver's files, /dev/dxg, pip's CUDA libraries, and a link
    to the driver's libcuda, which is no Linux driver), NoAndCuda (TensorFlow without pip's
    CUDA libraries), LinuxDriver (a Linux driver installed inside), NoWslLib (neither the
    driver's files nor /dev/dxg: an old Windows driver, an old WSL), NoDxg (an old WSL
    kernel)."""
    with_cuda = and_cuda_venv(state / "venvs" / "and-cuda", venv) if venv else None
    wsl = {**WINDOWS_DRIVER, **DXG}
    variants: dict[str, tuple[dict[str, str | Link], str | None]] = {
        "Healthy": ({**wsl, f"{LINUX_LIB}/libcuda.so": Link("/usr/lib/wsl/lib/libcuda.so.1")},
                    with_cuda),
        "NoAndCuda": (wsl, venv),
        "LinuxDriver": ({**wsl, **LINUX_DRIVER}, with_cuda),
        "NoWslLib": ({}, with_cuda),
        "NoDxg": (dict(WINDOWS_DRIVER), with_cuda),
    }
    return tuple(Distro(name, 2, make_home(state / "homes" / name.lower(), tf),
                        default=name == "Healthy", planted=plant(state / "planted" / name, files))
                 for name, (files, tf) in variants.items())


def scenarios(state: Path, venv: str | None) -> dict[str, Scenario]:
    ubuntu = Distro("Ubuntu-22.04", 2, make_home(state / "homes" / "ubuntu", venv), default=True)
    legacy = Distro("Legacy", 1, make_home(state / "homes" / "legacy", None), state="Stopped")
    minimal = Distro("Minimal", 2, make_home(state / "homes" / "minimal", None),
                     path=programs_without_python(state / "minimal-bin"))
    both = (ubuntu, legacy, minimal)
    return {
        "wsl": Scenario("wsl", both),
        "no-distro": Scenario("no-distro"),
        "not-installed": Scenario("not-installed", installed=False),
        "gpu": Scenario("gpu", gpu_distros(state, venv)),
        **{kind: Scenario(kind, both, listing=kind)
           for kind in ("garbage", "endless", "silent", "control")},
    }


def listen(server: Server, scenario: Scenario) -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)

    def accept() -> None:
        while True:
            conn, _ = sock.accept()
            threading.Thread(target=server.serve, args=(scenario, conn), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return sock.getsockname()[1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--venv", help="a venv with TensorFlow: Ubuntu-22.04's ~/tf")
    parser.add_argument("--drive", action="append", default=[],
                        help="LETTER=PATH: a Windows drive under /mnt (default: c=STATE/drive_c "
                             "and z=/)")
    args = parser.parse_args(argv)
    state = args.state.resolve()
    (state / "server.json").unlink(missing_ok=True)  # an earlier server's: its ports are gone
    (state / "drive_c").mkdir(parents=True, exist_ok=True)
    drives = args.drive or [f"c={state / 'drive_c'}", "z=/"]
    flags = namespace_flags()
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    server = Server(scenarios(state, args.venv), drives, flags or [])
    info = {"pid": os.getpid(),
            "ports": {name: listen(server, s) for name, s in server.scenarios.items()},
            "homes": {d.name: d.home for s in server.scenarios.values() for d in s.distros},
            "drives": drives,
            "no_namespace": None if flags else "no mount namespace here (unshare --mount "
                            "failed as this user, and in a user namespace): /mnt/<letter> "
                            "cannot be made"}
    (state / "server.json.tmp").write_text(json.dumps(info))
    os.replace(state / "server.json.tmp", state / "server.json")
    threading.Thread(target=reap_orphans, args=(server,), daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        sys.stdin.buffer.read()  # until whoever started the server is gone
    finally:
        kill_everything()


if __name__ == "__main__":
    main()
