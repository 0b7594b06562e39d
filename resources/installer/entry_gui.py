"""Entry of the frozen windowed executable ``tensordeck-gui``: the window.

``--smoke`` opens the main window, waits until it is shown, prints the time from process start
to shown, draws the charts (the Resources tab), and quits: exit 0, or 1 on any exception (also
one raised inside a Qt slot) or when the environment tasks start from still points into the
app. CI runs it offscreen.

Internal commands (``_remote-task``, ``_watchdog``) go to the command line: the frozen app
starts its own executable for them, and from the window that is this one.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from entry_cli import cli_main

SMOKE_TIMEOUT_S = 60


def seconds_since_process_start() -> float:
    """Wall time since this process was created (bootloader and interpreter start included)."""
    if sys.platform.startswith("linux"):  # /proc: 10 ms ticks; psutil's is off by up to 1 s
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        start = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime
        return time.clock_gettime(time.CLOCK_BOOTTIME) - start
    import psutil

    return time.time() - psutil.Process().create_time()


def bundle_variables_left() -> list[str]:
    """Variables of the environment tasks start from that still point into the frozen app
    (the window's runtime hooks set Qt's plugin paths; a task's own Qt must not load ours)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if not bundle:
        return []
    from core.interpreters.activation import clean_base_env

    return sorted(name for name, value in clean_base_env().items() if bundle in value)


def smoke() -> int:
    """Show the main window the way gui.app does, then quit; the exit code says if it worked."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    errors: list[BaseException] = []

    def record(kind, error, tb) -> None:  # PySide6 reports exceptions raised in slots here
        errors.append(error)
        sys.__excepthook__(kind, error, tb)

    sys.excepthook = record
    from PySide6.QtCore import QEventLoop

    from gui.app import make_app
    from gui.main_window import MainWindow

    app = make_app()
    window = MainWindow()
    window.show()
    deadline = time.monotonic() + SMOKE_TIMEOUT_S
    while not errors and not (window.windowHandle() and window.windowHandle().isExposed()):
        if time.monotonic() > deadline:
            print(f"smoke: the window was not shown within {SMOKE_TIMEOUT_S} s", file=sys.stderr)
            return 1
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    shown = seconds_since_process_start()
    # The charts load pyqtgraph when they are first drawn: draw them (the Resources tab).
    window.show_page("run")
    window.run_view.tabs.setCurrentWidget(window.run_view.resources)
    app.processEvents()
    if not errors and "pyqtgraph" not in sys.modules:
        print("smoke: the Resources tab drew no charts", file=sys.stderr)
        return 1
    window.close()
    app.processEvents()
    if errors:
        print(f"smoke: failed: {errors[0]!r}", file=sys.stderr)
        return 1
    leaked = bundle_variables_left()
    if leaked:
        print(f"smoke: tasks started from the window would inherit {', '.join(leaked)} "
              "pointing into the app's folder", file=sys.stderr)
        return 1
    print(f"smoke: window shown {shown:.2f} s after process start")
    return 0


def gui_main(argv: Sequence[str]) -> int:
    """Run one command line of the windowed executable; returns its exit code."""
    argv = list(argv)
    if argv[:1] and argv[0].startswith("_"):
        return cli_main(argv)
    if argv == ["--smoke"]:
        return smoke()
    from gui.app import main

    return main(argv)


if __name__ == "__main__":
    sys.exit(gui_main(sys.argv[1:]))
