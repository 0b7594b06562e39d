"""Start a task as the root of its own process tree, stop that whole tree, and make sure no
tree outlives TensorDeck, even when TensorDeck itself is killed.

POSIX: each task leads a new session (so ``killpg`` reaches its children, and a Ctrl+C in the
terminal reaches only TensorDeck, which then stops the tasks in order). Orphans: a watchdog
process in its own session, deaf to SIGINT, SIGTERM and SIGHUP and holding a pipe from
TensorDeck, kills every registered process group when that pipe closes (TensorDeck exited or
was killed); the supervisor replaces a killed watchdog. Tasks get no parent-death signal: its
preexec function would make Python fork the whole launcher instead of vfork (5 ms a task), for
a case the watchdog covers.

Windows (core.wintree): each task starts suspended and windowless, is put into a Job Object
with KILL_ON_JOB_CLOSE (the OS kills the tree when TensorDeck's handle closes, however
TensorDeck ends), then resumed. A graceful stop sets the task's stop event, which TensorDeck's
runtime module turns into the task's own SIGTERM/SIGBREAK handler or a KeyboardInterrupt; a
forced stop terminates the job.
"""

from __future__ import annotations

import functools
import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from typing import Any

IS_WINDOWS = sys.platform.startswith("win")
if IS_WINDOWS:  # ctypes structures and uuid: not worth importing where they are never used
    from core.wintree import STOP_EVENT_VARIABLE, WindowsTree


def exit_status(returncode: int) -> int:
    """A process's exit status as a shell reports it: 128+N for death by signal N."""
    return 128 - returncode if returncode < 0 else returncode


# --- Linux parent-death signal --------------------------------------------------------------


@functools.cache
def pdeathsig_preexec() -> Callable[[], None] | None:
    """A preexec function that asks Linux to SIGKILL the child when its parent thread dies
    (for the Slurm stand-in's srun, core.slurm.where: a small process, cheap to fork);
    None elsewhere. Made on first use: ctypes is not worth loading on the launch path."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def preexec() -> None:  # runs in the child between fork and exec: keep it to one syscall
        prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)

    return preexec


def _undo_frozen_dll_directory() -> None:
    """A PyInstaller-frozen app on Windows calls SetDllDirectory(bundle), which children
    inherit and which no environment variable can undo: reset it before starting tasks."""
    if sys.platform == "win32" and getattr(sys, "frozen", False):
        import ctypes

        ctypes.WinDLL("kernel32").SetDllDirectoryW(None)


def listen_for_windows_stop() -> bool:
    """Make this TensorDeck process stoppable the way its tasks are (core.wintree): when it was
    started with a stop event (it is itself a task: a remote stand-in, or a launcher started by
    a TensorDeck), the event raises its SIGTERM handler. False where there is none."""
    if not IS_WINDOWS or not os.environ.get(STOP_EVENT_VARIABLE):
        return False
    from core.paths import resource

    sys.path.insert(0, str(resource("runtime")))
    import tensordeck_runtime

    return tensordeck_runtime.listen_for_stop()


# --- the task process -------------------------------------------------------------------------


class TaskProcess:
    """A running task and its whole process tree."""

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: str | None = None,
        watchdog: Watchdog | None = None,
    ) -> None:
        self._tree: WindowsTree | None = None
        self._watchdog = watchdog
        common: dict[str, Any] = dict(
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            bufsize=0,
        )
        if IS_WINDOWS:
            _undo_frozen_dll_directory()
            self._tree = WindowsTree(list(argv), dict(env), **common)
            self.popen = self._tree.popen
        else:
            self.popen = subprocess.Popen(
                list(argv), env=dict(env), start_new_session=True, **common
            )
            if watchdog:
                watchdog.watch(self.popen.pid)
        self.pid = self.popen.pid
        assert self.popen.stdout is not None
        self.stdout = self.popen.stdout
        self._abandoned = False
        # POSIX: waits (ms) until the pipe is readable; a bound method, as select.poll is no
        # name on Windows.
        self._poll: Callable[[float], list[tuple[int, int]]] | None = None
        if sys.platform != "win32":
            poller = select.poll()
            poller.register(self.stdout.fileno(), select.POLLIN | select.POLLHUP)
            self._poll = poller.poll

    def read(self, size: int) -> bytes:
        """The task's next output; b"" at its end, or once :meth:`abandon_output` was called.
        On POSIX a detached descendant (double fork + setsid) can hold the pipe open forever
        after the task exited; on Windows the Job Object ends every holder of the pipe."""
        fd = self.stdout.fileno()
        if self._poll is None:
            return os.read(fd, size)
        while not self._abandoned:
            if self._poll(250):
                return os.read(fd, size)
        return b""

    def abandon_output(self) -> None:
        """Stop waiting for output (thread-safe): the task is gone, what holds the pipe is not."""
        self._abandoned = True

    def terminate_tree(self) -> None:
        """Ask the task and its children to exit (SIGTERM; on Windows the stop event)."""
        if sys.platform == "win32":
            self._windows_tree().stop()
            return
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGTERM)

    def kill_tree(self) -> None:
        """Kill the task and every process it started."""
        if sys.platform == "win32":
            self._windows_tree().kill()
            return
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)

    def _windows_tree(self) -> WindowsTree:
        assert self._tree is not None, "every Windows task starts in a WindowsTree"
        return self._tree

    def poll(self) -> int | None:
        return self.popen.poll()

    def wait(self) -> int:
        return self.popen.wait()

    def release(self) -> None:
        """After the task exited: kill leftovers of its tree and free its handles."""
        self.kill_tree()
        if self._watchdog:
            self._watchdog.unwatch(self.pid)
        if self._tree:
            self._tree.close()
        self.stdout.close()


def kill_escaped(run_dir: str, task: str | None = None) -> int:
    """Kill what left a task's process tree but carries its environment: a daemon that
    double-forked into a session of its own (so no process-group kill reaches it), e.g. one that
    points its output at /dev/null. ``task`` limits it to one task's descendants. Returns how
    many. Windows needs none of this: nothing leaves a Job Object."""
    if sys.platform == "win32":
        return 0
    if os.path.isdir("/proc"):
        return _kill_escaped_proc(run_dir, task)
    import psutil

    killed = 0
    for proc in psutil.process_iter():
        try:
            env = proc.environ()
            if env.get("TENSORDECK_RUN_DIR") != run_dir or proc.pid == os.getpid():
                continue
            if task is None or env.get("TENSORDECK_TASK") == task:
                proc.kill()
                killed += 1
        except (psutil.Error, OSError):
            continue
    return killed


def _kill_escaped_proc(run_dir: str, task: str | None) -> int:
    """kill_escaped from /proc's environ files: at the end of every run, so without the cost
    of importing psutil and of its per-process objects."""
    if sys.platform == "win32":  # no /proc (nor SIGKILL) there: said for type checkers
        return 0
    # fsencode: as the task's environment was encoded (a file name may hold lone surrogates).
    wanted = {os.fsencode(f"TENSORDECK_RUN_DIR={run_dir}")}
    if task is not None:
        wanted.add(os.fsencode(f"TENSORDECK_TASK={task}"))
    me, killed = os.getpid(), 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as file:
                if wanted <= set(file.read().split(b"\0")):
                    os.kill(int(entry), signal.SIGKILL)
                    killed += 1
        except OSError:  # gone meanwhile, or another user's
            continue
    return killed


# --- the POSIX watchdog -----------------------------------------------------------------------

WATCHDOG_CODE = r"""
import json, os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
groups, runs = set(), set()
# One frame a line: a JSON array [operation, argument], ASCII (json escapes every line break
# inside a folder's name). What is not a frame is skipped: no input ends the watchdog early.
for line in sys.stdin.buffer:
    try:
        op, arg = json.loads(line)
        if op == "run" and type(arg) is str:  # the folder's bytes, one character each
            runs.add(b"TENSORDECK_RUN_DIR=" + arg.encode("latin-1"))
        elif op in ("watch", "unwatch") and type(arg) is int and arg > 1:  # 0, 1: not a task's
            (groups.add if op == "watch" else groups.discard)(arg)
    except Exception:
        pass
