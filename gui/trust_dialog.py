"""Trusting a node's SSH host key from the window: the key a node presented when it was refused
as an unknown host (its fingerprint shown at once), then "Trust" adds exactly that key to
~/.ssh/known_hosts (as ``tensordeck trust HOST`` does; a node that presents another key by
then is refused). A host already known with another key is never trusted here: only the
explanation shows."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

from core.remote.connect import HostKey, trust_host
from gui.background import run_in_background


class TrustDialog(QDialog):
    """``trusted(fingerprint)`` once the key is in known_hosts."""

    trusted = Signal(str)

    def __init__(self, key: HostKey, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key = key
        host, port = key.host, key.port
        self.setWindowTitle(self.tr("Trust {host}?").format(host=host))
        intro = QLabel(self.tr(
            "{host}:{port} is not a known host yet. Compare its key's fingerprint with the one "
            "the machine itself shows (Linux: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub; "
            "Windows: ssh-keygen -lf C:\\ProgramData\\ssh\\ssh_host_ed25519_key.pub) and trust "
            "it only when they are the same.").format(host=host, port=port))
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.PlainText)  # the host is the config's, not markup
        self.fingerprint_label = QLabel(self.tr("Key fingerprint: {fingerprint}").format(
            fingerprint=f"{key.fingerprint} ({key.key_type})"))
        self.fingerprint_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message = QLabel()
        self.message.setObjectName("problem")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # errors quote what a server said
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.trust_button = QPushButton(self.tr("Trust"))
        buttons.addButton(self.trust_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.trust_button.clicked.connect(self._trust)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.fingerprint_label)
        layout.addWidget(self.message)
        layout.addWidget(buttons)

    def _trust(self) -> None:
        self.trust_button.setEnabled(False)
        key = self.key  # only the key shown here: core refuses one that changed meanwhile
        run_in_background(lambda: asyncio.run(trust_host(key.host, key.port, key.fingerprint)),
                          self._on_trusted, self._on_error)

    def _on_trusted(self, result: tuple[str, str]) -> None:
        fingerprint, _line = result
        self.trusted.emit(fingerprint)
        self.accept()

    def _on_error(self, error: BaseException) -> None:
        self.message.setText(str(error))
        self.message.show()
        self.trust_button.setEnabled(False)
