"""Command lines for a node's SSH shell: POSIX sh, Windows cmd, or PowerShell.

Everything TensorDeck runs on a node is ``<python> -u -c <BOOTSTRAP>``, and the bootstrap
reads the real program from stdin. So only two things ever need quoting, the interpreter's
path and a bootstrap made of plain characters, whatever the shell.
"""

from __future__ import annotations

import base64

from core.shellwords import Shell, quote

#: What makes a Windows machine an SSH node (PowerShell as administrator), for the fixes.
ENABLE_WINDOWS_SSHD = (
    "Add-WindowsCapability -Online -Name OpenSSH.Server~~~~0.0.1.0; "
    "Start-Service sshd; Set-Service -Name sshd -StartupType Automatic"
)

#: Reads one base64 line from stdin and runs it: no quotes, no shell metacharacters but ``;``
#: and parentheses, which every supported shell passes through inside its own quotes.
BOOTSTRAP = "import base64,sys;exec(base64.b64decode(sys.stdin.readline()))"

#: One command whose output tells the three shells apart (see :func:`shell_from_probe`).
PROBE = "echo %OS% $env:OS"


def shell_from_probe(output: str) -> Shell:
    """cmd expands %OS% only, PowerShell $env:OS only, sh neither (``$env`` is empty there)."""
    if "Windows_NT" not in output:
        return "posix"
    return "cmd" if "$env:OS" in output else "powershell"


def command_line(argv: list[str], shell: Shell) -> str:
    """``argv`` as one command line for the node's shell (PowerShell runs a quoted path with &)."""
    head = quote(argv[0], shell)
    if shell == "powershell":
        head = f"& {head}"
    return " ".join([head, *(quote(arg, shell) for arg in argv[1:])])


def python_command(python: str, shell: Shell) -> str:
    """The command line that starts ``python`` running the bootstrap."""
    return command_line([python, "-u", "-c", BOOTSTRAP], shell)


def bootstrap_line(source: str) -> bytes:
    """The first stdin line: the program the bootstrap runs."""
    return base64.b64encode(source.encode("utf-8")) + b"\n"
