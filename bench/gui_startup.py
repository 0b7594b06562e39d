"""Cold start of the window: from the first line of Python (interpreter start excluded) to the
main window shown, in a fresh process each time; prints the median of 5. Target: under 1 s.
Run: QT_QPA_PLATFORM=offscreen python bench/gui_startup.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = """
import time
began = time.perf_counter()
import sys
sys.path.insert(0, {repo!r})
from gui.app import make_app
app = make_app()
from gui.main_window import MainWindow
window = MainWindow()
window.show()
app.processEvents()
print((time.perf_counter() - began) * 1000)
"""


def once(home: str) -> float:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
           "XDG_CONFIG_HOME": home}
    out = subprocess.run([sys.executable, "-c", CHILD.format(repo=str(REPO))], env=env,
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        once(home)  # warm the disk cache: a "cold" start here means a new process
        times = [once(home) for _ in range(5)]
    print(f"window start to shown: median {statistics.median(times):.0f} ms, "
          f"worst {max(times):.0f} ms over {len(times)} starts (target < 1000 ms)")


if __name__ == "__main__":
    main()
