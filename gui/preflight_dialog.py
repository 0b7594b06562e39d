"""The preflight report in a dialog: ✓/✗ per check, grouped by machine, and the fixes as text
that can be selected and copied. An unknown host gets a "Trust…" button (see trust_dialog)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.remote.connect import HostKey
from core.remote.preflight import PreflightReport
from gui.style import monospace_font
from gui.trust_dialog import TrustDialog
from gui.widgets.screen_fit import within_screen

PASS, FAIL = "✓", "✗"


class PreflightDialog(QDialog):
    """``host_trusted(host)`` after a Trust dialog added a host's key (preflight again then)."""

    host_trusted = Signal(str)

    def __init__(self, report: PreflightReport, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report = report
        self.trust_dialog: TrustDialog | None = None
        self.setWindowTitle(self.tr("Preflight"))
        self.resize(within_screen(self, 760, 520))
        failed = [c for c in report.checks if not c.ok]
        self.summary = QLabel(
            self.tr("All {n} checks passed: the job can start.").format(n=len(report.checks))
            if report.ok else self.tr("{failed} of {n} checks failed: fix them, then run "
                                      "preflight again.").format(failed=len(failed),
                                                                 n=len(report.checks)))
        self.summary.setObjectName("muted" if report.ok else "problem")
        self.summary.setWordWrap(True)
        self.tree = self._checks_tree(report)
        self.fixes = QPlainTextEdit()
        self.fixes.setReadOnly(True)
        self.fixes.setFont(monospace_font())
        self.fixes.setPlainText("\n\n".join(
            f"{c.node} / {c.check}: {c.detail}" + (f"\n  {c.fix}" if c.fix else "")
            for c in failed))
        self.fixes.setVisible(bool(failed))
        buttons = self._buttons(failed)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 2)
        if failed:
            layout.addWidget(QLabel(self.tr("What to do (select and copy):")))
        layout.addWidget(self.fixes, 1)
        layout.addWidget(buttons)

    def _checks_tree(self, report: PreflightReport) -> QTreeWidget:
        """The checks by node, each node marked with whether all of its checks passed."""
        tree = QTreeWidget()
        tree.setHeaderLabels([self.tr("Check"), self.tr("Result")])
        tree.setColumnWidth(0, 220)
        groups: dict[str, QTreeWidgetItem] = {}
        for check in report.checks:
            group = groups.get(check.node)
            if group is None:
                group = groups[check.node] = QTreeWidgetItem(tree, [check.node])
                group.setExpanded(True)
            item = QTreeWidgetItem(group, [f"{PASS if check.ok else FAIL} {check.check}",
                                           check.detail])
            item.setToolTip(1, check.detail)
            if not check.ok and group.text(1) == "":
                group.setText(1, FAIL)
        for group in groups.values():
            group.setText(1, group.text(1) or PASS)
        return tree

    def _buttons(self, failed: list) -> QDialogButtonBox:
        """Close; with failures, "Copy fixes" and a "Trust HOST…" for each unknown host key."""
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        if failed:
            copy = QPushButton(self.tr("Copy fixes"))
            copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(
                self.fixes.toPlainText()))
            buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        self.trust_buttons: list[QPushButton] = []
        for key in dict.fromkeys(c.unknown_host for c in failed if c.unknown_host is not None):
            button = QPushButton(self.tr("Trust {host}…").format(host=key.host))
            button.clicked.connect(lambda _=False, k=key: self.ask_trust(k))
            buttons.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
            self.trust_buttons.append(button)
        return buttons

    def ask_trust(self, key: HostKey) -> TrustDialog:
        """Open the trust dialog for the key a node presented (window-modal, not blocking)."""
        self.trust_dialog = TrustDialog(key, self)
        self.trust_dialog.trusted.connect(lambda _fingerprint: self.host_trusted.emit(key.host))
        self.trust_dialog.open()
        return self.trust_dialog
