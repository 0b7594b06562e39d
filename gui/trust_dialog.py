"""Trusting a node's SSH host key from the window: the key's fingerprint (read from the node),
then "Trust" adds it to ~/.ssh/known_hosts (the same as ``tensordeck trust HOST``). A host
already known with another key is never trusted here: only the explanation shows."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

from core.remote.connect import fetch_host_key, trust_host
from gui.background import run_in_background

#: How core's connect() says a host is not in known_hosts: "HOST:PORT is not a known host".
_UNKNOWN_HOST = re.compile(r"(\S+):(\d+) is not a known host")


def unknown_hosts(texts: Iterable[str]) -> list[tuple[str, int]]:
    """The (host, port) pairs that ``texts`` (check details, start problems) say are unknown."""
    found: list[tuple[str, int]] = []
    for text in texts:
        for host, port in _UNKNOWN_HOST.findall(text):
            if (host, int(port)) not in found:
                found.append((host, int(port)))
    return found


class TrustDialog(QDialog):
    """``trusted(fingerprint)`` once the key is in known_hosts."""

    trusted = Signal(str)

    def __init__(self, host: str, port: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host, self.port = host, port
        self.fingerprint: str | None = None
        self.setWindowTitle(self.tr("Trust {host}?").format(host=host))
        intro = QLabel(self.tr(
            "{host}:{port} is not a known host yet. Compare its key's fingerprint with the one "
            "the machine itself shows (Linux: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub; "
            "Windows: ssh-keygen -lf C:\\ProgramData\\ssh\\ssh_host_ed25519_key.pub) and trust "
            "it only when they are the same.").format(host=host, port=port))
        intro.setWordWrap(True)
        self.fingerprint_label = QLabel(self.tr("Reading the key…"))
        self.fingerprint_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message = QLabel()
        self.message.setObjectName("problem")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.trust_button = QPushButton(self.tr("Trust"))
        self.trust_button.setEnabled(False)
        buttons.addButton(self.trust_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.trust_button.clicked.connect(self._trust)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.fingerprint_label)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        run_in_background(lambda: asyncio.run(fetch_host_key(host, port)).get_fingerprint(),
                          self._on_fingerprint, self._on_error)

    def _on_fingerprint(self, fingerprint: str) -> None:
        self.fingerprint = fingerprint
        self.fingerprint_label.setText(self.tr("Key fingerprint: {fingerprint}").format(
            fingerprint=fingerprint))
        self.trust_button.setEnabled(True)

    def _trust(self) -> None:
        self.trust_button.setEnabled(False)
        # Only the key shown here may be trusted: core refuses one that changed meanwhile.
        run_in_background(
            lambda: asyncio.run(trust_host(self.host, self.port, self.fingerprint)),
            self._on_trusted, self._on_error)

    def _on_trusted(self, result: tuple[str, str]) -> None:
        fingerprint, _line = result
        self.trusted.emit(fingerprint)
        self.accept()

    def _on_error(self, error: BaseException) -> None:
        self.message.setText(str(error))
        self.message.show()
        self.trust_button.setEnabled(False)
