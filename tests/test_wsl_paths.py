"""core.wsl.paths: ``wsl://`` interpreter names and Windows paths as a distribution reaches
them. Hand-picked cases, then generated ones: round trips, no control character ever passes,
and every input gets an answer or a WslPathError, never another exception."""

from __future__ import annotations

import string
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.wsl.paths import (
    WslPath,
    is_wsl_spec,
    parse_wsl_spec,
    to_linux_path,
    to_windows_path,
)
from core.wsl.refusals import WslPathError, WslRefusal


@pytest.mark.parametrize(("spec", "distro", "path"), [
    ("wsl://Ubuntu-22.04/home/me/tf/bin/python", "Ubuntu-22.04", "/home/me/tf/bin/python"),
    ("wsl:///usr/bin/python3", None, "/usr/bin/python3"),
    ("WSL://Debian/opt/my env/bin/python", "Debian", "/opt/my env/bin/python"),
    ("wsl://docker-desktop_2.x/", "docker-desktop_2.x", "/"),
])
def test_spec_names_a_distribution_and_a_path(spec, distro, path):
    assert parse_wsl_spec(spec) == WslPath(distro, path)
    assert is_wsl_spec(spec)


@pytest.mark.parametrize(("spec", "why"), [
    ("wsl://Ubuntu", "names no Linux path"),
    ("wsl://", "names no Linux path"),
    ("wsl:/usr/bin/python3", "is not a WSL interpreter name"),
    ("/usr/bin/python3", "is not a WSL interpreter name"),
    ("wsl://-e/usr/bin/python3", "is not a WSL distribution name"),
    ("wsl://./usr/bin/python3", "is not a WSL distribution name"),
    ("wsl://Ubu ntu/usr/bin/python3", "is not a WSL distribution name"),
    ("wsl://Ubuntu\\home\\me\\python", "written with /, not \\"),
    ("wsl://Ubuntu/home\\me\\python", "written with /, not \\"),
    ("wsl://Ubuntu/~/tf/bin/python", "~ is not expanded"),
    ("wsl://Ubuntu/usr/bin/py\x1b[31mthon", "control character U+001B"),
    ("wsl://Ubuntu/usr/bin/python\n", "control character U+000A"),
    ("wsl://Ubuntu/usr/bin/py\ud800", "half of a UTF-16 pair"),
    ("wsl://Ubuntu/" + "x" * 5000, "longer than 4096"),
])
def test_spec_refusals_say_why(spec, why):
    with pytest.raises(WslPathError) as exc:
        parse_wsl_spec(spec)
    assert why in str(exc.value)
    assert isinstance(exc.value, WslRefusal) and "\n" not in str(exc.value)
    assert "\x1b" not in str(exc.value)


@pytest.mark.parametrize(("path", "linux"), [
    ("C:\\x y\\z", "/mnt/c/x y/z"),
    ("d:/data/set", "/mnt/d/data/set"),
    ("C:\\", "/mnt/c"),
    ("C:\\a\\.\\b\\..\\c\\\\d", "/mnt/c/a/c/d"),
    ("C:\\..\\..\\x", "/mnt/c/x"),
    ("\\\\?\\C:\\long\\path", "/mnt/c/long/path"),
    ("\\\\wsl$\\Ubuntu-22.04\\home\\me\\train.py", "/home/me/train.py"),
    ("\\\\wsl.localhost\\ubuntu-22.04\\home\\me", "/home/me"),
    ("\\\\?\\UNC\\wsl.localhost\\Ubuntu-22.04\\srv", "/srv"),
    ("//wsl$/Ubuntu-22.04/srv/data", "/srv/data"),
    ("\\\\wsl$\\Ubuntu-22.04", "/"),
    ("/home/me/train.py", "/home/me/train.py"),
])
def test_windows_paths_as_the_distribution_reaches_them(path, linux):
    assert to_linux_path(path, "Ubuntu-22.04") == linux


