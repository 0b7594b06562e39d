""""Open TensorBoard": ``python -m tensorboard.main --logdir RUN_DIR`` in the training
interpreter (TensorBoard comes with TensorFlow there), then the browser once it says where it
listens (``url``). A missing TensorBoard is reported (``missing``) so that the window can offer
to install it there: :meth:`TensorBoard.install` runs ``python -m pip install tensorboard`` in
that interpreter, its output streamed (``install_output``), then ``installed(ok, message)``."""

from __future__ import annotations

import re

from PySide6.QtCore import QObject, QProcess, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from core.cmdline import join_args
from gui.background import start_process
from gui.style import monospace_font
from gui.widgets.screen_fit import within_screen

_URL = re.compile(r"(https?://[^\s]+:\d+/?)")


class TensorBoard(QObject):
    """Signals: ``opened(url)``, ``failed(message)``, ``missing(python)`` (TensorBoard is not
    installed in that interpreter), ``install_output(text)``, ``installed(ok, message)``."""

    opened = Signal(str)
    failed = Signal(str)
    missing = Signal(str)
    install_output = Signal(str)
    installed = Signal(bool, str)

    def __init__(self, parent: QObject | None = None, open_browser: bool = True) -> None:
        super().__init__(parent)
        self._process: QProcess | None = None
        self._output = ""
        self._python = ""
        self._url: str | None = None
        self._installer: QProcess | None = None
        self._install_log = ""
        self.open_browser = open_browser
        #: Whether a web browser took the last URL (False where none is installed).
        self.browser_opened = False
        self._logdir = ""

    @property
    def url(self) -> str | None:
        """Where TensorBoard listens, once it said so."""
        return self._url

    def start(self, python: str, logdir: str) -> None:
        """TensorBoard on ``logdir``; the one already serving it is opened again, one serving
        another run's folder is replaced."""
        if self._process is not None and self._url and (python, logdir) == (self._python,
                                                                             self._logdir):
            self._open(self._url)
            return
        self.stop()
        self._python, self._logdir, self._output, self._url = python, logdir, "", None
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
        self.browser_opened = self.open_browser and QDesktopServices.openUrl(QUrl(url))
        self.opened.emit(url)

    @Slot(int, QProcess.ExitStatus)
    def _on_finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        self._process = None
        if "No module named" in self._output and "tensorboard" in self._output:
            self.missing.emit(self._python)
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

    def install_command(self, python: str) -> list[str]:
        return [python, "-m", "pip", "install", "tensorboard"]

    def install(self, python: str) -> None:
        """``pip install tensorboard`` in ``python`` (the training interpreter), streamed."""
        if self._installer is not None:
            return
        self._install_log = ""
        self._python = python
        try:
            self._installer = start_process(self, self.install_command(python),
                                            self._on_install_output, self._on_install_finished,
                                            self._on_install_error)
        except ValueError as exc:  # a Windows batch file: not run through cmd.exe
            self.installed.emit(False, str(exc))

    @Slot()
    def _on_install_output(self) -> None:
        if self._installer is not None:
            text = bytes(self._installer.readAllStandardOutput().data()).decode(
                "utf-8", "replace")
            self._install_log += text
            self.install_output.emit(text)

    @Slot(int, QProcess.ExitStatus)
    def _on_install_finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        self._on_install_output()
        process, self._installer = self._installer, None
        if process is not None:
            process.deleteLater()
        if code == 0:
            self.installed.emit(True, self.tr("TensorBoard is installed in {python}.").format(
                python=self._python))
        else:
            last = (self._install_log.strip().splitlines() or [""])[-1]
            self.installed.emit(False, self.tr(
                "The install failed (exit code {code}): {last}").format(code=code, last=last))

    @Slot(QProcess.ProcessError)
    def _on_install_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart and self._installer is not None:
            self._installer.deleteLater()
            self._installer = None
            self.installed.emit(False, self.tr("Cannot start {python}.").format(
                python=self._python))


class InstallDialog(QDialog):
    """``pip install tensorboard`` in the training interpreter, its output as it comes, and the
    result in plain words."""

    def __init__(self, tensorboard: TensorBoard, python: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Install TensorBoard"))
        self.resize(within_screen(self, 760, 420))
        command = QLabel(join_args(tensorboard.install_command(python)))
        command.setFont(monospace_font())
        command.setWordWrap(True)
        self.output = QPlainTextEdit()
        self.output.setObjectName("log")
        self.output.setReadOnly(True)
        self.output.setFont(monospace_font())
        self.result = QLabel(self.tr("Installing…"))
        self.result.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(command)
        layout.addWidget(self.output, 1)
        layout.addWidget(self.result)
        layout.addWidget(self.buttons)
        self.ok: bool | None = None
        tensorboard.install_output.connect(self._on_output)
        tensorboard.installed.connect(self._on_installed)
        tensorboard.install(python)

    @Slot(str)
    def _on_output(self, text: str) -> None:
        self.output.moveCursor(self.output.textCursor().MoveOperation.End)
        self.output.insertPlainText(text)

    @Slot(bool, str)
    def _on_installed(self, ok: bool, message: str) -> None:
        self.ok = ok
        self.result.setText(message)
        self.result.setObjectName("" if ok else "problem")
        self.result.setStyleSheet("")  # the object name changed: restyle
