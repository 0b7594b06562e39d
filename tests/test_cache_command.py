"""``tensordeck cache`` shows where the cache is, its entries and their size; ``tensordeck cache
clear`` empties it, never through a link, and the next run fills it again. Real CLI processes on
a real cache folder (the tests' own: tests/conftest.py points platformdirs at a temporary one)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.cache_command import cache_command
from core.paths import user_cache_dir
from tests.conftest import symlink_or_skip, tensordeck
from tests.test_terminal_output import NAME, raw_controls


def job(folder: Path) -> Path:
    """A job of one task on this machine (no fixed port another program could hold)."""
    (folder / "task.py").write_text("print('trained')\n")
    path = folder / "job.json"
    path.write_text(json.dumps({"name": "j", "strategy": "single", "script": "task.py"}))
    return path


def entries(cache: Path) -> list[str]:
    return sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file())


def test_a_validated_config_is_shown_then_cleared_then_cached_again(tmp_path):
    cache, path = user_cache_dir(), job(tmp_path)
    empty = tensordeck("cache")
    assert empty.returncode == 0, empty.stderr
    assert f"cache: {cache}\n" in empty.stdout and "total" in empty.stdout
    assert tensordeck("validate", str(path)).returncode == 0  # the config, its pre-run checks
    made = entries(cache)
    assert {e.split("/")[0] for e in made} == {"configs", "probes", "clean-jobs"}

    shown = tensordeck("cache")
    assert shown.returncode == 0, shown.stderr
    rows = {line.split()[0]: line for line in shown.stdout.splitlines()[1:]}
    assert "1 entry" in rows["configs"] and "checked configs" in rows["configs"]
    assert f"{len(made)} entries" in rows["total"]
    assert "tensordeck cache clear" in shown.stdout

    cleared = tensordeck("cache", "clear")
    assert cleared.returncode == 0, cleared.stderr
    assert f"removed {len(made)} entries" in cleared.stdout
    assert entries(cache) == []
    assert tensordeck("validate", str(path)).returncode == 0  # the cache fills again
    assert [e.split("/")[0] for e in entries(cache)] == [e.split("/")[0] for e in made]


def test_clear_removes_a_link_never_what_it_points_to(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.json").write_text("{}")
    cache = user_cache_dir()
    (cache / "probes").mkdir(parents=True)
    symlink_or_skip(cache / "probes" / "link", outside)
    symlink_or_skip(cache / "top-link", outside)
    result = tensordeck("cache", "clear")
    assert result.returncode == 0, result.stderr
    assert list(cache.iterdir()) == []
    assert (outside / "keep.json").read_text() == "{}"


def test_a_cache_that_is_a_file_is_refused_and_left_alone():
    cache = user_cache_dir()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("not a folder")
    for args in (["cache"], ["cache", "clear"]):
        result = tensordeck(*args)
        assert result.returncode == 2
        assert result.stderr.strip().splitlines() == [
            f"tensordeck: the cache {cache} is not a folder: remove it (TensorDeck makes the "
            "folder again)"]
    assert cache.read_text() == "not a folder"


def test_hostile_names_in_the_cache_are_shown_as_escapes():
    folder = user_cache_dir() / NAME
    folder.mkdir(parents=True)
    (folder / f"{NAME}.json").write_text("{}")
    result = tensordeck("cache")
    assert result.returncode == 0
    assert raw_controls(result.stdout.encode()) == [] and raw_controls(result.stderr.encode()) == []
    assert "\\u009b" in result.stdout  # said, as an escape


names = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
                min_size=1, max_size=12).filter(
    lambda name: name not in (".", ".."))


@pytest.mark.skipif(sys.platform == "win32", reason="Windows names cannot hold most of these")
@settings(max_examples=40, deadline=None)
@given(tree=st.lists(st.tuples(st.lists(names, min_size=1, max_size=3), st.binary(max_size=64)),
                     max_size=8))
def test_clear_empties_any_tree_and_counts_it(tree):
    """Generated trees of folders and files (any name a POSIX file system takes): the entries
    shown and removed are the tree's files, and clear leaves the cache empty."""
    cache = user_cache_dir()
    shutil.rmtree(cache, ignore_errors=True)
    files = set()
    for parts, data in tree:
        path = cache.joinpath(*parts)
        if any(f == path or f in path.parents or path in f.parents for f in files):
            continue  # a name already taken by a file, or a file where a folder is wanted
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        files.add(path)
    shown, cleared = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(shown):
        assert cache_command(argparse.Namespace(action=None)) == 0
    [total] = [line for line in shown.getvalue().splitlines() if line.split()[:1] == ["total"]]
    assert total.split()[1] == str(len(files))
    with contextlib.redirect_stdout(cleared):
        assert cache_command(argparse.Namespace(action="clear")) == 0
    assert f"removed {len(files)} entr" in cleared.getvalue()
    assert not cache.exists() or list(cache.iterdir()) == []
