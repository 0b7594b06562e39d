"""An argument list as one line of text and back, by the rules of the platform's command lines.

The window shows a config's ``args`` as one text field. POSIX ``shlex`` eats Windows paths
(``C:\\data\\train`` -> ``C:datatrain``), so on Windows the text follows the rules a Windows
program's C runtime uses to split its command line, and a list is joined with
``subprocess.list2cmdline``, which is how ``Popen`` passes the list to the task: what the field
shows is what the task's command line holds.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Iterable

#: Which rules ``windows=None`` means; a module global so tests can pick the other platform's.
WINDOWS = os.name == "nt"


class ArgsError(ValueError):
    """Text that is not an argument list (an unclosed quote); the message says what to fix."""


def _windows(windows: bool | None) -> bool:
    return WINDOWS if windows is None else windows


def split_args(text: str, windows: bool | None = None) -> list[str]:
    """Split ``text`` into arguments; ``windows``: the Windows rules (None: this platform's).
    Raises :class:`ArgsError` for an unclosed quote."""
    if _windows(windows):
        return _split_windows(text)
    try:
        return shlex.split(text)
    except ValueError as exc:  # "No closing quotation" / "No escaped character"
        if "escaped" in str(exc):
            raise ArgsError("a backslash ends the text: nothing follows it to escape") from None
        raise ArgsError("a quote is not closed: add the closing ' or \"") from None


def join_args(args: Iterable[object], windows: bool | None = None) -> str:
    """The text that :func:`split_args` (same ``windows``) turns back into ``args``."""
    strings = [str(a) for a in args]
    return subprocess.list2cmdline(strings) if _windows(windows) else shlex.join(strings)


def _split_windows(text: str) -> list[str]:
    """The Microsoft C runtime's rules (what ``python.exe`` and most programs apply to their
    command line, CommandLineToArgvW's too for arguments after the program name):

    - spaces and tabs outside double quotes separate arguments;
    - backslashes are literal unless a double quote follows them: then 2N backslashes give N
      and the quote opens or closes quoting; 2N+1 give N and a literal quote;
    - inside quotes, ``""`` is a literal quote (the runtime of Visual C++ 2008 and later).

    One deliberate difference: where the runtime lets the end of the line close a quote, this
    raises :class:`ArgsError`, since in a text field an unclosed quote is a typo.
    """
    args: list[str] = []
    current: list[str] = []
    in_arg = quoted = False
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char in " \t" and not quoted:
            if in_arg:
                args.append("".join(current))
                current, in_arg = [], False
            i += 1
            continue
        in_arg = True
        if char == "\\":
            i = _backslashes(text, i, current)
            continue
        if char == '"':
            if quoted and i + 1 < n and text[i + 1] == '"':
                current.append('"')
                i += 2
                continue
            quoted = not quoted
        else:
            current.append(char)
        i += 1
    if quoted:
        raise ArgsError('a double quote (") is not closed: add the closing one')
    if in_arg:
        args.append("".join(current))
    return args


def _backslashes(text: str, i: int, current: list[str]) -> int:
    """Append what the run of backslashes at ``text[i]`` stands for to ``current``; return the
    index after it. Backslashes are literal unless a double quote follows them: then 2N give N
    (the quote is left to the caller: it opens or closes quoting), 2N+1 give N and the quote."""
    run, n = i, len(text)
    while i < n and text[i] == "\\":
        i += 1
    slashes = i - run
    if i < n and text[i] == '"':
        current.append("\\" * (slashes // 2))
        if slashes % 2:
            current.append('"')
            i += 1
    else:
        current.append("\\" * slashes)
    return i
