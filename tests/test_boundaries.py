"""Architecture rules checked by machine: the core never imports Qt (nor TensorFlow), the layers
of pyproject.toml's import-linter contracts hold, and the CLI's quick answers load neither
pydantic nor anything heavy."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

QT = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "pyqtgraph")
#: Programs the core sends to a training interpreter (read as text, never imported here).
CHILD_PROGRAMS = {"core/interpreters/child_import.py"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_core_never_imports_qt_or_tensorflow():
    offenders = []
    for path in sorted((REPO / "core").rglob("*.py")):
        if path.relative_to(REPO).as_posix() in CHILD_PROGRAMS:
            continue
        for name in imported_modules(path):
            if name.split(".")[0] in (*QT, "tensorflow", "keras", "gui"):
                offenders.append(f"{path.relative_to(REPO).as_posix()}: {name}")
    assert offenders == []


def test_import_contracts_hold(monkeypatch):
    """pyproject.toml [tool.importlinter]: session > run folder > supervisor > plan > config,
    planning never reaches other machines, the doctor never needs the CLI, the window starts
    runs only through core.session."""
    lint = pytest.importorskip("importlinter.cli")
    monkeypatch.chdir(REPO)
    assert lint.lint_imports(no_cache=True, no_logo=True) == 0


def loaded_by(*args: str) -> set[str]:
    code = ("import sys\nfrom core.cli import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         cwd=REPO, check=True).stdout.splitlines()[-1]
    return {name.split(".")[0] for name in out.split()}


def test_help_and_version_load_nothing_heavy():
    for args in (["--help"], ["--version"]):
        heavy = loaded_by(*args) & {"pydantic", "psutil", "asyncssh", *QT, "tensorflow"}
        assert heavy == set(), args


def test_qt_blocker_blocks(tmp_path):
    """The CI step that runs the core tests without Qt relies on this blocker."""
    result = subprocess.run([sys.executable, "-c", "import PySide6"], capture_output=True,
                            text=True, env={"PYTHONPATH": str(REPO / "tests" / "no_qt")})
    assert result.returncode != 0 and "blocked" in result.stderr


def test_without_qt_the_bare_command_says_how_to_get_the_window():
    result = subprocess.run([sys.executable, "-m", "core"], capture_output=True, text=True,
                            cwd=REPO, env={"PYTHONPATH": str(REPO / "tests" / "no_qt")})
    assert result.returncode == 2
    assert 'pip install "tensordeck[gui]"' in result.stderr
