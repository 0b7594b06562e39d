"""Architecture rules checked by machine: the core never imports Qt (nor TensorFlow), the layers
of pyproject.toml's import-linter contracts hold, and the CLI's quick answers load neither
pydantic nor anything heavy."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, only_run_dir, read_summary

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



def test_without_qt_a_run_validate_and_the_doctor_work(job):
    """The command line's whole path with Qt unimportable: validate, a real between-graph run
    (a ps and two workers, stopped when the workers end) and ``doctor --explain``."""
    config = job("import os, time\ntask = os.environ['TENSORDECK_TASK']\nprint('task', task)\n"
                 "time.sleep(0 if task.startswith('worker') else 60)\n")
    log = config.parent / "failed.log"
    log.write_text("ImportError: DLL load failed while importing _pywrap_tensorflow_internal\n")
    env = {**os.environ, "PYTHONPATH": str(REPO / "tests" / "no_qt")}
    for args, code in ((["validate", str(config)], 0), (["--run", str(config)], 0),
                       (["doctor", "--explain", str(log)], 1)):  # 1: it found errors
        done = subprocess.run([sys.executable, "-m", "core", *args], capture_output=True,
                              text=True, cwd=REPO, env=env, timeout=120)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        assert "blocked" not in done.stderr and "Traceback" not in done.stderr, args
    summary = read_summary(only_run_dir(config))
    assert summary["status"] == "succeeded"
    assert "task worker:1" in (only_run_dir(config) / "logs" / "worker-1.log").read_text()


# --- no import cycles ---------------------------------------------------------------------


def import_graph():
    """core and gui as import-linter sees them: every import, in a function too, but those
    made only for type checkers (``if TYPE_CHECKING``)."""
    grimp = pytest.importorskip("grimp", reason="import-linter's dependency (the test extra)")
    return grimp.build_graph("core", "gui", exclude_type_checking_imports=True, cache_dir=None)


def import_cycles(graph) -> set[tuple[str, ...]]:
    """Every module that imports a module which imports it back, directly or through others,
    as the shortest such chain (``a, b, ..., a``), one per set of modules. A package's
    ``__init__`` counts as a module of its own (import-linter's acyclic_siblings contract
    would miss a package importing a child that imports the package)."""
    cycles: dict[frozenset[str], tuple[str, ...]] = {}
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back:
                cycles.setdefault(frozenset(back), (importer, *back))
    return set(cycles.values())


def test_no_import_cycles():
    """A cycle makes the import order matter (a half-initialised module at start-up) and two
    modules one: what a module needs goes to a smaller module below both."""
    assert import_cycles(import_graph()) == set()


def test_every_cycle_is_found():
    """The check above fails for any cycle: each real import, made mutual by a made-up one
    back (a package and its child included), and a longer cycle through three modules."""
    graph = import_graph()
    imports = [(a, b) for a in sorted(graph.modules)
               for b in sorted(graph.find_modules_directly_imported_by(a))]
    assert ("core.gpu", "core.gpu.nvml") in imports  # a package importing its child
    for importer, imported in imports:
        graph.add_import(importer=imported, imported=importer)
        found = import_cycles(graph)
        graph.remove_import(importer=imported, imported=importer)
        assert any({importer, imported} <= set(cycle) for cycle in found), (importer, imported)
    chain = graph.find_shortest_chain(importer="core.summary", imported="core.bounded")
    assert chain is not None and len(chain) == 2
    graph.add_import(importer="core.bounded", imported="core.output")
    graph.add_import(importer="core.output", imported="core.summary")
    assert import_cycles(graph) == {("core.bounded", "core.output", "core.summary",
                                     "core.bounded")}
