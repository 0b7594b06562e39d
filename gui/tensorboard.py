""""Open TensorBoard": ``python -m tensorboard.main --logdir RUN_DIR`` in the training
interpreter (TensorBoard comes with TensorFlow there), then the browser once it says where it
listens. A missing TensorBoard is reported with the command that installs it."""

from __future__ import annotations

import re

from PySide6.QtCore import QObject, QProcess, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices

from gui.background import start_process

_URL = re.compile(r"(https?://[^\s]+:\d+/?)")


class TensorBoard(QObject):
    """Signals: ``opened(url)``, ``failed(message)``."""

    opened = Signal(str)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None, open_browser: bool = True) -> None:
        super().__init__(parent)
        self._process: QProcess | None = None
        self._output = ""
        self._python = ""
        self._url: str | None = None
        self.open_browser = open_browser

    def start(self, python: str, logdir: str) -> None:
        if self._process is not None and self._url:
            self._open(self._url)
            return
        self.stop()
        self._python, self._output, self._url = python, "", None
        # --port 0: TensorBoard picks a free port and prints the URL.
        self._process = start_process(
            self, [python, "-m", "tensorboard.main", "--logdir", logdir, "--port", "0"],
            self._on_output, self._on_finished, self._on_error)

    def stop(self) -> None:
        if self._process is not None:
            process, self._process = self._process, None
            process.finished.disconnect(self._on_finished)
            process.kill()
            process.waitForFinished(3000)
            process.deleteLater()

    @Slot()
    def _on_output(self) -> None:
        if self._process is None:
            return
        self._output += bytes(self._process.readAllStandardOutput().data()).decode(
            "utf-8", "replace")
        if self._url is None:
            match = _URL.search(self._output)
            if match:
                self._url = match.group(1)
                self._open(self._url)

    def _open(self, url: str) -> None:
        if self.open_browser:
            QDesktopServices.openUrl(QUrl(url))
        self.opened.emit(url)

    @Slot(int, QProcess.ExitStatus)
    def _on_finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        self._process = None
        if "No module named" in self._output and "tensorboard" in self._output:
            self.failed.emit(self.tr(
                "TensorBoard is not installed in {python}. Install it with:\n"
                "{python} -m pip install tensorboard").format(python=self._python))
        elif self._url is None:
            tail = "\n".join(self._output.strip().splitlines()[-5:])
            self.failed.emit(self.tr("TensorBoard exited with code {code}:\n{tail}").format(
                code=code, tail=tail))

    @Slot(QProcess.ProcessError)
    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self._process = None
            self.failed.emit(self.tr("Cannot start {python}: the training interpreter is "
                                     "missing.").format(python=self._python))
