"""How ``tensordeck`` routes its first word: the window's forms of the command line
(``tensordeck FILE``, ``tensordeck gui FILE --no-wizard``), and internal commands kept out of
what users read."""

from __future__ import annotations

import json
import sys

import pytest

from core import cli
from tests.conftest import tensordeck


@pytest.fixture
def opened(monkeypatch) -> list[list[str]]:
    """What the window was asked to open (the window itself is tested in test_gui_*)."""
    pytest.importorskip("PySide6")
    import gui.app

    calls: list[list[str]] = []
    monkeypatch.setattr(gui.app, "main", lambda argv: calls.append(list(argv)) or 0)
    return calls


def test_the_window_takes_a_file_and_no_wizard_in_every_form(opened, tmp_path, monkeypatch):
    config = tmp_path / "my job.json"
    config.write_text(json.dumps({"name": "t", "strategy": "single", "script": "t.py"}))
    monkeypatch.chdir(tmp_path)
    for argv, expected in (
            (["gui", "--no-wizard"], ["--no-wizard"]),
            (["gui", "--no-wizard", str(config)], [str(config), "--no-wizard"]),
            (["gui", str(config)], [str(config)]),
            ([str(config)], [str(config)]),  # "Open with TensorDeck", a double-click
            (["my job.json", "--no-wizard"], ["my job.json", "--no-wizard"]),
            ([], [])):
        assert cli.main(argv) == 0, argv
        assert opened.pop() == expected, argv


def test_a_file_named_like_a_command_does_not_hide_the_command(opened, tmp_path, monkeypatch):
    (tmp_path / "schema").write_text("{}")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["schema"]) == 0
    assert opened == []


def test_usage_and_errors_name_no_internal_command():
    for args in (["nosuch.json"], ["--help"], ["frobnicate"]):
        result = tensordeck(*args, timeout=60)
        assert "_remote-task" not in result.stdout + result.stderr, args
    result = tensordeck("frobnicate", timeout=60)  # argparse's list of the commands
    assert result.returncode == 2 and "'gui'" in result.stderr
    internal = tensordeck("_remote-task", "--help", timeout=60)  # still there for the app
    assert internal.returncode == 0 and "_remote-task" in internal.stdout


@pytest.mark.parametrize("word", ["nope.json", "jobs/nope.json", "..\\jobs\\job", "./job"])
def test_a_file_that_is_not_there_is_one_line_no_such_file(word, tmp_path):
    """``tensordeck FILE`` with a missing file (a typo, a moved job): the file is named, not
    argparse's list of commands."""
    run = tensordeck(word, cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr == (f"tensordeck: {word}: no such file. Give the path of a job file "
                          "(tensordeck FILE opens it in the window), or a command: "
                          "tensordeck --help\n")
    assert "invalid choice" not in run.stderr and not list(tmp_path.iterdir())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pipe of one page "
                    "(F_SETPIPE_SZ) is Linux's; a closed pipe is EINVAL on Windows, where no "
                    "pipeline convention (SIGPIPE, exit 141) exists")
def test_output_cut_short_by_its_reader_ends_quietly():
    """``tensordeck doctor --explain BIG | head -1``: the reader leaves after one line, long
    before the doctor is done writing (the pipe holds one page); no BrokenPipeError
    traceback, exit 141 as a pipeline expects."""
    import fcntl
    import os
    import subprocess

    from tests.conftest import REPO

    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, 1031, 4096)  # F_SETPIPE_SZ: 55 KB of findings cannot fit
    corpus = REPO / "tests" / "data" / "doctor_corpus" / "reports.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "core", "doctor", "--explain", str(corpus)],
                            cwd=REPO, stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        assert reader.readline()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and "Traceback" not in err, err
