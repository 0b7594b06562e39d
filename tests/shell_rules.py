"""How cmd.exe, the Microsoft C runtime and PowerShell read a command line, as far as the
attack tests need it: to check generated lines in Python where no Windows shell can run them.

``cmd_line`` follows cmd's two phases for one line (percent expansion, then carets, quotes and
the operators that start another command); ``crt_argv`` splits what a program then receives
(the C runtime's rules, which ``subprocess.list2cmdline`` writes); ``powershell_tokens`` reads
single-quoted strings and bare words.
"""

from __future__ import annotations

import re

_OPERATORS = "&|<>()"


class Injection(AssertionError):
    """The line would do more than run its one command."""


def cmd_line(line: str, *, batch: bool) -> str:
    """What cmd passes on for ``line`` (carets and ``%%`` resolved); Injection when a line
    break, a ``%`` that may expand, or an operator outside quotes would let the line do more."""
    if "\n" in line or "\r" in line:
        raise Injection(f"line break in {line!r}")
    if batch:
        if re.search(r"(?<!%)%(?!%)", line.replace("%%", "")):
            raise Injection(f"a % that expands in {line!r}")
        line = line.replace("%%", "%")
    elif "%" in line:
        raise Injection(f"a % that may expand in {line!r}")
    out = []
    quoted = False
    chars = iter(line)
    for ch in chars:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "^":
            ch = next(chars, "")
        elif not quoted and ch in _OPERATORS:
            raise Injection(f"{ch!r} outside quotes in {line!r}")
        out.append(ch)
    return "".join(out)


def crt_argv(line: str) -> list[str]:
    """``line`` split as a C-runtime program (python.exe) splits its command line."""
    args: list[str] = []
    current: list[str] = []
    in_arg = quoted = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            run = len(line[i:]) - len(line[i:].lstrip("\\"))
            if line[i + run : i + run + 1] == '"':
                current.append("\\" * (run // 2))
                if run % 2:
                    current.append('"')
                    i += run + 1
                else:
                    i += run  # the quote toggles below
            else:
                current.append("\\" * run)
                i += run
            in_arg = True
            continue
        if ch == '"':
            if quoted and line[i + 1 : i + 2] == '"':  # "" inside quotes: a literal quote
                current.append('"')
                i += 2
                continue
            quoted = not quoted
            in_arg = True
        elif ch in " \t" and not quoted:
            if in_arg:
                args.append("".join(current))
                current, in_arg = [], False
        else:
            current.append(ch)
            in_arg = True
        i += 1
    if in_arg:
        args.append("".join(current))
    return args


def cmd_set(line: str) -> tuple[str, str]:
    """``set "NAME=value"`` as cmd's set reads it (after :func:`cmd_line`)."""
    assert line.startswith('set "') and line.endswith('"'), line
    name, _, value = line[5:-1].partition("=")
    return name, value


_PS_QUOTES = "'\u2018\u2019\u201a\u201b"


def powershell_tokens(line: str) -> list[tuple[str, str]]:
    """``line`` (one or more lines) as (kind, text) tokens: ("str", value) for a single-quoted
    string, which may span lines, ("nl", "") for a line end outside one, ("word", text) for
    anything else between spaces."""
    tokens = []
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == " ":
            i += 1
        elif ch == "\n":
            tokens.append(("nl", ""))
            i += 1
        elif ch in _PS_QUOTES:
            value = []
            i += 1
            while True:
                if i >= len(line):
                    raise Injection(f"unterminated string in {line!r}")
                if line[i] in _PS_QUOTES:
                    if line[i + 1 : i + 2] and line[i + 1] in _PS_QUOTES:
                        value.append(line[i + 1])
                        i += 2
                        continue
                    i += 1
                    break
                value.append(line[i])
                i += 1
            tokens.append(("str", "".join(value)))
        else:
            end = min((j for j in (line.find(" ", i), line.find("\n", i)) if j >= 0),
                      default=len(line))
            tokens.append(("word", line[i:end]))
            i = end
    return tokens
