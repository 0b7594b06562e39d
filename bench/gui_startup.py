"""Cold start of the window: from the first line of Python (interpreter start excluded) to the
main window shown, in a fresh process each time, against the same for a bare Qt window (a
QApplication and an empty QMainWindow: the floor Qt itself sets), runs alternating; prints the
medians of 5 and their ratio. Target: under 1 s.
Run: QT_QPA_PLATFORM=offscreen python bench/gui_startup.py
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

TIMED = """
import time
began = time.perf_counter()
import sys
sys.path.insert(0, {repo!r})
{body}
window.show()
app.processEvents()
print((time.perf_counter() - began) * 1000)
"""
TENSORDECK = """
from gui.app import make_app
app = make_app()
from gui.main_window import MainWindow
window = MainWindow()
"""
BARE_QT = """
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication([])
window = QMainWindow()
"""


def once(body: str, home: str) -> float:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
           "XDG_CONFIG_HOME": home}
    child = TIMED.format(repo=str(REPO), body=body)
    out = subprocess.run([sys.executable, "-c", child], env=env,
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    # Timed as installed: the installer and pip ship the bytecode.
    for package in ("core", "gui"):
        compileall.compile_dir(REPO / package, quiet=1)
    with tempfile.TemporaryDirectory() as home:
        once(TENSORDECK, home)  # warm the disk cache: a "cold" start here means a new process
        once(BARE_QT, home)
        ours, bare = [], []
        for _ in range(5):
            ours.append(once(TENSORDECK, home))
            bare.append(once(BARE_QT, home))
    mine, floor = statistics.median(ours), statistics.median(bare)
    print(f"window start to shown: median {mine:.0f} ms (worst {max(ours):.0f} ms) vs "
          f"{floor:.0f} ms for a bare Qt window: ratio {mine / floor:.2f}; TensorDeck's own "
          f"{mine - floor:.0f} ms (target < 1000 ms in all)")


if __name__ == "__main__":
    main()
