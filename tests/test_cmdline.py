"""Arguments as one line of text and back (core.cmdline): the Microsoft C runtime's rules for
Windows, shlex elsewhere. hypothesis is not among the test dependencies: the round trips run on
tables of hard cases plus a few thousand seeded random lists."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from core import cmdline
from core.cmdline import ArgsError, join_args, split_args

#: (text, arguments) by the C runtime's rules. The first six are Microsoft's own examples
#: ("Parsing C++ command-line arguments"; the fifth closed, since an unclosed quote is refused).
WINDOWS_SPLITS = [
    ('"abc" d e', ["abc", "d", "e"]),
    (r'"ab\"c" "\\" d', ['ab"c', "\\", "d"]),
    (r'a\\\b d"e f"g h', [r"a\\\b", "de fg", "h"]),
    (r'a\\\"b c d', [r"a\"b", "c", "d"]),
    (r'a\\\\"b c" d e', [r"a\\b c", "d", "e"]),
    (r'a"b"" c d"', ['ab" c d']),
    (r'--data C:\data\train "C:\My Data\x"', ["--data", r"C:\data\train", r"C:\My Data\x"]),
    (r"C:\dir\ x", ["C:\\dir\\", "x"]),  # a trailing backslash without a quote stays
    (r'"C:\My Dir\\"', ["C:\\My Dir\\"]),  # list2cmdline's form of a trailing backslash
    (r"\\server\share\file.tfrecord", [r"\\server\share\file.tfrecord"]),
    (r'\\"" x', ["\\", "x"]),  # 2 backslashes + quote: 1 backslash, and the quote opens
    ('""', [""]),
    ('a "" b', ["a", "", "b"]),
    ('a""b', ["ab"]),
    ('a"b c"d', ["ab cd"]),
    ("  a\t\tb  ", ["a", "b"]),
    ("", []),
    (" \t ", []),
    ("it's 'a b'", ["it's", "'a", "b'"]),  # single quotes are ordinary characters
    ("$HOME %PATH% a&b ^x", ["$HOME", "%PATH%", "a&b", "^x"]),
    ('数据 "中文 路径" ünï\\"cödé', ["数据", "中文 路径", 'ünï"cödé']),
]

POSIX_SPLITS = [
    (r"C:\data\train", ["C:datatrain"]),  # why the window must not use these rules on Windows
    ("--note 'two words' \"and more\"", ["--note", "two words", "and more"]),
    (r"a\ b", ["a b"]),
    ("''", [""]),
    ("a\nb", ["a", "b"]),
    ("数据 '中文 路径'", ["数据", "中文 路径"]),
]

#: Argument lists that are hard to quote: each must come back from split(join(...)) unchanged.
HARD_LISTS = [
    [],
    [""],
    ["", ""],
    ["a b"],
    [r"C:\data\train", r"C:\My Data\x"],
    ["C:\\My Data\\"],
    ["trailing\\"],
    ["trailing\\\\"],
    ["\\"],
    ["\\\\"],
    ['"'],
    ['""'],
    ['\\"'],
    ['a"b'],
    ['a\\"b'],
    ['a\\\\"b c'],
    ["it's"],
    ["'"],
    ["tab\there"],
    ["new\nline"],
    [" lead", "trail ", " "],
    ["中文 路径", "ünïcödé", "🙂"],
    ["--x=1", "--y", "{run_dir}/data"],
    ["*", "?", "$HOME", "%PATH%", "&", "|", "^", ";", "<", ">", "#"],
]

ALPHABET = [" ", "\t", "\\", "\\", '"', "'", "a", "Z", "中", "$", "%", "\n", "é", "-"]


def random_lists(seed: int, count: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [["".join(rng.choices(ALPHABET, k=rng.randint(0, 8))) for _ in range(rng.randint(0, 4))]
            for _ in range(count)]


@pytest.mark.parametrize(("text", "expected"), WINDOWS_SPLITS)
def test_windows_split_follows_the_c_runtime(text, expected):
    assert split_args(text, windows=True) == expected


@pytest.mark.parametrize(("text", "expected"), POSIX_SPLITS)
def test_posix_split_is_a_shells(text, expected):
    assert split_args(text, windows=False) == expected


@pytest.mark.parametrize("windows", [True, False], ids=["windows", "posix"])
@pytest.mark.parametrize("args", HARD_LISTS)
def test_hard_lists_round_trip(args, windows):
    assert split_args(join_args(args, windows=windows), windows=windows) == args


@pytest.mark.parametrize("windows", [True, False], ids=["windows", "posix"])
def test_random_lists_round_trip(windows):
    for args in random_lists(seed=9, count=3000):
        assert split_args(join_args(args, windows=windows), windows=windows) == args, args


@pytest.mark.parametrize("windows", [True, False], ids=["windows", "posix"])
def test_text_that_splits_keeps_its_meaning_through_a_join(windows):
    """The window shows join(split(text)) after a reload: it must mean what the user typed."""
    rng = random.Random(7)
    checked = 0
    for _ in range(3000):
        text = "".join(rng.choices(ALPHABET, k=rng.randint(0, 12)))
        try:
            args = split_args(text, windows=windows)
        except ArgsError:
            continue
        checked += 1
        assert split_args(join_args(args, windows=windows), windows=windows) == args, text
    assert checked > 500


def test_windows_join_is_what_popen_passes():
    args = [r"C:\My Data\x", 'say "hi"', ""]
    assert join_args(args, windows=True) == subprocess.list2cmdline(args)
    assert join_args([1, 2.5], windows=True) == "1 2.5"


@pytest.mark.parametrize(("text", "windows"), [
    ('"C:\\My Data', True),
    ('a "b" "c', True),
    (r'"ends with an escaped quote\"', True),
    ("'open", False),
    ('"open', False),
    ("ends with a backslash\\", False),
])
def test_unclosed_quotes_are_a_clear_error(text, windows):
    with pytest.raises(ArgsError) as info:
        split_args(text, windows=windows)
    assert isinstance(info.value, ValueError)
    assert "not closed" in str(info.value) or "backslash" in str(info.value)


def test_none_means_the_platform_flag(monkeypatch):
    assert cmdline.WINDOWS is (os.name == "nt")
    monkeypatch.setattr(cmdline, "WINDOWS", True)
    assert split_args(r"C:\data") == [r"C:\data"]
    assert join_args(["a b"]) == '"a b"'
    monkeypatch.setattr(cmdline, "WINDOWS", False)
    assert split_args(r"C:\data") == ["C:data"]
    assert join_args(["a b"]) == "'a b'"


@pytest.mark.skipif(os.name != "nt", reason="the C runtime's own parsing exists only on Windows")
def test_windows_split_matches_what_a_real_python_exe_receives(tmp_path):
    """Ground truth: a child python.exe parses the same command line with its C runtime."""
    script = tmp_path / "argv.py"
    script.write_text("import json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    for text, expected in WINDOWS_SPLITS:
        line = subprocess.list2cmdline([sys.executable, str(script)]) + " " + text
        out = subprocess.run(line, capture_output=True, text=True, check=True).stdout
        assert json.loads(out) == expected, text
