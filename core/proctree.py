"""Start a task as the root of its own process tree, stop that whole tree, and make sure no
tree outlives TensorDeck, even when TensorDeck itself is killed.

POSIX: each task leads a new session (so ``killpg`` reaches its children, and a Ctrl+C in the
terminal reaches only TensorDeck, which then stops the tasks in order). Two guards against
orphans: on Linux the task gets ``PR_SET_PDEATHSIG`` (SIGKILL when the spawning thread dies),
and on every POSIX system a watchdog process, holding a pipe from TensorDeck, kills every
registered process group when that pipe closes (TensorDeck exited or was killed).

Windows (core.wintree): each task starts suspended and windowless, is put into a Job Object
with KILL_ON_JOB_CLOSE (the OS kills the tree when TensorDeck's handle closes, however
TensorDeck ends), then resumed. A graceful stop sets the task's stop event, which TensorDeck's
runtime module turns into the task's own SIGTERM/SIGBREAK handler or a KeyboardInterrupt; a
forced stop terminates the job.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from contextlib import suppress

from core.wintree import IS_WINDOWS, STOP_EVENT_VARIABLE, WindowsTree


def exit_status(returncode: int) -> int:
    """A process's exit status as a shell reports it: 128+N for death by signal N."""
    return 128 - returncode if returncode < 0 else returncode


# --- Linux parent-death signal --------------------------------------------------------------


def _pdeathsig_preexec():
    """A preexec function that asks Linux to SIGKILL the child when its parent thread dies."""
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


_PREEXEC = _pdeathsig_preexec()


def _undo_frozen_dll_directory() -> None:
    """A PyInstaller-frozen app on Windows calls SetDllDirectory(bundle), which children
    inherit and which no environment variable can undo: reset it before starting tasks."""
    if IS_WINDOWS and getattr(sys, "frozen", False):
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
        common = dict(
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
                list(argv), env=dict(env), start_new_session=True, preexec_fn=_PREEXEC, **common
            )
            if watchdog:
                watchdog.watch(self.popen.pid)
        self.pid = self.popen.pid
        assert self.popen.stdout is not None
        self.stdout = self.popen.stdout

    def terminate_tree(self) -> None:
        """Ask the task and its children to exit (SIGTERM; on Windows the stop event)."""
        if self._tree:
            self._tree.stop()
            return
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGTERM)

    def kill_tree(self) -> None:
        """Kill the task and every process it started."""
        if self._tree:
            self._tree.kill()
            return
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)

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


# --- the POSIX watchdog -----------------------------------------------------------------------

WATCHDOG_CODE = r"""
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
groups = set()
for line in sys.stdin:
    op, pgid = line[0], int(line[1:])
    (groups.add if op == "+" else groups.discard)(pgid)
for pgid in groups:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
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

    def _send(self, line: str) -> None:
        with suppress(OSError, ValueError):
            assert self._proc.stdin is not None
            self._proc.stdin.write(line.encode())
            self._proc.stdin.flush()

    def watch(self, pgid: int) -> None:
        self._send(f"+{pgid}\n")

    def unwatch(self, pgid: int) -> None:
        self._send(f"-{pgid}\n")

    def close(self) -> None:
        """Normal end: every task was already stopped, so the watchdog has nothing to kill and
        exits by itself (not waited for: that would only add its start-up time to every run)."""
        with suppress(OSError, ValueError):
            assert self._proc.stdin is not None
            self._proc.stdin.close()


def make_watchdog() -> Watchdog | None:
    """The watchdog where one is needed (POSIX; Windows has Job Objects)."""
    if IS_WINDOWS:
        return None
    if getattr(sys, "frozen", False):
        # A frozen app has no plain interpreter: its executables run the same code as the
        # hidden command ``_watchdog`` (resources/installer/entry_cli.py).
        return Watchdog([sys.executable, "_watchdog"])
    return Watchdog()