for pgid in groups:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except Exception:
        pass
# Descendants that left their task's group (setsid): found by the run folder in their
# environment (Linux /proc; the launcher does the same with psutil while it lives).
if runs and os.path.isdir("/proc"):
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/" + pid + "/environ", "rb") as f:
                if runs & set(f.read().split(b"\0")):
                    os.kill(int(pid), signal.SIGKILL)
        except (OSError, ValueError):
            pass
"""


class Watchdog:
    """A small process that kills every registered process group once TensorDeck is gone
    (its stdin pipe closes when TensorDeck exits, however it exits)."""

    def __init__(self, argv: Sequence[str] | None = None) -> None:
        self._proc = subprocess.Popen(
            list(argv or [sys.executable, "-I", "-S", "-c", WATCHDOG_CODE]),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def _send(self, op: str, arg: int | str) -> None:
        """One frame of the watchdog's protocol (WATCHDOG_CODE): one line whatever ``arg``
        holds, as json writes ASCII and escapes every line break."""
        with suppress(OSError, ValueError):
            assert self._proc.stdin is not None
            self._proc.stdin.write(json.dumps([op, arg]).encode("ascii") + b"\n")
            self._proc.stdin.flush()

    def alive(self) -> bool:
        return self._proc.poll() is None

    def watch(self, pgid: int) -> None:
        self._send("watch", pgid)

    def unwatch(self, pgid: int) -> None:
        self._send("unwatch", pgid)

    def watch_run(self, run_dir: str) -> None:
        """Also kill, at the end, every process whose environment names this run folder:
        sent as the bytes the tasks' environment holds (os.fsencode), one character a byte."""
        self._send("run", os.fsencode(run_dir).decode("latin-1"))

    def close(self) -> None:
        """Normal end: every task was already stopped, so the watchdog has nothing to kill and
        exits by itself (not waited for: that would only add its start-up time to every run)."""
        with suppress(OSError, ValueError):
            assert self._proc.stdin is not None
            self._proc.stdin.close()


def make_watchdog() -> Watchdog | None:
    """The watchdog where one is needed (POSIX; Windows has Job Objects)."""
    if sys.platform == "win32":
        return None
    if getattr(sys, "frozen", False):
        # A frozen app has no plain interpreter: its executables run the same code as the
        # hidden command ``_watchdog`` (resources/installer/entry_cli.py).
        return Watchdog([sys.executable, "_watchdog"])
    return Watchdog()
