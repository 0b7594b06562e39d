"""Windows process trees: a task starts suspended and windowless inside a Job Object, and is
asked to stop through a named event instead of a console signal.

Why not CTRL_BREAK: ``GenerateConsoleCtrlEvent`` reaches only processes attached to the
sender's console, so it fails whenever TensorDeck has none in common with the task (always for
the windowed app), and CPython 3.10/3.11 then TerminateProcess'es the task and raises
``SystemError``. Even where it works, Python's default SIGBREAK action ends the process without
running ``finally`` blocks or ``atexit``. Instead each task gets ``TENSORDECK_STOP_EVENT``, the
name of a manual-reset event; TensorDeck's runtime module (``sitecustomize`` on the task's
``PYTHONPATH``) waits on it in the task and, when it is set, delivers the stop the way a
console Ctrl+C would (the task's SIGTERM or SIGBREAK handler if it has one, else
KeyboardInterrupt). After ``stop_grace_seconds`` the Job Object ends the whole tree.

Standard library only, Python 3.7+, importable (and inert) on POSIX: the node agent runs this
file's source on nodes too (``core.remote.agent.agent_source``).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import uuid

IS_WINDOWS = sys.platform.startswith("win")

#: The environment variable naming a task's stop event (read by tensordeck_runtime).
STOP_EVENT_VARIABLE = "TENSORDECK_STOP_EVENT"
#: The exit code of a tree that TensorDeck ends by force: what a POSIX shell shows for SIGKILL.
KILLED_EXIT_CODE = 137

_CREATE_SUSPENDED = 0x00000004
_CREATE_NEW_PROCESS_GROUP = 0x00000200
#: A console of its own without a window: no console window pops up when the windowed app
#: starts a task, and a Ctrl+C typed in TensorDeck's console reaches TensorDeck only.
_CREATE_NO_WINDOW = 0x08000000
_JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
_JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9


def _kernel32():
    from ctypes import wintypes

    k32 = ctypes.WinDLL("kernel32", use_last_error=True)
    k32.CreateJobObjectW.restype = wintypes.HANDLE
    k32.CreateJobObjectW.argtypes = (ctypes.c_void_p, wintypes.LPCWSTR)
    k32.SetInformationJobObject.argtypes = (
        wintypes.HANDLE, ctypes.c_int, ctypes.c_void_p, wintypes.DWORD,
    )
    k32.AssignProcessToJobObject.argtypes = (wintypes.HANDLE, wintypes.HANDLE)
    k32.TerminateJobObject.argtypes = (wintypes.HANDLE, wintypes.UINT)
    k32.CloseHandle.argtypes = (wintypes.HANDLE,)
    k32.CreateEventW.restype = wintypes.HANDLE
    k32.CreateEventW.argtypes = (ctypes.c_void_p, wintypes.BOOL, wintypes.BOOL, wintypes.LPCWSTR)
    k32.SetEvent.argtypes = (wintypes.HANDLE,)
    return k32


def _check(ok: int, what: str) -> None:
    if not ok:
        err = ctypes.get_last_error()  # type: ignore[attr-defined]
        raise OSError(f"{what} failed: {ctypes.FormatError(err)} (error {err})")  # type: ignore[attr-defined]


def _limits_structure() -> type:
    """JOBOBJECT_EXTENDED_LIMIT_INFORMATION, laid out by ctypes for this process's bitness."""
    from ctypes import wintypes

    class IoCounters(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_ulonglong)
            for name in ("Read", "Write", "Other", "ReadBytes", "WriteBytes", "OtherBytes")
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

    return ExtendedLimits


class Job:
    """A Job Object whose processes all die when its last handle closes (TensorDeck exited,
    however it exited) or when :meth:`terminate` is called."""

    def __init__(self) -> None:
        self._k32 = _kernel32()
        self.handle = self._k32.CreateJobObjectW(None, None)
        _check(self.handle, "CreateJobObject")
        info = _limits_structure()()
        info.BasicLimitInformation.LimitFlags = _JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        ok = self._k32.SetInformationJobObject(
            self.handle, _JOB_OBJECT_EXTENDED_LIMIT_INFORMATION,
            ctypes.byref(info), ctypes.sizeof(info),
        )
        if not ok:
            self.close()
            _check(ok, "SetInformationJobObject")

    def adopt(self, process_handle: int) -> None:
        _check(self._k32.AssignProcessToJobObject(self.handle, process_handle),
               "AssignProcessToJobObject")

    def terminate(self, code: int = KILLED_EXIT_CODE) -> None:
        """End every process of the job now."""
        if self.handle:
            self._k32.TerminateJobObject(self.handle, code)

    def close(self) -> None:
        if self.handle:
            self._k32.CloseHandle(self.handle)
            self.handle = None


class StopEvent:
    """The named event a task waits on for a graceful stop (see the module docstring)."""

    def __init__(self) -> None:
        self._k32 = _kernel32()
        # Local\: this logon session; the random part keeps runs and tasks apart.
        self.name = f"Local\\tensordeck-stop-{os.getpid()}-{uuid.uuid4().hex}"
        self.handle = self._k32.CreateEventW(None, True, False, self.name)
        _check(self.handle, "CreateEvent")

    def set(self) -> None:
        if self.handle:
            self._k32.SetEvent(self.handle)

    def close(self) -> None:
        if self.handle:
            self._k32.CloseHandle(self.handle)
            self.handle = None


def _resume(process_handle: int) -> None:
    # Windows only (never called elsewhere): a checker run for another platform lacks WinDLL.
    ntdll = ctypes.WinDLL("ntdll")  # type: ignore[attr-defined]
    ntdll.NtResumeProcess.argtypes = (ctypes.c_void_p,)
    status = ntdll.NtResumeProcess(ctypes.c_void_p(process_handle)) & 0xFFFFFFFF
    if status >= 0x80000000:  # an NTSTATUS warning or error
        raise OSError(f"NtResumeProcess failed: NTSTATUS 0x{status:08X}")


class WindowsTree:
    """A process started suspended, windowless, in a new process group, put into its own Job
    Object before it runs a single instruction (so not even its earliest child can escape),
    then resumed. ``popen_args`` are passed to ``subprocess.Popen`` (env included)."""

    def __init__(self, argv: list[str], env: dict[str, str], **popen_args) -> None:
        self.stop_event = StopEvent()
        env = dict(env)
        env[STOP_EVENT_VARIABLE] = self.stop_event.name
        try:
            self.job = Job()
        except OSError:
            self.stop_event.close()
            raise
        flags = _CREATE_SUSPENDED | _CREATE_NEW_PROCESS_GROUP | _CREATE_NO_WINDOW
        try:
            self.popen = subprocess.Popen(argv, env=env, creationflags=flags, **popen_args)
        except OSError:
            self.close()
            raise
        try:
            self.job.adopt(int(self.popen._handle))  # type: ignore[attr-defined]
            _resume(int(self.popen._handle))  # type: ignore[attr-defined]
        except OSError:
            self.popen.kill()
            self.popen.wait()
            self.close()
            raise

    def stop(self) -> None:
        """Ask every Python process of the tree to stop (its handlers run)."""
        self.stop_event.set()

    def kill(self) -> None:
        """End the whole tree now."""
        self.job.terminate(KILLED_EXIT_CODE)

    def close(self) -> None:
        """Free the handles (closing the job kills whatever of the tree is left)."""
        if hasattr(self, "job"):
            self.job.close()
        self.stop_event.close()
