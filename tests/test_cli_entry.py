"""How ``tensordeck`` routes its first word: the window's forms of the command line
(``tensordeck FILE``, ``tensordeck gui FILE --no-wizard``), and internal commands kept out of
what users read."""

from __future__ import annotations

import json

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
    result = tensordeck("nosuch.json", timeout=60)
    assert result.returncode == 2 and "'gui'" in result.stderr
    internal = tensordeck("_remote-task", "--help", timeout=60)  # still there for the app
    assert internal.returncode == 0 and "_remote-task" in internal.stdout
