"""Slow work (probes, file scans, NVML) off the GUI thread: ``run_in_background(fn, done)``
runs ``fn`` on a worker thread and calls ``done(result)`` (or ``failed(exc)``) on the GUI
thread, through a queued signal.

A worker never owns a Qt object, so none is ever freed on it: it is a plain Python thread (no
QRunnable, whose wrapper the pool freed on its thread) and it emits a signal of one relay that
lives as long as the application, with a job number; the callbacks wait in a dict on the GUI
thread. (A relay per job and a QRunnable per job, freed on workers while the GUI thread still
had their deletion queued, crashed the window with exit 139, "QObject: shared QObject was deleted
directly".) A callback bound to a Qt object that was deleted meanwhile (a method of it, or a
lambda that captured it) is not called.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import sys
import threading
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QProcess, Signal, Slot


class _Relay(QObject):
    """Lives on the GUI thread: a signal emitted to it from a worker is queued to that thread."""

    finished = Signal(int, object, object)  # job, result, exception

    def __init__(self) -> None:
        super().__init__()
        self._jobs: dict[int, tuple[Callable[[Any], None],
                                    Callable[[BaseException], None] | None]] = {}
        self._numbers = itertools.count()
        self.finished.connect(self._deliver)

    def add(self, done: Callable[[Any], None],
            failed: Callable[[BaseException], None] | None) -> int:
        number = next(self._numbers)
        self._jobs[number] = (done, failed)
        return number

    @Slot(int, object, object)
    def _deliver(self, number: int, result: object, error: object) -> None:
        done, failed = self._jobs.pop(number)
        if error is None:
            if _alive(done):
                done(result)
        elif failed is not None:
            if _alive(failed):
                failed(error)  # type: ignore[arg-type]
        else:
            raise error  # type: ignore[misc]


def _alive(callback: Callable[..., Any]) -> bool:
    """False when a Qt object the callback belongs to was deleted while the job ran (a closed
    dialog, the view of a window that closed): the object of a method, and the Qt objects a
    lambda or nested function captured or took as default arguments."""
    return all(shiboken6.isValid(obj) for obj in _qt_objects(callback))


def _qt_objects(callback: Callable[..., Any]) -> list[QObject]:
    cells = []
    for cell in getattr(callback, "__closure__", None) or ():
        with contextlib.suppress(ValueError):  # a cell not yet filled
            cells.append(cell.cell_contents)
    held = [getattr(callback, "__self__", None), *(getattr(callback, "__defaults__", None) or ()),
            *cells]
    return [obj for obj in held if isinstance(obj, QObject)]


_relay: _Relay | None = None


def _work(fn: Callable[[], Any], number: int) -> None:
    try:
        result, error = fn(), None
    except Exception as exc:  # delivered to the GUI thread, which shows it
        result, error = None, exc
    del fn  # a closure's last reference goes here, not in the relay's queue
    relay = _relay
    try:
        if relay is not None:
            relay.finished.emit(number, result, error)
    except RuntimeError:  # the application (and the relay with it) ended meanwhile
        pass


def run_in_background(fn: Callable[[], Any], done: Callable[[Any], None],
                      failed: Callable[[BaseException], None] | None = None) -> None:
    """Run ``fn()`` on a worker thread; ``done``/``failed`` run on the GUI thread."""
    global _relay
    if _relay is None or not shiboken6.isValid(_relay):
        _relay = _Relay()
        # Owned by the application, deleted with it on the GUI thread, never by Python.
        _relay.setParent(QCoreApplication.instance())
    number = _relay.add(done, failed)
    # A daemon: a probe that hangs (a broken TensorFlow) must not hold the app's exit.
    threading.Thread(target=_work, args=(fn, number), name="tensordeck-background",
                     daemon=True).start()


#: What Windows runs through cmd.exe even when started as a program, re-parsing the arguments
#: by cmd's rules (the "BatBadBut" problem): no argument list is safe for them.
_BATCH_SUFFIXES = (".bat", ".cmd")


def resolve_program(program: str, platform: str = sys.platform) -> str:
    """``program`` as the file that would run (PATH and, on Windows, PATHEXT searched).
    ValueError for a Windows batch file, which would take its arguments through cmd.exe."""
    found = shutil.which(program) or program
    if platform.startswith("win") and os.path.splitext(found)[1].lower() in _BATCH_SUFFIXES:
        raise ValueError(f"{found} is a batch file: Windows would run it through cmd.exe, "
                         "which re-reads its arguments; run it from a terminal instead")
    return found


def start_process(parent: QObject, argv: list[str], on_output: Callable[[], None],
                  on_finished: Callable[..., None],
                  on_error: Callable[..., None]) -> QProcess:
    """A child program whose output (stdout and stderr merged) arrives on the GUI thread as it
    comes (a fix command, TensorBoard): never blocks the window. No shell is involved: each
    element of ``argv`` reaches the program as one argument (ValueError for a Windows batch
    file, see :func:`resolve_program`)."""
    program = resolve_program(argv[0])
    process = QProcess(parent)
    process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
    process.readyReadStandardOutput.connect(on_output)
    process.finished.connect(on_finished)
    process.errorOccurred.connect(on_error)
    process.start(program, argv[1:])
    return process
