"""The Pythons inside WSL: found by one script per distribution, probed there by the probe
every interpreter gets (its cache keyed by distribution, its fingerprint read there, a hung
probe ended there), listed by ``tensordeck doctor`` and, when asked, by interpreter discovery.

The stand-in's Ubuntu-22.04 is this machine: its home holds ``tf``, the test venv (real
TensorFlow), and a Miniconda layout; Legacy is WSL 1; Minimal has no python3 (sh searches)."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.doctor.machine import unique_probes
from core.interpreters.discover import discover_interpreters
from core.interpreters.probe import (
    ProbeResult,
    cache_file,
    cached_probe,
    canonical,
    probe_interpreter,
)
from core.wsl.discover import read_payload, survey_wsl, tensorflow_pythons
from core.wsl.distros import Distro
from tests.conftest import tensordeck


def home_of(standin, distro: str = "Ubuntu-22.04") -> str:
    return standin.homes[distro]


def tf_python(standin) -> str:
    if not standin.local(f"{home_of(standin)}/tf/bin/python").exists():
        pytest.skip("the tests run outside a venv: Ubuntu-22.04's ~/tf is its venv")
    return f"wsl://Ubuntu-22.04{home_of(standin)}/tf/bin/python"


def test_survey_finds_the_pythons_of_each_distribution(wsl_standin, monkeypatch):
    wsl_standin.use(monkeypatch)
    survey = survey_wsl()
    ubuntu, legacy, minimal = survey.distros
    home = home_of(wsl_standin)
    conda = [f"wsl://Ubuntu-22.04{home}/miniconda3/bin/python",
             f"wsl://Ubuntu-22.04{home}/miniconda3/envs/old/bin/python"]
    assert ubuntu.pythons[0].endswith("/python3")  # python3 on the distribution's PATH
    assert list(ubuntu.pythons[1:3]) == conda and ubuntu.home == home
    assert ubuntu.problem is None and ubuntu.distro.default
    assert legacy.pythons == () and "wsl --set-version Legacy 2" in legacy.problem
    # No python3 there: sh searched, and found the conda Pythons (not the system's).
    minimal_home = home_of(wsl_standin, "Minimal")
    assert list(minimal.pythons) == [f"wsl://Minimal{minimal_home}/miniconda3/bin/python",
                                     f"wsl://Minimal{minimal_home}/miniconda3/envs/old/bin/python"]
    assert survey.pythons() == [*ubuntu.pythons, *minimal.pythons]


def test_the_tensorflow_python_is_probed_inside_its_distribution(wsl_standin, monkeypatch):
    wsl_standin.use(monkeypatch)
    python = tf_python(wsl_standin)
    [probe] = tensorflow_pythons(survey_wsl())
    assert probe.python == python
    assert probe.import_ok, probe.error
    assert probe.tf_version == wsl_standin.tf_version(f"{home_of(wsl_standin)}/tf/bin/python")
    assert probe.gpus == [] and probe.platform.startswith("Linux")  # sees 0 GPUs here
    assert probe.prefix == f"{home_of(wsl_standin)}/tf" and probe.is_venv


@pytest.mark.parametrize(("scenario", "python", "words"), [
    ("wsl", "wsl://Legacy/usr/bin/python3", "wsl --set-version Legacy 2"),
    ("wsl", "wsl://Fedora/usr/bin/python3", "no WSL distribution is named Fedora; installed: "
     "Ubuntu-22.04, Legacy, Minimal"),
    ("no-distro", "wsl:///usr/bin/python3", "wsl --install -d"),
    ("not-installed", "wsl:///usr/bin/python3", "WSL is not installed"),
    ("wsl", "wsl://Ubuntu-22.04/~/tf/bin/python", "~ is not expanded"),
])
def test_interpreters_wsl_cannot_run_are_refused(wsl_standin, monkeypatch, scenario, python,
                                                 words):
    wsl_standin.use(monkeypatch, scenario)
    probe = probe_interpreter(python)
    assert probe.python_version is None and words in probe.error and words in probe.run_error
    assert probe.error.startswith(f"{python}: ")


def test_not_installed_without_wsl_exe_costs_nothing(tmp_path, monkeypatch):
    """No wsl.exe: no program is started, for the survey or for interpreter discovery."""
    from core.wsl.distros import find_wsl_exe

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("SystemRoot", str(tmp_path))
    if find_wsl_exe() is not None:
        pytest.skip("this Windows has a wsl.exe of its own")

    def no_program(*args, **kwargs):
        raise AssertionError(f"started {args[0]}")

    monkeypatch.setattr(subprocess, "Popen", no_program)
    survey = survey_wsl()
    assert survey.wsl_exe is None and "wsl --install" in survey.problem
    assert probe_interpreter("wsl:///usr/bin/python3").run_error == survey.problem
    found = discover_interpreters(use_conda=False, wsl=True, home=tmp_path)
    assert not [i for i in found if i.kind == "wsl"]


def test_discovery_lists_wsl_pythons_only_when_asked(wsl_standin, monkeypatch, tmp_path):
    wsl_standin.use(monkeypatch)
    plain = discover_interpreters(use_conda=False, home=tmp_path)
    assert not [i for i in plain if i.kind == "wsl"]
    found = discover_interpreters(use_conda=False, home=tmp_path, wsl=True)
    assert [i.path for i in found if i.kind == "wsl"] == survey_wsl().pythons()


def test_cache_entries_are_per_distribution():
    path = "/usr/bin/python3"
    files = {cache_file(p) for p in (path, f"wsl://Ubuntu{path}", f"wsl://Debian{path}",
                                     f"wsl://{path}")}
    assert len(files) == 4
    assert canonical("WSL://Ubuntu/usr/bin/python3") == "wsl://Ubuntu/usr/bin/python3"
    assert cache_file("WSL://Ubuntu/usr/bin/python3") == cache_file(f"wsl://Ubuntu{path}")


def in_distro(standin, script: str) -> None:
    done = standin.run("-e", "sh", "-c", script)
    assert done.returncode == 0, done.stderr


def test_cached_probe_follows_changes_inside_the_distribution(wsl_standin, monkeypatch):
    """The cached answer stands while the interpreter's files there are unchanged (read there:
    this machine cannot), and goes when a TensorFlow distribution is installed into it."""
    wsl_standin.use(monkeypatch)
    venv = f"/tmp/td-venv-{uuid.uuid4().hex}"
    in_distro(wsl_standin, f"/usr/bin/python3 -m venv --without-pip {venv}")
    python = f"wsl://Ubuntu-22.04{venv}/bin/python"
    try:
        first = cached_probe(python, import_tf=False)
        assert first.is_venv and first.site_packages and "tf-keras" not in first.packages
        entry = json.loads(cache_file(python).read_text())
        entry["result"]["python_version"] = "from the cache"
        cache_file(python).write_text(json.dumps(entry))
        assert cached_probe(python, import_tf=False).python_version == "from the cache"
        site = first.site_packages[0]
        in_distro(wsl_standin, f"mkdir {site}/tf_keras-9.9.9.dist-info")
        again = cached_probe(python, import_tf=False)
        assert again.python_version == first.python_version
        assert again.packages["tf-keras"] == "9.9.9"
    finally:
        in_distro(wsl_standin, f"rm -rf {venv}")


HANGS = '#!/bin/sh\necho $$ > "$(dirname "$0")/pid"\nexec sleep 600\n'


def test_a_hung_probe_ends_inside_wsl_too(wsl_standin, monkeypatch):
    """Killing wsl.exe at the probe's timeout leaves the Linux process running; the probe's
    own deadline there ends it."""
    wsl_standin.use(monkeypatch)
    folder = f"/tmp/td-hang-{uuid.uuid4().hex}"
    in_distro(wsl_standin, f"mkdir {folder} && printf '%s' '{HANGS}' > {folder}/python && "
                           f"chmod +x {folder}/python")
    try:
        # Long enough for the stand-in to start the script under Wine too.
        probe = probe_interpreter(f"wsl://Ubuntu-22.04{folder}/python", timeout=4)
        assert probe.timed_out and probe.run_error == "did not answer in 4 s (killed)"
        pid = wsl_standin.run("-e", "cat", f"{folder}/pid").stdout.decode().strip()
        assert pid.isdigit()
        deadline = time.monotonic() + 60
        while wsl_standin.run("-e", "kill", "-0", pid).returncode == 0:
            assert time.monotonic() < deadline, "the hung probe still runs inside WSL"
            time.sleep(0.5)
    finally:
        in_distro(wsl_standin, f"rm -rf {folder}")


@settings(max_examples=300, deadline=None)
@given(payload=st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["home", "pythons", "x"]), inner, max_size=3), max_leaves=12))
def test_any_answer_of_the_search_is_read_safely(payload):
    found = read_payload(Distro("Ubuntu", 2), payload)
    for python in found.pythons:
        assert python.startswith("wsl://Ubuntu/") and python.isprintable()
    assert found.home == "" or found.home.isprintable()


def test_same_paths_here_and_in_wsl_are_two_interpreters():
    here = ProbeResult(python="/usr/bin/python3", python_version="3.11", executable="/usr/bin/"
                       "python3", prefix="/usr")
    there = ProbeResult(python="wsl://Ubuntu/usr/bin/python3", python_version="3.11",
                        executable="/usr/bin/python3", prefix="/usr")
    other = ProbeResult(python="wsl://Debian/usr/bin/python3", python_version="3.11",
                        executable="/usr/bin/python3", prefix="/usr")
    assert len(unique_probes([here, there, other])) == 3


# --- tensordeck doctor -----------------------------------------------------------------------


def doctor(standin, *args: str, scenario: str = "wsl") -> subprocess.CompletedProcess:
    return tensordeck("doctor", *args, env={**os.environ, **standin.environ(scenario)})


def test_doctor_lists_the_distributions_and_their_pythons(wsl_standin):
    run = doctor(wsl_standin, "--no-import", "--json")
    data = json.loads(run.stdout)
    wsl = data["wsl"]
    assert [d["name"] for d in wsl["distros"]] == ["Ubuntu-22.04", "Legacy", "Minimal"]
    assert "wsl --set-version Legacy 2" in wsl["distros"][1]["problem"]
    listed = {i["python"]: i for i in data["interpreters"]}
    for python in wsl["distros"][0]["pythons"]:
        assert python in listed or any(python in i["aliases"] for i in listed.values())
    text = doctor(wsl_standin, "--no-import").stdout
    assert "WSL · Ubuntu-22.04 (WSL 2, default): " in text
    assert "WSL · Legacy (WSL 1): WSL distribution Legacy runs as WSL 1" in text


def test_doctor_says_why_wsl_cannot_be_used(wsl_standin):
    data = json.loads(doctor(wsl_standin, "--no-import", "--json", scenario="no-distro").stdout)
    assert data["wsl"]["distros"] == [] and "wsl --install -d" in data["wsl"]["problem"]
    text = doctor(wsl_standin, "--no-import", scenario="no-distro").stdout
    assert "WSL: WSL has no Linux distribution installed" in text


def test_doctor_python_names_a_wsl_interpreter(wsl_standin):
    run = doctor(wsl_standin, "--no-import", "--json", "--python", "wsl://Fedora/usr/bin/python3")
    [interp] = json.loads(run.stdout)["interpreters"]
    assert interp["state"] == "error" and "no WSL distribution is named Fedora" in interp["error"]
    bad = doctor(wsl_standin, "--python", "wsl://Ubuntu-22.04/~/tf/bin/python")
    assert bad.returncode == 2 and "~ is not expanded" in bad.stderr

