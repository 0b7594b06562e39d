"""The Machine view's "Make a TensorFlow environment": the plan for this machine (commands,
download size), "Build" with the commands' output streamed, "Cancel" (what was made is
removed), and the real probe and registration at the end (core.envcreate)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal, Slot
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core import messages
from core.output import plain
from gui.background import run_in_background
from gui.i18n import core_text
from gui.style import monospace_font
from gui.widgets.screen_fit import within_screen

if TYPE_CHECKING:
    from core.envcreate.build import BuildResult
    from core.envcreate.plan import Plan


class EnvCreateDialog(QDialog):
    """``built(str)``: the new interpreter's path, once it was probed and registered."""

    built = Signal(str)
    _line = Signal(str)  # from the build's worker thread, queued to the GUI thread

    def __init__(self, parent: QWidget | None = None, *, nvml: object = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Make a TensorFlow environment"))
        self.resize(within_screen(self, 760, 520))
        self.plan: Plan | None = None
        self.result: BuildResult | None = None
        self.building = False
        self._cancel = threading.Event()
        self.status = QLabel(self.tr("Looking at this machine…"))
        self.status.setWordWrap(True)
        self.plan_view = QPlainTextEdit()
        self.plan_view.setReadOnly(True)
        self.plan_view.setFont(monospace_font())
        self.plan_view.setMaximumHeight(170)
        self.log = QPlainTextEdit()
        self.log.setObjectName("log")
        self.log.setReadOnly(True)
        self.log.setFont(monospace_font())
        self.log.setMaximumBlockCount(5000)
        self.build_button = QPushButton(self.tr("Build"))
        self.build_button.setEnabled(False)
        self.cancel_button = QPushButton(self.tr("Cancel build"))
        self.cancel_button.setEnabled(False)
        self.close_button = QPushButton(self.tr("Close"))
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.build_button, self.cancel_button, self.close_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.plan_view)
        layout.addWidget(self.log, 1)
        layout.addLayout(buttons)
        self.build_button.clicked.connect(self.start_build)
        self.cancel_button.clicked.connect(self.cancel_build)
        self.close_button.clicked.connect(self.close)
        self._line.connect(self._append)

        language = messages.language()  # the window's, read here on the GUI thread

        def plan() -> Plan:
            from core.envcreate.plan import gather_facts, make_plan

            return make_plan(gather_facts(nvml=nvml), language=language)

        run_in_background(plan, self._on_plan, self._on_plan_failed)

    def _on_plan(self, plan: Plan) -> None:
        self.plan = plan
        self.plan_view.setPlainText(plan.describe())
        self.build_button.setEnabled(plan.buildable)
        self.status.setText(self.tr("This environment will work on this machine. Build it?")
                            if plan.buildable else
                            self.tr("TensorDeck cannot build this one itself: follow the steps."))

    def _on_plan_failed(self, exc: BaseException) -> None:
        self.status.setText(self.tr("No environment can be planned: {error}").format(
            error=core_text(str(exc))))

    def start_build(self) -> None:
        if self.plan is None or self.building:
            return
        from core.envcreate.build import build

        self.building = True
        self._cancel.clear()
        self.build_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status.setText(self.tr("Building… (Cancel removes what was made)"))
        plan, cancel = self.plan, self._cancel
        run_in_background(lambda: build(plan, self._line.emit, cancel), self._on_built,
                          self._on_build_failed)

    def cancel_build(self) -> None:
        if self.building:
            self._cancel.set()
            self.cancel_button.setEnabled(False)
            self.status.setText(self.tr("Cancelling…"))

    @Slot(str)
    def _append(self, line: str) -> None:
        self.log.appendPlainText(plain(line))

    def _on_built(self, result: BuildResult) -> None:
        self.building = False
        self.result = result
        self.cancel_button.setEnabled(False)
        self.status.setText(result.message)
        if result.ok:
            self.built.emit(self.plan.interpreter())
        else:  # removed again: it may be tried again
            self.build_button.setEnabled(True)

    def _on_build_failed(self, exc: BaseException) -> None:
        self.building = False
        self.cancel_button.setEnabled(False)
        self.build_button.setEnabled(True)
        from core.said import SaidError

        said = exc.said() if isinstance(exc, SaidError) else f"{type(exc).__name__}: {exc}"
        self.status.setText(self.tr("The build stopped: {error}").format(error=said))

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.building:  # a half-made env must not stay behind the closed dialog
            self.cancel_build()
            event.ignore()
            return
        super().closeEvent(event)
