"""Trusting a node's SSH host key from the window: the key's fingerprint (read from the node),
then "Trust" adds it to ~/.ssh/known_hosts (the same as ``tensordeck trust HOST``). A host
already known with another key is never trusted here: only the explanation shows."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

from core.config import ConfigError, load_config
from core.remote.connect import HostKey, is_known_host, read_host_key, trust_host
from gui.background import run_in_background


def untrusted_hosts(config_path: str | Path | None) -> list[tuple[str, int]]:
    """The (host, port) of the config's nodes that run tasks and that known_hosts lacks, each
    once: the hosts that connect() refuses as unknown (from known_hosts, no network). None
    when there is no config or it does not load (its problems then say why a run did not
    start)."""
    if config_path is None:
        return []
    try:
        cfg = load_config(config_path)
    except ConfigError:
        return []
    found: list[tuple[str, int]] = []
    for name in dict.fromkeys(t.node for t in cfg.tasks if t.node in cfg.nodes):
        node = cfg.nodes[name]  # type: ignore[index]
        if (node.host, node.port) not in found and not is_known_host(node.host, node.port):
            found.append((node.host, node.port))
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
        intro.setTextFormat(Qt.TextFormat.PlainText)  # the host is the config's, not markup
        self.fingerprint_label = QLabel(self.tr("Reading the key…"))
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
        self.trust_button.setEnabled(False)
        buttons.addButton(self.trust_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.trust_button.clicked.connect(self._trust)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.fingerprint_label)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        run_in_background(lambda: asyncio.run(read_host_key(host, port)), self._on_key,
                          self._on_error)

    def _on_key(self, key: HostKey) -> None:
        self.fingerprint = key.fingerprint
        self.fingerprint_label.setText(self.tr("Key fingerprint: {fingerprint}").format(
            fingerprint=f"{key.fingerprint} ({key.key_type})"))
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
