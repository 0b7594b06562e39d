"""Put this folder on PYTHONPATH to make Qt unimportable, in the test process and in every
child it starts: CI runs the core tests this way, proving the core and the CLI need no Qt."""

import importlib.abc
import sys

BLOCKED = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "pyqtgraph")


class _NoQt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"{name} is blocked: the core must run without Qt")
        return None


sys.meta_path.insert(0, _NoQt())
