"""Build the wsl.exe stand-in (tests/wsl/wsl_standin.c): with gcc for the Linux suite
(``DIR/linux/wsl.exe``) and with mingw for the Windows lane (``DIR/windows/wsl.exe``, a real
Windows console program). Standard library only: the lane builds it with the system's python3.

    python3 -m tests.wsl.build DIR
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).with_name("wsl_standin.c")
GCC = "gcc"
MINGW = "x86_64-w64-mingw32-gcc"


def build_linux(dest: Path) -> Path | None:
    """The Linux build in ``dest/linux``; None without gcc."""
    if shutil.which(GCC) is None:
        return None
    out = dest / "linux" / "wsl.exe"
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([GCC, "-O2", "-Wall", "-pthread", "-o", str(out), str(SOURCE)], check=True,
                   capture_output=True)
    return out


def build_windows(dest: Path) -> Path | None:
    """The Windows build in ``dest/windows`` (no DLL beyond Windows' own); None without
    mingw-w64."""
    if shutil.which(MINGW) is None:
        return None
    out = dest / "windows" / "wsl.exe"
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([MINGW, "-O2", "-Wall", "-o", str(out), str(SOURCE), "-lws2_32", "-lshell32"],
                   check=True, capture_output=True)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 -m tests.wsl.build DIR")
    folder = Path(sys.argv[1]).resolve()
    built = [build_linux(folder), build_windows(folder)]
    if None in built:
        sys.exit(f"needs {GCC} and {MINGW} (apt-get install gcc gcc-mingw-w64-x86-64)")
    print(*built, sep="\n")
