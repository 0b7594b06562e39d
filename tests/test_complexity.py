"""No block of TensorDeck's own code (a function or a method, in core/ and gui/) is more complex
than a newcomer can follow: radon's cyclomatic complexity (branches and boolean operators
counted) at most 15. A block that grows past it is split along what it does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO

MAX_COMPLEXITY = 15

radon = pytest.importorskip("radon.complexity", reason="radon is in the test extra")


def too_complex(root: Path, paths: list[Path]) -> list[str]:
    """``file:line name (complexity)`` of every function and method above the limit (radon
    lists a method twice: inside its class and on its own; the class's own figure is left)."""
    found = []
    for path in paths:
        for block in radon.cc_visit(path.read_text(encoding="utf-8")):
            if not hasattr(block, "methods") and block.complexity > MAX_COMPLEXITY:
                found.append(f"{path.relative_to(root).as_posix()}:{block.lineno} "
                             f"{block.fullname} ({block.complexity})")
    return found


def test_no_block_is_more_complex_than_15():
    paths = sorted(p for folder in ("core", "gui") for p in (REPO / folder).rglob("*.py"))
    assert too_complex(REPO, paths) == []


def test_the_check_sees_a_complex_function_and_method(tmp_path):
    branches = "\n".join(f"        if x == {i}:\n            return {i}" for i in range(16))
    path = tmp_path / "probe.py"
    path.write_text(f"class A:\n    def f(self, x):\n{branches}\n        return -1\n\n"
                    f"def g(x):\n{branches.replace('    ', '  ')}\n    return -1\n")
    assert sorted(too_complex(tmp_path, [path])) == ["probe.py:2 A.f (17)", "probe.py:37 g (17)"]
