"""The Machine view's "Explain an error": paste an output (or open a log), and the doctor's
``explain()`` names the cause and the fix, as ``tensordeck doctor --explain FILE`` does.

A log is read with the command line's ``read_captured`` (same bounds, decoding and refusals),
and both the read and ``explain()`` run off the GUI thread: a log of megabytes, or a FIFO
``read_captured`` waits for, never freezes the window. The fix steps of a pasted output may be
for another machine: its cards offer Copy, never Run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core.doctor.kb import is_version_text
from gui.background import run_in_background
from gui.i18n import core_text
from gui.style import monospace_font
from gui.views.cards import FindingCard, clear_layout
from gui.widgets.screen_fit import within_screen

if TYPE_CHECKING:
    from core.doctor.capture import Captured, CaptureError
    from core.findings import Finding

def _label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.PlainText)  # a path or a pasted text is never HTML
    label.setWordWrap(True)
    label.hide()
    return label


def _say(label: QLabel, text: str) -> None:
    """``text`` on ``label``; an empty label takes no room."""
    label.setText(text)
    label.setVisible(bool(text))


class ExplainDialog(QDialog):
    """Non-modal: the user can copy a fix's command into a terminal while it stays open."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Explain an error"))
        self.resize(within_screen(self, 860, 680))
        self.busy = False
        self.paste = QPlainTextEdit()
        self.paste.setFont(monospace_font())
        self.paste.setPlaceholderText(self.tr(
            "Paste the error output here: what 'import tensorflow' printed, or the end of the "
            "training run's output."))
        self.open_button = QPushButton(self.tr("Open a log…"))
        self.platform = QComboBox()
        # What the CLI's --platform takes; None: the doctor reads it from the paths in the text.
        for text, value in ((self.tr("Detect from the text"), None), ("Windows", "windows"),
                            ("Linux", "linux"), ("WSL", "wsl")):
            self.platform.addItem(text, value)
        self.tf_version = QLineEdit()
        self.tf_version.setPlaceholderText(self.tr("e.g. 2.10"))
        self.tf_version.setToolTip(self.tr("The TensorFlow version, where the output does not "
                                           "say it (major.minor)"))

        self.cuda_version = QLineEdit()
        self.cuda_version.setPlaceholderText(self.tr("e.g. 12.2"))
        self.cuda_version.setToolTip(self.tr("The CUDA toolkit installed where the output came "
                                             "from, where the output does not say it"))
        for field in (self.tf_version, self.cuda_version):  # the placeholder in full
            field.setFixedWidth(field.fontMetrics().horizontalAdvance(
                field.placeholderText()) + 24)
        self.version_problem = _label("problem")
        self.version_problem.setAlignment(Qt.AlignmentFlag.AlignRight)  # under the field
        self.explain_button = QPushButton(self.tr("Explain"))
        self.explain_button.setDefault(True)
        self.status = _label("muted")
        self.problem = _label("problem")
        self.note = _label("muted")  # what read_captured left out of a big log
        self.cards = QVBoxLayout()
        self._lay_out()
        self.open_button.clicked.connect(self.open_log)
        self.explain_button.clicked.connect(self.explain)
        for field in (self.tf_version, self.cuda_version):
            field.textEdited.connect(lambda _text: _say(self.version_problem, ""))
        # The note was about the log opened: an edit makes it another text.
        self.paste.textChanged.connect(lambda: _say(self.note, ""))
        for keys in ("Ctrl+Return", "Ctrl+Enter"):  # Return alone is a new line in the paste
            QShortcut(QKeySequence(keys), self, self.explain)

    def _lay_out(self) -> None:
        options = QHBoxLayout()
        options.addWidget(self.open_button)
        options.addStretch(1)
        options.addWidget(QLabel(self.tr("Platform:")))
        options.addWidget(self.platform)
        options.addWidget(QLabel(self.tr("TensorFlow version:")))
        options.addWidget(self.tf_version)
        options.addWidget(QLabel(self.tr("CUDA installed:")))
        options.addWidget(self.cuda_version)
        options.addWidget(self.explain_button)
        body = QWidget()
        column = QVBoxLayout(body)
        column.addLayout(self.cards)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        layout = QVBoxLayout(self)
        layout.addWidget(self.paste, 2)
        layout.addLayout(options)
        for label in (self.version_problem, self.problem, self.status, self.note):
            layout.addWidget(label)
        layout.addWidget(scroll, 3)

    # --- reading a log ------------------------------------------------------------------------

    def open_log(self) -> None:
        """Read the chosen log as ``doctor --explain FILE`` does, put it in the box and explain
        it (the user opened it to have it explained)."""
        if self.busy:
            return
        path, _filter = QFileDialog.getOpenFileName(self, self.tr("Open a log"))
        if not path:
            return
        from core.doctor.capture import read_captured

        self._start()
        run_in_background(lambda: read_captured(path),
                          lambda captured: self._on_log_read(path, captured), self._on_failed)

    def _on_log_read(self, path: str, captured: Captured) -> None:
        self._finish()
        if not captured.text.strip():
            self._say_problem(self.tr("{path} is empty: open the file that holds the error "
                                      "output, or paste the output").format(path=path))
            return
        self.paste.setPlainText(captured.text)
        self.paste.moveCursor(QTextCursor.MoveOperation.End)  # an output's error is at its end
        _say(self.note, core_text(captured.note or ""))
        # The text read, not the box's: an editor turns U+2028/U+2029 into line ends.
        self._explain(captured.text)

    # --- explaining ---------------------------------------------------------------------------

    def explain(self) -> None:
        """``explain()`` of the box's text with the chosen platform and version, off the GUI
        thread; its findings replace the cards shown."""
        if not self.busy:  # a second click or Ctrl+Return while it runs: one answer
            self._explain(self.paste.toPlainText())

    def _explain(self, text: str) -> None:
        versions = self._checked_versions()
        if versions is None:
            return
        tf_version, cuda_version = versions
        if not text.strip():
            self._say_problem(self.tr("Paste an error output or open a log first"))
            return
        from core.doctor.explain import explain

        platform = self.platform.currentData()
        self._start()
        run_in_background(lambda: explain(text, platform=platform, tf_version=tf_version,
                                          cuda_version=cuda_version),
                          self._show, self._on_failed)

    def _checked_versions(self) -> tuple[str | None, str | None] | None:
        """The TensorFlow and CUDA versions typed (None where a field is empty), as the CLI's
        --tf-version / --cuda-version take them; None after saying which one is no version."""
        values = [field.text().strip() for field in (self.tf_version, self.cuda_version)]
        if any(value and not is_version_text(value) for value in values):
            _say(self.version_problem, self.tr("Not a version: give major.minor, e.g. 2.10"))
            return None
        _say(self.version_problem, "")
        return values[0] or None, values[1] or None

    def _show(self, findings: list[Finding]) -> None:
        self._finish()
        clear_layout(self.cards)
        for finding in findings:  # said in the window's language (core.messages)
            self.cards.addWidget(FindingCard(finding, runnable=False))
        _say(self.status, self.tr("{n} finding(s), the most likely cause first").format(
            n=len(findings)))

    def _on_failed(self, exc: BaseException) -> None:
        """A log ``read_captured`` refuses (a folder, a missing file: its message), or a
        failure of the doctor itself."""
        from core.doctor.capture import CaptureError

        self._finish()
        if isinstance(exc, CaptureError):
            self._say_problem(self._refusal(exc))
        else:
            self._say_problem(self.tr("The doctor failed: {error}").format(
                error=f"{type(exc).__name__}: {exc}"))

    def _refusal(self, exc: CaptureError) -> str:
        """Why the log cannot be read, with the window's remedies (the CLI's are its options)."""
        return {
            "unreadable": self.tr("Cannot read {path}: {reason}. Open another file, or paste "
                                  "the output"),
            "not-a-file": self.tr("{path} is not a file (a folder or a device?): open the file "
                                  "that holds the error output, or paste the output"),
            "silent-fifo": self.tr("{path} is a pipe no program wrote to in {reason} s: start "
                                   "the program that writes it first, or paste the output"),
        }[exc.why].format(path=exc.source, reason=exc.detail)

    # --- state --------------------------------------------------------------------------------

    def _start(self) -> None:
        self.busy = True
        _say(self.problem, "")
        _say(self.status, self.tr("Reading…"))
        for button in (self.explain_button, self.open_button):
            button.setEnabled(False)

    def _finish(self) -> None:
        self.busy = False
        _say(self.status, "")
        for button in (self.explain_button, self.open_button):
            button.setEnabled(True)

    def _say_problem(self, text: str) -> None:
        _say(self.status, "")
        _say(self.problem, text)
