"""The cache of checked configs: a text checked once starts again without pydantic, and
nothing about the cache can make TensorDeck accept what it would refuse."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.config import ConfigError, check_config, load_config, parse_config
from core.paths import user_cache_dir
from tests.conftest import EXAMPLES

#: Loads a config (or runs one) in a fresh interpreter; prints whether pydantic was imported.
PROBE = """
import sys
from core.cli import main
from core.config import config_to_json, load_config
if sys.argv[1] == "--run":
    code = main(["--run", sys.argv[2], "--run-dir", sys.argv[3]])
    print(code, "pydantic" in sys.modules)
else:
    cfg = load_config(sys.argv[1])
    print(config_to_json(cfg) == config_to_json(cfg), "pydantic" in sys.modules)
"""


def fresh(*args: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split("\n")[-2]


def entries(folder: str = "configs") -> list[Path]:
    """The cache's entries: of configs loaded from files, or of an editor's ``fields``."""
    return sorted((user_cache_dir() / folder).glob("*.json"))


def test_a_checked_config_loads_again_without_pydantic_and_the_same():
    example = EXAMPLES / "quickstart.json"
    assert fresh(str(example)) == "True True"  # checked: pydantic was needed
    assert len(entries()) == 1
    assert fresh(str(example)) == "True False"  # from the cache
    assert load_config(example) == load_config(example)


def test_the_launcher_starts_a_checked_job_without_importing_pydantic(tmp_path):
    (tmp_path / "task.py").write_text("pass\n")
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"name": "j", "strategy": "multi_worker_mirrored",
                               "script": "task.py", "tasks": [{"role": "worker", "count": 2}]}))
    assert fresh("--run", str(job), str(tmp_path / "run1")) == "0 True"
    assert fresh("--run", str(job), str(tmp_path / "run2")) == "0 False"
    summary = json.loads((tmp_path / "run2" / "summary.json").read_text())
    assert summary["status"] == "succeeded" and len(summary["tasks"]) == 2


def test_an_edited_text_is_checked_again(tmp_path):
    path = tmp_path / "job.json"
    good = {"name": "j", "strategy": "single", "script": "t.py"}
    path.write_text(json.dumps(good))
    load_config(path)
    path.write_text(json.dumps({**good, "stop_grace_seconds": -1}))
    with pytest.raises(ConfigError, match="stop_grace_seconds: must be >= 0"):
        load_config(path)
    assert len(entries()) == 1  # a refused text is never remembered


@pytest.mark.parametrize("damage", [b"", b"{", b"\xff\xfe", b"[]", b'{"name": 1}',
                                    b'{"unknown": true}', b"null"])
def test_a_damaged_entry_is_only_a_miss(tmp_path, damage):
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"name": "j", "strategy": "single", "script": "t.py"}))
    expected = load_config(path)
    (entry,) = entries()
    entry.write_bytes(damage)
    assert load_config(path) == expected
    assert json.loads(entry.read_text())["name"] == "j"  # checked again and written anew


def test_an_unwritable_cache_costs_only_the_check(tmp_path):
    cache = user_cache_dir()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("a file where the cache folder should be")
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"name": "j", "strategy": "single", "script": "t.py"}))
    assert load_config(path).name == "j"


def test_the_cache_keeps_a_bounded_number_of_entries(tmp_path, monkeypatch):
    monkeypatch.setattr("core.config.CHECKED_CONFIGS", 3)
    for i in range(6):
        path = tmp_path / f"job{i}.json"
        path.write_text(json.dumps({"name": f"j{i}", "strategy": "single", "script": "t.py"}))
        load_config(path)
    assert len(entries()) == 3


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_an_entry_that_is_not_a_file_is_a_miss_and_never_read(tmp_path):
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"name": "j", "strategy": "single", "script": "t.py"}))
    load_config(path)
    (entry,) = entries()
    entry.unlink()
    os.mkfifo(entry)  # a read would block forever
    assert load_config(path).name == "j"


def test_an_editors_fields_are_checked_once_and_refusals_every_time():
    """The window checks its fields with check_config: fields checked before come back from the
    cache, and what has a problem is refused with parse_config's message each time."""
    good = {"name": "j", "strategy": "single", "script": "t.py"}
    assert check_config(good) == parse_config(good)
    assert len(entries("fields")) == 1
    assert check_config(dict(good)) == parse_config(good)  # the same fields: the same entry
    assert len(entries("fields")) == 1
    for _ in range(2):
        with pytest.raises(ConfigError, match="stop_grace_seconds: must be >= 0"):
            check_config({**good, "stop_grace_seconds": -1})
    assert len(entries("fields")) == 1


def test_an_editors_edits_never_push_out_the_configs_that_were_run(tmp_path, monkeypatch):
    monkeypatch.setattr("core.config.CHECKED_FIELDS", 3)
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"name": "j", "strategy": "single", "script": "t.py"}))
    load_config(path)
    (run,) = entries()
    for i in range(6):  # the name typed letter by letter
        check_config({"name": "j" * (i + 1), "strategy": "single", "script": "t.py"})
    assert len(entries("fields")) == 3 and entries() == [run]


@pytest.mark.parametrize("fields", [
    {"name": "j", "strategy": "single", "script": "t.py", "args": ("a",)},  # a tuple
    {"name": "j", "strategy": "single", "script": "t.py", "env": {1: "x"}},  # a number as a key
    {"name": "j", "strategy": "single", "script": "t.py", "stop_grace_seconds": float("nan")},
])
def test_fields_that_are_not_plain_json_are_checked_as_they_are(fields):
    """Such fields have no JSON text that parses back to them: no entry could stand for them,
    so they are checked, and whatever the check says is what the editor shows."""
    try:
        expected = parse_config(fields)
    except ConfigError as exc:
        with pytest.raises(ConfigError) as got:
            check_config(fields)
        assert got.value.problems == exc.problems
    else:
        assert check_config(fields) == expected
    assert entries("fields") == []
