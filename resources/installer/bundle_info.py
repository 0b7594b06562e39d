"""What the frozen app is called and what it holds, read without importing the app.

``pyproject.toml`` names the project; its version is dynamic (``core.__version__``), so it is
read from ``core/__init__.py`` as text. Used by ``build_installer.spec``, ``scripts/build.sh``,
the Windows workflow (``python resources/installer/bundle_info.py version``) and the tests.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
#: The name people see: the app folder, the installer, the Start menu entry.
DISPLAY_NAME = "TensorDeck"
#: The windowed executable. The console one is the project's name (``tensordeck``, as after
#: ``pip install``); Windows file names ignore case, so the two names must differ by more.
GUI_EXE = "tensordeck-gui"
#: Python files core reads as text at run time and runs in other interpreters (probes, the
#: node agent and its Windows process trees, the port checker): shipped as source beside the
#: frozen modules, where their ``Path(__file__)`` reads find them.
SOURCES_READ_AT_RUN_TIME = (
    "core/interpreters/child_metadata.py",
    "core/interpreters/child_import.py",
    "core/interpreters/child_stat.py",
    "core/remote/node_agent.py",
    "core/wintree.py",
    "core/ports.py",
)
#: Data folders and file patterns shipped as they are (relative to the repository).
DATA_GLOBS = (
    "resources/examples/*",
    "resources/kb/*",
    "resources/runtime/*.py",
    "resources/icons/*",
    "gui/translations/*.qm",
)


def project_name(root: Path = ROOT) -> str:
    """``[project] name`` of pyproject.toml (a regex: tomllib is 3.11+)."""
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    found = section and re.search(r'^name\s*=\s*"([^"]+)"', section.group(1), re.M)
    if not found:
        raise ValueError(f"{root / 'pyproject.toml'}: no name in the [project] table")
    return found.group(1)


def project_version(root: Path = ROOT) -> str:
    """``__version__`` assigned in core/__init__.py, read with ast (the app is not imported)."""
    path = root / "core" / "__init__.py"
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    raise ValueError(f"{path}: no string __version__ = '...' assignment")


def version_tuple(version: str) -> tuple[int, int, int, int]:
    """The four numbers of a Windows version resource: 0.1.0rc1 -> (0, 1, 0, 0)."""
    numbers = [int(n) for n in re.findall(r"\d+", version.split("+")[0])[:3]]
    return (*numbers, *[0] * (4 - len(numbers)))  # type: ignore[return-value]


def data_files(root: Path = ROOT) -> list[tuple[str, str]]:
    """``(file, folder in the bundle)`` pairs for PyInstaller's ``datas``."""
    found = [path for pattern in DATA_GLOBS for path in sorted(root.glob(pattern))]
    found += [root / source for source in SOURCES_READ_AT_RUN_TIME]
    return [(str(p), p.parent.relative_to(root).as_posix()) for p in found if p.is_file()]


if __name__ == "__main__":
    fields = {"name": project_name, "version": project_version}
    if len(sys.argv) != 2 or sys.argv[1] not in fields:
        sys.exit("usage: bundle_info.py name|version")
    print(fields[sys.argv[1]]())
