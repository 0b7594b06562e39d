"""Start a task as the root of its own process tree, stop that whole tree, and make sure no
tree outlives TensorDeck, even when TensorDeck itself is killed.

POSIX: each task leads a new session (so ``killpg`` reaches its children, and a Ctrl+C in the
terminal reaches only TensorDeck, which then stops the tasks in order). Two guards against
orphans: on Linux the task gets ``PR_SET_PDEATHSIG`` (SIGKILL when the spawning thread dies),
and on every POSIX system a watchdog process, holding a pipe from TensorDeck, kills every
registered process group when that pipe closes (TensorDeck exited or was killed).

Windows: ``terminate()`` does nothing useful to console programs. Each task starts suspended
in a new process group, is put into a Job Object with KILL_ON_JOB_CLOSE (the OS kills the tree
when TensorDeck's handle closes, however TensorDeck ends), then resumed. A graceful stop is a
CTRL_BREAK_EVENT to the group; a forced stop terminates the job.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from contextlib import suppress

IS_WINDOWS = sys.platform.startswith("win")


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


# --- Windows Job Objects ----------------------------------------------------------------------


class _WindowsJob:
    """A Job Object that kills its processes when its last handle closes."""

    def __init__(self) -> None:
        import ctypes
        from ctypes import wintypes

        self._ctypes = ctypes
        k32 = ctypes.WinDLL("kernel32", use_last_error=True)
        self._k32 = k32
        k32.CreateJobObjectW.restype = wintypes.HANDLE
        self.handle = k32.CreateJobObjectW(None, None)
        if not self.handle:
            raise ctypes.WinError(ctypes.get_last_error())

        class IoCounters(ctypes.Structure):
            _fields_ = [
                (n, ctypes.c_ulonglong)
                for n in (
                    "ReadOperationCount",
                    "WriteOperationCount",
                    "OtherOperationCount",
                    "ReadTransferCount",
                    "WriteTransferCount",
                    "OtherTransferCount",
                )
            ]

        class BasicLimits(ctypes.Structure):
            _fields_ = [
                ("PerProcessUserTimeLimit", ctypes.c_int64),
                ("PerJobUserTimeLimit", ctypes.c_int64),
                ("LimitFlags", wintypes.DWORD),
                ("MinimumWorkingSetSize", ctypes.c_size_t),
                ("MaximumWorkingSetSize", ctypes.c_size_t),
                ("ActiveProcessLimit", wintypes.DWORD),
                ("Affinity", ctypes.c_size_t),
                ("PriorityClass", wintypes.DWORD),
                ("SchedulingClass", wintypes.DWORD),
            ]

        class ExtendedLimits(ctypes.Structure):
            _fields_ = [
                ("BasicLimitInformation", BasicLimits),
                ("IoInfo", IoCounters),
                ("ProcessMemoryLimit", ctypes.c_size_t),
                ("JobMemoryLimit", ctypes.c_size_t),
                ("PeakProcessMemoryUsed", ctypes.c_size_t),
                ("PeakJobMemoryUsed", ctypes.c_size_t),
            ]

        info = ExtendedLimits()
        info.BasicLimitInformation.LimitFlags = 0x2000  # JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        job_object_extended_limit_information = 9
        if not k32.SetInformationJobObject(
            self.handle,
            job_object_extended_limit_information,
            ctypes.byref(info),
            ctypes.sizeof(info),
        ):
            raise ctypes.WinError(ctypes.get_last_error())

    def adopt_and_resume(self, process: subprocess.Popen) -> None:
        ctypes = self._ctypes
        handle = int(process._handle)  # type: ignore[attr-defined]
        if not self._k32.AssignProcessToJobObject(self.handle, handle):
            raise ctypes.WinError(ctypes.get_last_error())
        ntdll = ctypes.WinDLL("ntdll")
        ntdll.NtResumeProcess(handle)

    def terminate(self, code: int = 1) -> None:
        self._k32.TerminateJobObject(self.handle, code)

    def close(self) -> None:
        if self.handle:
            self._k32.CloseHandle(self.handle)
            self.handle = None


def _undo_frozen_dll_directory() -> None:
    """A PyInstaller-frozen app on Windows calls SetDllDirectory(bundle), which children
    inherit and which no environment variable can undo: reset it before starting tasks."""
    if IS_WINDOWS and getattr(sys, "frozen", False):
        import ctypes

        ctypes.WinDLL("kernel32").SetDllDirectoryW(None)


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
        self._job: _WindowsJob | None = None
        self._watchdog = watchdog
        common = dict(
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=dict(env),
            cwd=cwd,
            bufsize=0,
        )
        if IS_WINDOWS:
            _undo_frozen_dll_directory()
            create_suspended = 0x4
            self._job = _WindowsJob()
            self.popen = subprocess.Popen(
                list(argv),
                creationflags=subprocess.CREATE_NEW_PROCESS_GROUP | create_suspended,
                **common,
            )
            try:
                self._job.adopt_and_resume(self.popen)
            except OSError:
                self.popen.kill()
                raise
        else:
            self.popen = subprocess.Popen(
                list(argv), start_new_session=True, preexec_fn=_PREEXEC, **common
            )
            if watchdog:
                watchdog.watch(self.popen.pid)
        self.pid = self.popen.pid
        assert self.popen.stdout is not None
        self.stdout = self.popen.stdout

    def terminate_tree(self) -> None:
        """Ask the task and its children to exit (SIGTERM / CTRL_BREAK)."""
        with suppress(ProcessLookupError, PermissionError, OSError):
            if IS_WINDOWS:
                os.kill(self.pid, signal.CTRL_BREAK_EVENT)  # type: ignore[attr-defined]
            else:
                os.killpg(self.pid, signal.SIGTERM)

    def kill_tree(self) -> None:
        """Kill the task and every process it started."""
        with suppress(ProcessLookupError, PermissionError, OSError):
            if self._job:
                self._job.terminate()
            else:
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
        if self._job:
            self._job.close()
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
