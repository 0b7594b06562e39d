"""core.wsl.distros: wsl.exe found, its listing read as wsl.exe prints it (UTF-16LE, in the
Windows language), the default and WSL 1 told apart, and every refusal one line that names the
fix; a hostile listing (binary, endless, silent, control characters) is bounded and refused."""

from __future__ import annotations

import codecs
import os
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.wsl.distros import (
    Distro,
    decode_output,
    find_wsl_exe,
    installed_distros,
    list_distros,
    parse_listing,
)
from core.wsl.refusals import (
    NoDefaultDistribution,
    NoDistribution,
    UnknownDistribution,
    Wsl1Distribution,
    WslNotInstalled,
    WslRefusal,
    WslUnreadable,
)

ENGLISH = ("  NAME            STATE           VERSION\r\n"
           "* Ubuntu-22.04    Running         2\r\n"
           "  Debian          Stopped         1\r\n")
#: The same listing on a Chinese Windows: the words change, the shape does not.
CHINESE = ("  名称            状态           版本\r\n"
           "* Ubuntu-22.04    正在运行         2\r\n"
           "  Debian          已停止           1\r\n")
EXPECTED = (Distro("Ubuntu-22.04", 2, True, "Running"), Distro("Debian", 1, False, "Stopped"))


@pytest.mark.parametrize("data", [
    ENGLISH.encode("utf-16-le"),
    codecs.BOM_UTF16_LE + ENGLISH.encode("utf-16-le"),
    ENGLISH.encode("utf-8"),  # WSL_UTF8=1
    ENGLISH.encode("utf-16-le") + b"\0\0\0\0",  # NUL padding
    b"\0" + ENGLISH.encode("utf-16-le"),  # a stray byte before it
])
def test_listing_decoded_in_every_form_wsl_prints(data):
    assert parse_listing(decode_output(data)) == EXPECTED


def test_listing_in_another_language():
    found = parse_listing(decode_output(CHINESE.encode("utf-16-le")))
    assert [(d.name, d.version, d.default) for d in found] == [
        ("Ubuntu-22.04", 2, True), ("Debian", 1, False)]
    assert found[0].state == "正在运行"


def test_a_state_of_several_words():
    text = "  NAME   STATE   VERSION\n  Arch   Converting to v2   2\n"
    assert parse_listing(text) == (Distro("Arch", 2, False, "Converting to v2"),)


@pytest.mark.parametrize(("text", "why"), [
    ("NAME STATE VERSION\n* Ubu\x1b[31mntu Running 2\n", "control character U+001B"),
    ("NAME STATE VERSION\n* Ubuntu Running 3\n", "not a distribution: * Ubuntu Running 3"),
    ("NAME STATE VERSION\n* -e Running 2\n", "not a distribution"),
    ("NAME STATE VERSION\nUbuntu\n", "not a distribution"),
    ("NAME STATE VERSION\n\ufffd\ufffd Running 2\n", "bytes that are not text"),
])
def test_unreadable_listings_are_refused_whole(text, why):
    with pytest.raises(WslUnreadable) as exc:
        parse_listing(text)
    assert why in str(exc.value) and "\x1b" not in str(exc.value)
    assert "wsl -l -v" in str(exc.value)  # the fix: see what WSL says


DISTROS = st.lists(st.tuples(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,20}", fullmatch=True),
                             st.sampled_from([1, 2]),
                             st.sampled_from(["Running", "Stopped", "Installing", "正在运行"])),
                   min_size=1, max_size=8, unique_by=lambda d: d[0].lower())


@settings(max_examples=200, deadline=None)
@given(distros=DISTROS, default=st.integers(min_value=0, max_value=7),
       bom=st.booleans())
def test_generated_listings_round_trip(distros, default, bom):
    """A listing laid out as wsl.exe lays it out reads back as the distributions it lists."""
    default %= len(distros)
    width = max(len(name) for name, _, _ in distros) + 4
    lines = [f"  {'NAME':<{width}}{'STATE':<16}VERSION"]
    lines += [f"{'*' if i == default else ' '} {name:<{width}}{state:<16}{version}"
              for i, (name, version, state) in enumerate(distros)]
    data = "".join(f"{line}\r\n" for line in lines).encode("utf-16-le")
    found = parse_listing(decode_output(codecs.BOM_UTF16_LE * bom + data))
    assert found == tuple(Distro(name, version, i == default, state)
                          for i, (name, version, state) in enumerate(distros))


