"""Words and comments in shell text TensorDeck writes for people to run: the command blocks and
the batch script of ``tensordeck export``, the doctor's fixes, a node's SSH command lines.

Every value such text holds (a path, an argument, a variable's value) is one word made by
:func:`quote`, for the shell that reads it; every comment by :func:`comment`. A value that a
shell cannot be given as one word raises :class:`UnsafeValue`: the caller leaves the command
out or refuses it, naming the field, rather than write a line that runs something else.
"""

from __future__ import annotations

import re
from typing import Literal

from core.output import plain

Shell = Literal["posix", "cmd", "powershell"]

#: Words sh leaves as they are (shlex's set), less those that read as an assignment when they
#: come first (``A=b``).
_POSIX_PLAIN = re.compile(r"(?![A-Za-z_][A-Za-z0-9_]*=)[A-Za-z0-9_@%+=:,./-]+\Z")
_CMD_PLAIN = re.compile(r"[A-Za-z0-9_./:\\@+-]+\Z")
# cmd has no escape inside quotes: " ends them, %VAR% and !VAR! expand there, and a line break
# ends the command.
_CMD_UNQUOTABLE = re.compile('["%!\r\n]')
# PowerShell reads the typographic single quotes as quotes too.
_PS_QUOTES = frozenset("'\u2018\u2019\u201a\u201b")


class UnsafeValue(ValueError):
    """A value that a shell cannot be given as one word (see :func:`quote`)."""


def quote(value: str, shell: Shell = "posix") -> str:
    """``value`` as one word of ``shell`` that stands for exactly ``value``: as is when no
    character in it is special there, else quoted (sh: single quotes; PowerShell: single quotes,
    every quote doubled; cmd: double quotes, backslashes before the closing one doubled, as the
    C runtime splits them). UnsafeValue for a NUL (no program can receive one), and for cmd a
    ``"``, ``%``, ``!`` or line break (cmd has no way to quote them)."""
    if "\0" in value:
        raise UnsafeValue(f"{plain(value)!r} holds a NUL character")
    if shell == "posix":
        if _POSIX_PLAIN.match(value):
            return value
        return "'" + value.replace("'", "'\"'\"'") + "'"
    if shell == "powershell":
        return "'" + "".join(ch * 2 if ch in _PS_QUOTES else ch for ch in value) + "'"
    if _CMD_PLAIN.match(value):
        return value
    if _CMD_UNQUOTABLE.search(value):
        raise UnsafeValue(f"{plain(value)!r} cannot be quoted for cmd")
    trailing = len(value) - len(value.rstrip("\\"))
    return '"' + value + "\\" * trailing + '"'


def comment(text: str) -> str:
    """``text`` as one ``#`` comment line (sh, PowerShell, YAML): every line break and control
    character in it is shown as an escape (``\\x0a``), so no part of it can end the comment and
    run, nor drive the terminal the file is shown in."""
    return f"# {plain(text)}".rstrip()
