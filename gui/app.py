"""Start the window: ``tensordeck`` (no arguments), ``tensordeck gui [FILE]``, ``python -m gui``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from gui.i18n import install_translators
from gui.settings import Settings
from gui.style import apply_style


def make_app(argv: Sequence[str] = ()) -> QApplication:
    """The QApplication, styled, with the chosen language installed."""
    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    app.setOrganizationName("TensorDeck")
    app.setApplicationName("TensorDeck")
    app.setQuitOnLastWindowClosed(True)
    apply_style(app)
    install_translators(app, Settings().language)
    return app


def main(argv: Sequence[str] | None = None) -> int:
    """Open the main window (and the wizard on the first start); returns the exit code."""
    parser = argparse.ArgumentParser(prog="tensordeck gui",
                                     description="Open TensorDeck's window.")
    parser.add_argument("file", nargs="?", help="config file to open")
    parser.add_argument("--no-wizard", action="store_true",
                        help="do not open the first-start wizard")
    args = parser.parse_args(list(argv) if argv is not None else sys.argv[1:])
    app = make_app()
    from gui.main_window import MainWindow

    window = MainWindow()
    window.show()
    if args.file:
        window.open_file(args.file)
    elif window.settings.recent_files():
        window.open_file(window.settings.recent_files()[0])
    if not args.file and not args.no_wizard and not window.settings.wizard_done:
        QTimer.singleShot(0, window.new_config)
    return app.exec()