@pytest.mark.parametrize(("path", "why"), [
    ("train.py", "is not an absolute path"),
    ("C:train.py", "is not an absolute path"),
    ("C:", "is not an absolute path"),
    ("\\x\\train.py", "is not an absolute path"),
    ("", "an empty path is not an absolute path"),
    ("\\\\server\\share\\x", "network share, which WSL does not mount"),
    ("\\\\wsl$\\Debian\\home\\me", "inside the WSL distribution Debian, not Ubuntu-22.04"),
    ("C:\\a:b\\c", "':', which no Windows file name holds"),
    ("C:\\a\tb", "control character U+0009"),
    ("/home/me\\x", "written with /, not \\"),
])
def test_unreachable_paths_are_refused(path, why):
    with pytest.raises(WslPathError) as exc:
        to_linux_path(path, "Ubuntu-22.04")
    assert why in str(exc.value)


@pytest.mark.parametrize(("linux", "windows"), [
    ("/mnt/c/x y/z", "C:\\x y\\z"),
    ("/mnt/c", "C:\\"),
    ("/home/me/tf", "\\\\wsl.localhost\\Ubuntu-22.04\\home\\me\\tf"),
    ("/mnt/cd/x", "\\\\wsl.localhost\\Ubuntu-22.04\\mnt\\cd\\x"),
    ("/", "\\\\wsl.localhost\\Ubuntu-22.04\\"),
])
def test_linux_paths_as_windows_names_them(linux, windows):
    assert to_windows_path(linux, "Ubuntu-22.04") == windows
    assert to_linux_path(windows, "Ubuntu-22.04") == linux


# --- generated -----------------------------------------------------------------------------

NAMES = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,30}", fullmatch=True)
#: File names a Windows path can hold too: no control character, none of <>:"|?*\ or /.
FILE_NAMES = st.text(
    st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters='<>:"|?*\\/'),
    min_size=1, max_size=12).filter(lambda n: n not in (".", ".."))
LINUX_PATHS = st.lists(FILE_NAMES, max_size=6).map(lambda names: "/" + "/".join(names)).filter(
    lambda p: not (p == "/~" or p.startswith("/~/")))


@settings(max_examples=300, deadline=None)
@given(distro=st.none() | NAMES, path=LINUX_PATHS)
def test_spec_round_trip(distro, path):
    where = WslPath(distro, path)
    assert parse_wsl_spec(where.spec()) == where


@settings(max_examples=300, deadline=None)
@given(distro=NAMES, path=LINUX_PATHS)
def test_windows_linux_round_trip(distro, path):
    windows = to_windows_path(path, distro)
    assert to_linux_path(windows, distro) == path
    assert to_linux_path(windows.replace("\\", "/"), distro) == path


@settings(max_examples=300, deadline=None)
@given(letter=st.sampled_from(string.ascii_letters), names=st.lists(FILE_NAMES, max_size=6))
def test_drive_paths_land_under_mnt(letter, names):
    linux = to_linux_path(f"{letter}:\\" + "\\".join(names), "Ubuntu")
    assert linux == f"/mnt/{letter.lower()}" + "".join(f"/{n}" for n in names)


def no_control(text: str) -> bool:
    return not any(unicodedata.category(c) in ("Cc", "Cs") for c in text)


@settings(max_examples=1000, deadline=None)
@given(text=st.text(max_size=80) | st.text(max_size=80).map(lambda t: "wsl://" + t)
       | st.text(max_size=80).map(lambda t: "C:\\" + t)
       | st.text(max_size=80).map(lambda t: "\\\\wsl$\\Ubuntu\\" + t))
def test_total_and_no_control_character_passes(text):
    """Any text: an answer free of control characters, or WslPathError; nothing else."""
    for convert in (parse_wsl_spec, lambda t: to_linux_path(t, "Ubuntu"),
                    lambda t: to_windows_path(t, "Ubuntu")):
        try:
            answer = convert(text)
        except WslPathError as exc:
            assert no_control(str(exc)) and "\n" not in str(exc)
            continue
        shown = answer.spec() if isinstance(answer, WslPath) else answer
        assert no_control(shown)
