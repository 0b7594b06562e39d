"""What keys TensorDeck's caches (checked configs, editor fields, clean verdicts, probes): all
that decides an answer, through core.paths.code_stamp. Another pydantic, or an edit of any
module of the core or of the doctor's knowledge base (same size, same time, too), is a new key:
a cached answer of other checking code is never reused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.paths import tree_digest
from tests.conftest import REPO, symlink_or_skip

#: Loads a config in a fresh interpreter; says whether it was checked (pydantic imported) or
#: came from the cache.
LOAD = ("import sys\nfrom core.config import load_config\nload_config(sys.argv[1])\n"
        "print('checked' if 'pydantic' in sys.modules else 'cached')")
STAMP = "from core.paths import code_stamp\nprint(code_stamp())"


def child(code: str, *args: str, cwd: Path = REPO, **env: str) -> str:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, **env}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_another_pydantic_version_checks_a_cached_config_again(tmp_path):
    """The same pydantic package, installed as version 9.9.9 (its dist-info): the config the
    installed version checked is checked again, then cached for that version too."""
    site = tmp_path / "site"
    site.mkdir()
    symlink_or_skip(site / "pydantic", Path(pydantic.__file__).parent)
    (site / "pydantic-9.9.9.dist-info").mkdir()
    (site / "pydantic-9.9.9.dist-info" / "METADATA").write_text("Name: pydantic\nVersion: 9.9.9\n")
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"name": "j", "strategy": "single", "script": "t.py"}))
    assert [child(LOAD, str(path)) for _ in range(2)] == ["checked", "cached"]
    other = {"PYTHONPATH": str(site)}
    assert [child(LOAD, str(path), **other) for _ in range(2)] == ["checked", "cached"]
    assert "9.9.9" in child(STAMP, **other).split("\0")
    assert child(LOAD, str(path)) == "cached"  # the installed version's entry is still there


def checkout_copy(root: Path) -> Path:
    """The core and the knowledge base, as a checkout holds them (no bytecode)."""
    shutil.copytree(REPO / "core", root / "core", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "resources" / "kb", root / "resources" / "kb")
    return root


def same_size_edit(path: Path) -> None:
    """One byte of ``path`` changed, its size and modification time kept (what a stamp of
    sizes and times cannot tell)."""
    info = path.stat()
    data = bytearray(path.read_bytes())
    data[-2] = ord("#") if data[-2] != ord("#") else ord(" ")
    path.write_bytes(bytes(data))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def test_an_edit_of_any_checking_code_gives_a_new_stamp(tmp_path):
    root = checkout_copy(tmp_path)
    before = child(STAMP, cwd=root)
    assert child(STAMP, cwd=root) == before  # nothing changed: the same stamp
    stamps = {before}
    for edited in ("core/summary.py", "core/doctor/kb.py", "resources/kb/tf_gpu_archs.csv"):
        same_size_edit(root / edited)
        stamps.add(child(STAMP, cwd=root))
    assert len(stamps) == 4


@pytest.fixture(scope="module")
def core_copy(tmp_path_factory) -> tuple[Path, str]:
    """One copy of the core and its digest, shared by the examples below: each example puts
    back what it changed (a copy per example cost a minute under Wine)."""
    root = tmp_path_factory.mktemp("checkout")
    shutil.copytree(REPO / "core", root / "core", ignore=shutil.ignore_patterns("__pycache__"))
    return root / "core", tree_digest(root / "core", ".py")


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_changed_byte_of_any_module_changes_the_digest(core_copy, data):
    core, base = core_copy
    modules = sorted(p for p in core.rglob("*.py") if p.stat().st_size)
    path = data.draw(st.sampled_from(modules))
    original = path.read_bytes()
    text = bytearray(original)
    at = data.draw(st.integers(0, len(text) - 1))
    text[at] = data.draw(st.integers(0, 255).filter(lambda b: b != original[at]))
    renamed = path.with_name("renamed_" + path.name)
    try:
        path.write_bytes(bytes(text))
        assert tree_digest(core, ".py") != base
        path.write_bytes(original)
        assert tree_digest(core, ".py") == base
        path.rename(renamed)  # a module's name counts too
        assert tree_digest(core, ".py") != base
    finally:  # the next example starts from the same tree
        if renamed.exists():
            renamed.rename(path)
        path.write_bytes(original)
