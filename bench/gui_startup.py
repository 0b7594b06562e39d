"""Cold start of the window: from the first line of Python (interpreter start excluded) to the
main window shown, in a fresh process each time, against the same for a bare Qt window (a
QApplication and an empty QMainWindow: the floor Qt itself sets), runs alternating; prints the
medians of 5 and their ratio. Target: under 1 s.
Run: QT_QPA_PLATFORM=offscreen python bench/gui_startup.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from _common import REPO, interleaved

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
MAIN_WINDOW = """
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
    with tempfile.TemporaryDirectory() as home:
        once(MAIN_WINDOW, home)  # warm the disk cache: a "cold" start here means a new process
        once(BARE_QT, home)
        mine, floor = interleaved(lambda: once(MAIN_WINDOW, home), lambda: once(BARE_QT, home), 5)
    print(f"window start to shown: median {mine:.0f} ms vs {floor:.0f} ms for a bare Qt "
          f"window: ratio {mine / floor:.2f}; TensorDeck's own {mine - floor:.0f} ms "
          f"(target < 1000 ms in all)")


if __name__ == "__main__":
    main()