@settings(max_examples=500, deadline=None)
@given(data=st.binary(max_size=400))
def test_any_bytes_are_distributions_or_refused(data):
    """Total: whatever wsl.exe prints is read as distributions with valid names, or refused
    as unreadable, never another exception."""
    try:
        found = parse_listing(decode_output(data))
    except WslUnreadable as exc:
        assert "\n" not in str(exc)
        return
    assert all(d.version in (1, 2) and d.name.isprintable() for d in found)


def test_pick_the_default_by_name_and_refuse_wsl1():
    from core.wsl.distros import Distros

    distros = Distros("wsl.exe", EXPECTED)
    assert distros.pick(None).name == "Ubuntu-22.04"
    assert distros.pick("ubuntu-22.04").name == "Ubuntu-22.04"  # wsl.exe ignores case
    assert distros.pick("Debian", wsl2=False).version == 1
    with pytest.raises(Wsl1Distribution, match="wsl --set-version Debian 2"):
        distros.pick("Debian")
    with pytest.raises(UnknownDistribution, match=r"installed: Ubuntu-22\.04, Debian"):
        distros.pick("Fedora")
    with pytest.raises(NoDefaultDistribution, match="wsl --set-default"):
        Distros("wsl.exe", EXPECTED[1:]).pick(None)


def test_find_wsl_exe_windows_system_first(tmp_path):
    system = tmp_path / "Windows" / "System32"
    system.mkdir(parents=True)
    (system / "wsl.exe").write_bytes(b"MZ")
    env = {"SystemRoot": str(tmp_path / "Windows"), "PATH": ""}  # any case, as on Windows
    assert find_wsl_exe(env, "win32") == str(system / "wsl.exe")
    assert find_wsl_exe({"SYSTEMROOT": str(tmp_path / "none"), "PATH": ""}, "win32") is None


def test_no_wsl_exe_is_not_installed(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("SystemRoot", str(tmp_path))
    if sys.platform == "win32" and find_wsl_exe() is not None:
        pytest.skip("this Windows has a wsl.exe of its own in System32")
    assert find_wsl_exe() is None
    with pytest.raises(WslNotInstalled, match="wsl --install"):
        installed_distros()


# --- through the stand-in ------------------------------------------------------------------


def test_the_distributions_of_wsl_exe(wsl_standin, monkeypatch):
    wsl_standin.use(monkeypatch)
    distros = installed_distros()
    assert distros.wsl_exe == find_wsl_exe()
    assert os.path.samefile(distros.wsl_exe, wsl_standin.wsl_exe)
    assert [(d.name, d.version, d.default) for d in distros.items] == [
        ("Ubuntu-22.04", 2, True), ("Legacy", 1, False), ("Minimal", 2, False)]


@pytest.mark.parametrize(("scenario", "refusal", "words"), [
    ("no-distro", NoDistribution, "wsl --install -d"),
    ("not-installed", WslNotInstalled, "administrator, then restart Windows"),
    ("garbage", WslUnreadable, "wsl.exe -l -v printed"),
    ("control", WslUnreadable, "control character U+001B"),
    ("endless", WslUnreadable, "printed more than 65536 bytes (killed)"),
])
def test_refusals_of_wsl_exe(wsl_standin, monkeypatch, scenario, refusal, words):
    wsl_standin.use(monkeypatch, scenario)
    with pytest.raises(refusal) as exc:
        list_distros(str(wsl_standin.wsl_exe))
    assert words in str(exc.value) and "\n" not in str(exc.value)
    assert isinstance(exc.value, WslRefusal)


def test_a_silent_wsl_exe_is_given_up_on(wsl_standin, monkeypatch):
    wsl_standin.use(monkeypatch, "silent")
    with pytest.raises(WslUnreadable, match=r"did not answer in 2 s \(killed\)"):
        list_distros(str(wsl_standin.wsl_exe), timeout=2)
