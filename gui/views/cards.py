"""The doctor's findings as cards (the Machine view's, the "Explain an error" dialog's), and
the cards' shared pieces. A fix runs as the argument lists its step gives (``FixStep.argv``),
never through a shell; texts from probes and pasted logs are shown as plain text (a QLabel
would render HTML in them). A module below both: the view opens the dialog, and the dialog's
cards would otherwise import the view back (an import cycle)."""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
)

from core.findings import Finding, FixStep
from gui.i18n import core_text
from gui.style import monospace_font, status_color


def as_card(frame: QFrame) -> QVBoxLayout:
    """Style ``frame`` as a card. Its height is fixed to its contents: in a scroll area,
    word-wrapped labels would otherwise let the layout squash cards onto each other."""
    frame.setObjectName("card")
    frame.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(14, 12, 14, 12)
    return layout


def new_card() -> tuple[QFrame, QVBoxLayout]:
    frame = QFrame()
    return frame, as_card(frame)


def text_label(text: str, name: str | None = None, wrap: bool = True) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    if name:
        label.setObjectName(name)
    label.setWordWrap(wrap)
    return label


def status_dot(state: str) -> QLabel:
    dot = QLabel("●")
    dot.setStyleSheet(f"color: {status_color(state).name()}; font-size: 16px;")
    return dot


def clear_layout(layout: QVBoxLayout | QGridLayout) -> None:
    while layout.count():
        widget = layout.takeAt(0).widget()
        if widget is not None:
            # Out of the view at once (deleteLater waits for the event loop): what the view
            # holds is what it shows.
            widget.setParent(None)
            widget.deleteLater()


def for_this_system(step: FixStep, platform: str = sys.platform) -> bool:
    windows = platform.startswith("win")
    if step.shell in ("cmd", "powershell"):
        return windows
    return not windows if step.shell == "bash" else True


def fix_programs(step: FixStep, platform: str = sys.platform) -> tuple[tuple[str, ...], ...] | None:
    """The programs "Run" starts for ``step``, one after the other, without a shell; None when
    the step is not one click: it needs administrator rights or a restart, a terminal, or is
    for another system."""
    if not step.argv or step.admin or step.reboot or not for_this_system(step, platform):
        return None
    return step.argv


def said_after(text: str, subject: str | None) -> str:
    """``text`` in the window's language where it is core's: ``SUBJECT: `` (the interpreter
    it is about, said once or more) stays, what follows is said (a WSL refusal, core.wsl)."""
    head = f"{subject}: " if subject else None
    if head and text.startswith(head):
        return head + said_after(text[len(head):], subject)
    return core_text(text)


class FindingCard(QFrame):
    """One finding: severity, title, evidence, and its fix steps with Copy / Run buttons.
    ``runnable=False``: Copy only (the steps of a pasted output may be for another machine)."""

    run_requested = Signal(object)  # FixStep

    def __init__(self, finding: Finding, *, runnable: bool = True) -> None:
        super().__init__()
        layout = as_card(self)
        head = QHBoxLayout()
        head.addWidget(status_dot(finding.severity))
        head.addWidget(text_label(finding.title_in(), "cardTitle"), 1)
        layout.addLayout(head)
        if finding.evidence:  # quoted output stays as it is; core's own words are said
            evidence = text_label(said_after(finding.evidence, finding.subject), "muted")
            evidence.setFont(monospace_font())
            layout.addWidget(evidence)
        for step in finding.steps:
            layout.addWidget(text_label("• " + step.text_in()))
            if not step.command:
                continue
            row = QHBoxLayout()
            command = QLabel(step.command)
            command.setTextFormat(Qt.TextFormat.PlainText)
            command.setFont(monospace_font())
            command.setStyleSheet("background: #f6f8fa; border: 1px solid #d0d7de; "
                                  "border-radius: 4px; padding: 4px;")
            command.setWordWrap(True)
            command.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            row.addWidget(command, 1)
            copy = QPushButton(self.tr("Copy"))
            copy.clicked.connect(lambda _=False, s=step: QGuiApplication.clipboard().setText(
                s.command))
            row.addWidget(copy)
            one_click = runnable and fix_programs(step) is not None
            if one_click:
                run = QPushButton(self.tr("Run…"))
                run.clicked.connect(lambda _=False, s=step: self.run_requested.emit(s))
                row.addWidget(run)
            layout.addLayout(row)
            if not one_click and (note := self._not_one_click(step, runnable)):
                layout.addWidget(text_label(note, "muted"))

    def _not_one_click(self, step: FixStep, runnable: bool) -> str | None:
        """Why the step has no "Run" button; None where no card has one (nothing to explain)."""
        if step.admin:
            return self.tr("Needs administrator rights: run it yourself in an administrator "
                           "terminal.")
        if step.reboot:
            return self.tr("Involves restarting the computer: run it yourself.")
        if not runnable:
            return None
        if not for_this_system(step):
            return self.tr("This command is for another system ({shell})").format(
                shell=step.shell)
        return self.tr("Run it in a terminal: it needs a shell or an activated environment, "
                       "or has parts to fill in.")
