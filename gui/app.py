"""Start the window: ``tensordeck`` (no arguments), ``tensordeck gui [FILE]``, ``python -m gui``."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import QLibraryInfo, QTimer
from PySide6.QtWidgets import QApplication

from gui.i18n import install_translators
from gui.settings import Settings
from gui.style import apply_style
from gui.widgets.wheel_guard import install_wheel_guard

#: What a window needs that pip cannot install, for a system without it.
NO_DISPLAY = ("tensordeck: the window needs a display, and this session has none (DISPLAY is "
              "not set: no desktop, or SSH without -X). The command line works without one: "
              "tensordeck --help")


def debian_package(soname: str) -> str:
    """The Debian/Ubuntu package of a shared library, by Debian's naming rule:
    libxcb-icccm.so.4 -> libxcb-icccm4, libxkbcommon-x11.so.0 -> libxkbcommon-x11-0."""
    name, _, version = soname.partition(".so.")
    name = name.lower()
    return f"{name}{'-' if name[-1:].isdigit() else ''}{version.split('.')[0]}"


def missing_libraries(plugin: Path) -> list[str]:
    """The shared libraries ``plugin`` needs that the system lacks (what ldd cannot find);
    [] where there is no ldd to ask."""
    ldd = shutil.which("ldd")
    if ldd is None or not plugin.is_file():
        return []
    try:
        out = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=20,
                             check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    found = [line.split("=>")[0].strip() for line in out.splitlines() if "not found" in line]
    return list(dict.fromkeys(found))


def platform_problem(environ: Mapping[str, str] = os.environ,
                     platform: str = sys.platform) -> str | None:
    """Why Qt's X11 (xcb) platform plugin would abort the window on this Linux system, in
    words that say what to install (Qt itself prints a generic message and aborts); None when
    the window can start, or when another platform plugin is used."""
    if not platform.startswith("linux"):
        return None
    chosen = environ.get("QT_QPA_PLATFORM", "")
    other = chosen.split(":")[0] != "xcb" if chosen else bool(environ.get("WAYLAND_DISPLAY"))
    if other:  # offscreen, wayland ... (without a choice, Qt tries Wayland first there)
        return None
    plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath))
    missing = missing_libraries(plugins / "platforms" / "libqxcb.so")
    if missing:
        packages = " ".join(debian_package(m) for m in missing)
        return (f"tensordeck: the window cannot start: Qt's X11 plugin needs {', '.join(missing)}"
                f", which this system lacks. On Debian or Ubuntu: sudo apt install {packages} "
                "(elsewhere, the packages that provide them). The command line works without "
                "them: tensordeck --help")
    if not environ.get("DISPLAY"):
        return NO_DISPLAY
    return None


def make_app(argv: Sequence[str] = ()) -> QApplication:
    """The QApplication, styled, with the chosen language installed."""
    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    app.setOrganizationName("TensorDeck")
    app.setApplicationName("TensorDeck")
    app.setQuitOnLastWindowClosed(True)
    apply_style(app)
    install_wheel_guard(app)
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
    if QApplication.instance() is None and (problem := platform_problem()):
        print(problem, file=sys.stderr)  # before Qt, which would abort the process
        return 1
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
