"""TF_CPP_MIN_LOG_LEVEL does what it says in both faces: the lines TensorFlow prints before
absl::InitializeLog() ignore it (recorded from real TF 2.21 runs: tests/data/tf_log_levels),
so the console and the window leave out every TensorFlow line under the level; the log files
keep every line as printed."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.tfnoise import below_level, shared_log_level, tf_log_level
from tests.conftest import REPO, tensordeck

RECORDED = REPO / "tests" / "data" / "tf_log_levels"
SEVERITY = re.compile(r"^(?:([IWEF])\d{4} |\d{4}-\d\d-\d\d [\d:.]+: ([IWEF]) )")
LEVELS = {"I": 0, "W": 1, "E": 2, "F": 3}


def severity(line: str) -> int | None:
    found = SEVERITY.match(line)
    return LEVELS[found.group(1) or found.group(2)] if found else None


@pytest.mark.parametrize("path", sorted(RECORDED.glob("*.txt")), ids=lambda p: p.stem)
@pytest.mark.parametrize("level", [1, 2, 3])
def test_what_is_left_of_a_real_log_is_what_the_level_asks_for(path, level):
    lines = path.read_text(encoding="utf-8").splitlines()
    left = [line for line in lines if not below_level(line, level)]
    assert all(severity(line) is None or severity(line) >= level for line in left)
    assert not any("absl::InitializeLog()" in line for line in left)
    # Every line that is not TensorFlow's C++ log (the script's own) stays.
    assert [line for line in lines if severity(line) is None and "absl::" not in line] == [
        line for line in left if severity(line) is None]


@given(st.sampled_from("IWEF"), st.integers(0, 3), st.sampled_from(["", "[worker-0]   "]),
       st.text(max_size=40), st.booleans())
def test_any_cpp_log_line_is_left_out_exactly_under_the_level(letter, level, prefix, text,
                                                               tf_2_10):
    head = (f"2022-11-02 10:01:02.123456: {letter} tensorflow/core/x.cc:42] " if tf_2_10
            else f"{letter}0000 00:00:1796190832.645691   18876 port.cc:153] ")
    assert below_level(prefix + head + text, level) == (LEVELS[letter] < level)


def test_the_level_of_an_environment_and_of_a_run():
    assert [tf_log_level(e) for e in ({}, {"TF_CPP_MIN_LOG_LEVEL": "2"},
                                      {"TF_CPP_MIN_LOG_LEVEL": "9"},
                                      {"TF_CPP_MIN_LOG_LEVEL": "x"})] == [0, 2, 3, 0]
    assert shared_log_level([{"TF_CPP_MIN_LOG_LEVEL": "1"}, {}]) == 0  # one task shows all
    assert shared_log_level([{"TF_CPP_MIN_LOG_LEVEL": "3"}, {"TF_CPP_MIN_LOG_LEVEL": "1"}]) == 1


def prints_a_recorded_log(folder: Path, level: str | None) -> Path:
    """A job whose task prints a real TF task's log (as TF 2.21 printed it, whatever the
    level: the lines that ignore TF_CPP_MIN_LOG_LEVEL)."""
    recorded = RECORDED / "ps_none_worker-0.txt"
    (folder / "task.py").write_text(
        f"import sys\nsys.stdout.write(open({str(recorded)!r}, encoding='utf-8').read())\n")
    env = {"TF_CPP_MIN_LOG_LEVEL": level} if level else {}
    config = folder / "job.json"
    config.write_text(json.dumps({"name": "t", "strategy": "single", "script": "task.py",
                                  "python": sys.executable, "env": env}))
    return config


@pytest.mark.parametrize("level", [None, "1"])
def test_the_console_leaves_the_lines_out_and_the_log_file_keeps_them(tmp_path, level):
    config = prints_a_recorded_log(tmp_path, level)
    done = tensordeck("--run", str(config), "--no-doctor")
    assert done.returncode == 0, done.stderr
    recorded = (RECORDED / "ps_none_worker-0.txt").read_text(encoding="utf-8")
    [run] = (tmp_path / "runs").iterdir()
    [log] = (run / "logs").glob("*.log")
    assert log.read_text(encoding="utf-8") == recorded
    shown_info = [line for line in done.stdout.splitlines() if " I0000 " in line]
    assert bool(shown_info) == (level is None)
    assert "worker:0 serving at grpc://" in done.stdout  # the script's own lines are shown
    assert "failed call to cuInit" in done.stdout  # an E line, over level 1
