"""What a task's exit code means, and the launcher's own exit code for it.

A Windows process that crashes ends with an NTSTATUS code such as 0xC0000005: ``Popen.returncode``
gives it as an unsigned 32-bit number (3221225477), some paths hand it over signed
(-1073741819). Neither fits a process exit status: ``sys.exit(3221225477)`` becomes 4294967295
on Windows and 255 on Linux, so :func:`launcher_exit_code` maps such codes into 0-255.

POSIX codes arrive as a shell reports them (``core.proctree.exit_status``: 128+N for death by
signal N). They are described with Linux's signal numbers whatever the platform, since a
Windows launcher also reports the codes of tasks on Linux machines of a LAN job.
"""

from __future__ import annotations

from core.messages import tr

#: Bad usage or a bad config: nothing was started (as argparse exits on a usage error).
EXIT_USAGE = 2
#: The launcher's exit code when the failed task's code does not fit in 0-255 (a Windows status
#: code such as 0xC0000005). 125 is free in the shell conventions (126/127: cannot execute /
#: not found, 128+N: signal N) and in TensorDeck's own codes (2: bad config or usage).
EXIT_TASK_CODE_OUT_OF_RANGE = 125
#: The launcher's exit code after Ctrl+C, also when a task ended with Windows' Ctrl+C status.
EXIT_CTRL_C = 130
#: A run stopped on request, not by Ctrl+C (the window's Stop): what a service manager's stop
#: (SIGTERM) gives, as the launcher's own SIGTERM does.
EXIT_STOPPED = 128 + 15

STATUS_CONTROL_C_EXIT = 0xC000013A

#: Well-known Windows NTSTATUS codes a crashing process ends with, and what they mean (its
#: words: ``exit.status.0x...`` in core.messages, in English and Chinese).
STATUS_CODES = (0x40010004, 0x80000003, 0xC0000005, 0xC0000006, 0xC0000017, 0xC000001D,
                0xC000007B, 0xC0000094, 0xC00000FD, 0xC0000135, 0xC0000139, 0xC000013A,
                0xC0000142, 0xC0000374, 0xC0000409, 0xC0000417, 0xE06D7363)
NTSTATUS: dict[int, str] = {code: tr(f"exit.status.0x{code:08X}", "en") for code in STATUS_CODES}

#: Signals by their Linux numbers: exit code 128+N (their words: ``exit.signal.N``).
SIGNALS: dict[int, str] = {1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 6: "SIGABRT",
                           7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE",
                           14: "SIGALRM", 15: "SIGTERM"}

#: Longer words for the window's tooltips, where the short form leaves a question.
_SIGNAL_HINTS: dict[int, str] = {
    9: "killed at once: by TensorDeck when a task outlives the stop grace period, or by the "
    "out-of-memory killer",
    15: "stopped by TensorDeck (or whoever sent SIGTERM): the task was asked to exit",
}

_PLAIN_HINTS: dict[int, str] = {
    0: "",
    1: "1: the task failed (for Python: an uncaught exception, its log says which).",
}

#: Shell codes with a meaning of their own (``exit.code.N``).
_OTHER = (126, 127)


def normalize(code: int) -> int:
    """A Windows status code given signed (-1073741819) as the unsigned number Windows reports
    (3221225477); small negative codes (a raw POSIX ``-N`` for signal N) as 128+N."""
    if code < -255:
        return code & 0xFFFFFFFF
    if code < 0:
        return 128 - code
    return code


def _parts(code: int, language: str | None = "en") -> tuple[str, str | None, str | None]:
    """The code as shown (decimal, or hex for a status code), its short meaning, its hint."""
    code = normalize(code)
    if code > 255:
        known = code in NTSTATUS
        return f"0x{code:08X}", tr(f"exit.status.0x{code:08X}", language) if known else None, None
    if code in _OTHER:
        return str(code), tr(f"exit.code.{code}", language), None
    name = SIGNALS.get(code - 128)
    if name is not None:
        words = tr(f"exit.signal.{code - 128}", language)
        return str(code), f"{words}: {name}", _SIGNAL_HINTS.get(code - 128)
    return str(code), None, None


def describe(code: int | None, language: str | None = "en") -> str:
    """``0xC0000005 (access violation: the process crashed)``, ``137 (killed: SIGKILL)``, ``1``;
    "" for no code (a task that has not ended). ``language``: of the meaning (files keep
    English; None: the chosen language)."""
    if code is None:
        return ""
    shown, meaning, _ = _parts(code, language)
    return f"{shown} ({meaning})" if meaning else shown


def explain(code: int | None) -> str:
    """A sentence for a tooltip: what the number is and what it means; "" when nothing more
    than the number can be said."""
    if code is None:
        return ""
    shown, meaning, hint = _parts(code)
    value = normalize(code)
    if value > 255:
        what = meaning or "a status code this table does not know"
        return f"Windows status {shown} ({value}): {what}."
    if value - 128 in SIGNALS:
        name = SIGNALS[value - 128]
        return f"{value} = 128 + {value - 128}: the task ended on {name}: {hint or meaning}."
    if meaning:
        return f"{value}: {meaning}."
    return _PLAIN_HINTS.get(value, f"{value}: the task's own exit code (its script chose it).")


def launcher_exit_code(code: int) -> int:
    """The launcher's exit code for a task's ``code``: 0-255 unchanged, Windows' Ctrl+C status
    as 130, any other code outside 0-255 as :data:`EXIT_TASK_CODE_OUT_OF_RANGE`."""
    value = normalize(code)
    if value == STATUS_CONTROL_C_EXIT:
        return EXIT_CTRL_C
    return value if 0 <= value <= 255 else EXIT_TASK_CODE_OUT_OF_RANGE
