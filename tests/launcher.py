"""``tensordeck --run`` in a child, stopped as its platform stops it (for the tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from core.wintree import IS_WINDOWS, WindowsTree
from tests.conftest import REPO


class Launcher:
    """``tensordeck --run CONFIG ARGS...`` in a child, stopped as its platform stops it:
    signals on POSIX, the stop event on Windows (the launcher listens to it as its tasks do:
    core.wintree)."""

    def __init__(self, config: Path, *args: str, env: Mapping[str, str] | None = None) -> None:
        argv = [sys.executable, "-m", "core", "--run", str(config), *args]
        environ = dict(env if env is not None else os.environ)
        pipes = dict(cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.tree = WindowsTree(argv, environ, **pipes) if IS_WINDOWS else None
        self.proc = self.tree.popen if self.tree else subprocess.Popen(argv, env=environ, **pipes)

    def stop(self, sig: int) -> None:
        """``sig`` on POSIX; on Windows, the stop event (a stop, whatever ``sig``)."""
        if self.tree:
            self.tree.stop()
        else:
            self.proc.send_signal(sig)

    def finish(self, timeout: float = 30) -> tuple[int, str]:
        """The exit status and output, once the launcher has ended."""
        out, _ = self.proc.communicate(timeout=timeout)
        if self.tree:
            self.tree.close()
        return self.proc.returncode, out.decode(errors="replace")
