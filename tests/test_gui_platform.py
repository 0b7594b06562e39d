"""Starting the window where Qt's X11 plugin cannot load (system libraries missing, no
display): TensorDeck says what to install instead of Qt's generic abort."""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("PySide6")

from gui.app import debian_package, platform_problem
from tests.conftest import REPO


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 is Linux's")
def test_the_real_window_on_x11_without_what_it_needs_says_what_to_install(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(QT_QPA_PLATFORM="xcb", HOME=str(tmp_path))
    result = subprocess.run([sys.executable, "-m", "gui", "--no-wizard"], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr  # not Qt's abort (-6)
    said = result.stderr.strip()
    assert said.startswith("tensordeck: the window") and "could not be initialized" not in said
    assert "tensordeck --help" in said and "\n" not in said
    named = re.findall(r"(lib[\w.+-]+\.so\.\d+)", said)
    for library in named:  # each one named is truly missing, and its package is named
        with pytest.raises(OSError):
            ctypes.CDLL(library)
        assert debian_package(library) in said.split("apt install", 1)[1]
    if not named:  # a system with every library: what is missing is the display
        assert "display" in said


def test_debian_names_the_packages_of_the_libraries():
    for soname, package in (("libxcb-icccm.so.4", "libxcb-icccm4"),
                            ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
                            ("libxcb-cursor.so.0", "libxcb-cursor0"),
                            ("libxcb-render-util.so.0", "libxcb-render-util0"),
                            ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
                            ("libEGL.so.1", "libegl1"), ("libdbus-1.so.3", "libdbus-1-3"),
                            ("libfontconfig.so.1.12.0", "libfontconfig1")):
        assert debian_package(soname) == package


def test_other_platforms_are_left_to_qt():
    for environ, platform in (({"QT_QPA_PLATFORM": "offscreen"}, "linux"),
                              ({"WAYLAND_DISPLAY": "wayland-0"}, "linux"),
                              ({"QT_QPA_PLATFORM": "wayland"}, "linux"),
                              ({}, "win32"), ({}, "darwin")):
        assert platform_problem(environ, platform) is None
