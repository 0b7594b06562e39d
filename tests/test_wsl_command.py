"""core.wsl.command: a program run inside a distribution gets exactly its arguments (no shell
reads them again) and exactly the variables passed (WSLENV names them; nothing else of
Windows' environment crosses)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.wsl.command import interpreter_target, wsl_argv, wsl_environment, wsl_target
from core.wsl.refusals import UnknownDistribution, Wsl1Distribution, WslPathError

SHOW = ("import json, os, sys; print(json.dumps([sys.argv[1:], os.getcwd(), "
        "{k: v for k, v in os.environ.items() if k.startswith('TD_')}]))")


def test_argv_runs_the_program_itself():
    assert wsl_argv("wsl.exe", "Ubuntu", "/usr/bin/python3", ["-c", "x"], cwd="/tmp") == [
        "wsl.exe", "-d", "Ubuntu", "--cd", "/tmp", "-e", "/usr/bin/python3", "-c", "x"]
    assert wsl_argv("wsl.exe", None, "python3") == ["wsl.exe", "-e", "python3"]


def test_environment_names_exactly_what_it_passes():
    base = {"PATH": "C:\\Windows", "WSLENV": "USERPROFILE/p", "TD_OLD": "x", "td_one": "stale"}
    env = wsl_environment({"TD_ONE": "1", "TD_DIR": "C:\\data"}, base=base, paths={"TD_DIR"},
                          platform="win32")
    assert env["WSLENV"] == "TD_ONE:TD_DIR/p"
    assert env["TD_ONE"] == "1" and "td_one" not in env  # Windows names ignore case
    assert env["PATH"] == "C:\\Windows" and env["TD_OLD"] == "x"
    assert wsl_environment({}, base=base)["WSLENV"] == ""


@given(name=st.text(max_size=20))
def test_only_identifiers_cross(name):
    try:
        env = wsl_environment({name: "v"}, base={})
    except ValueError as exc:
        assert not name.isidentifier() or not name.isascii(), exc
        return
    assert name.isidentifier() and name.isascii() and env["WSLENV"] == name


def test_path_flags_only_for_passed_variables():
    with pytest.raises(ValueError, match="TD_NOT_PASSED"):
        wsl_environment({"TD_A": "1"}, base={}, paths={"TD_NOT_PASSED"})


def test_arguments_and_variables_cross_unchanged(wsl_standin, monkeypatch):
    wsl_standin.use(monkeypatch)
    monkeypatch.setenv("TD_WINDOWS_ONLY", "stays on Windows")
    target = wsl_target(None)
    assert target.distro.name == "Ubuntu-22.04"
    args = ["a b", "", "it's", 'say "hi"', "$(id)", "; rm -rf ~", "C:\\x\\", "100%", "日本語"]
    env = wsl_environment({"TD_VALUE": "$HOME 'q' \"d\"", "TD_DATA": "C:\\x y\\z"},
                          paths={"TD_DATA"})
    done = wsl_standin.run(*target.argv("python3", ["-c", SHOW, *args], cwd="/usr")[1:],
                           env=env)
    seen_args, cwd, seen_env = json.loads(done.stdout)
    assert seen_args == args and cwd == "/usr"
    assert seen_env == {"TD_VALUE": "$HOME 'q' \"d\"", "TD_DATA": "/mnt/c/x y/z"}


def test_targets_are_checked(wsl_standin, monkeypatch):
    wsl_standin.use(monkeypatch)
    target, path = interpreter_target("wsl:///usr/bin/python3")
    assert (target.distro.name, path) == ("Ubuntu-22.04", "/usr/bin/python3")
    assert target.argv("python3")[1:3] == ["-d", "Ubuntu-22.04"]  # named, never "the default"
    with pytest.raises(Wsl1Distribution):
        interpreter_target("wsl://Legacy/usr/bin/python3")
    with pytest.raises(UnknownDistribution, match=r"installed: Ubuntu-22\.04, Legacy, Minimal"):
        interpreter_target("wsl://Fedora/usr/bin/python3")
    with pytest.raises(WslPathError):
        interpreter_target("wsl://Ubuntu-22.04/~/tf/bin/python")
