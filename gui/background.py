"""Slow work (probes, file scans, NVML) off the GUI thread: ``run_in_background(fn, done)``
runs ``fn`` on Qt's thread pool and calls ``done(result)`` (or ``failed(exc)``) on the GUI
thread, through a queued signal."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QProcess, QRunnable, QThreadPool, Signal, Slot


class _Relay(QObject):
    """Lives on the GUI thread: a signal emitted to it from a worker is queued to that thread."""

    finished = Signal(object, object)  # result, exception

    def __init__(self, done: Callable[[Any], None],
                 failed: Callable[[BaseException], None] | None) -> None:
        super().__init__()
        self._done = done
        self._failed = failed
        self.finished.connect(self._deliver)

    @Slot(object, object)
    def _deliver(self, result: object, error: object) -> None:
        _pending.discard(self)
        self.deleteLater()
        if error is None:
            self._done(result)
        elif self._failed is not None:
            self._failed(error)  # type: ignore[arg-type]
        else:
            raise error  # type: ignore[misc]


class _Job(QRunnable):
    def __init__(self, fn: Callable[[], Any], relay: _Relay) -> None:
        super().__init__()
        self.fn = fn
        self.relay = relay

    def run(self) -> None:
        try:
            result, error = self.fn(), None
        except Exception as exc:  # delivered to the GUI thread, which shows it
            result, error = None, exc
        self.relay.finished.emit(result, error)


_pending: set[_Relay] = set()  # keeps each relay alive until its result was delivered


def run_in_background(fn: Callable[[], Any], done: Callable[[Any], None],
                      failed: Callable[[BaseException], None] | None = None) -> None:
    """Run ``fn()`` on a worker thread; ``done``/``failed`` run on the GUI thread."""
    relay = _Relay(done, failed)
    _pending.add(relay)
    QThreadPool.globalInstance().start(_Job(fn, relay))


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
