"""The checks of a run that act on this machine, kept apart from planning (``core.topology``,
which only reads): run the interpreter (a short, cached probe), compile the script, raise the
open-files limit, bind the ports (the reservation that holds picked ports until the tasks
start), and ask whether the OS can start each task's command line at all.

Each returns what it found as values (``ConfigProblem``, a version); ``core.topology.plan_run``
gathers them so that a refused run names every problem at once.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

from core.config import ConfigProblem, JobConfig, show
from core.ports import PortReservation, port_problem

IS_WINDOWS = sys.platform == "win32"
#: Open files one local task holds at its peak: its output pipe, its log file, its reserved
#: port's socket until the start, the spawn's short-lived error pipe.
FILES_PER_TASK = 4
#: Open files the launcher needs beside its tasks: stdio, the watchdog, imports, caches.
FILES_RESERVED = 64


def os_length(text: str) -> int:
    """A name's length as the OS limits count it: bytes on POSIX, UTF-16 units on Windows."""
    if IS_WINDOWS:
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
    try:
        return len(os.fsencode(text))
    except UnicodeEncodeError:  # a lone surrogate from an API caller: the OS refuses it anyway
        return len(text.encode("utf-8", "surrogatepass"))


def interpreter_check(python: str) -> tuple[ConfigProblem | None, tuple[int, int] | None]:
    """Run ``python`` briefly (cached) to be sure it is a Python: the problem, or its version."""
    from core.interpreters.probe import cached_probe, interpreter_problem

    if problem := interpreter_problem(python):
        return ConfigProblem(where="python", message=problem), None
    return None, version_of(cached_probe(python, import_tf=False).python_version)


def launcher_version() -> tuple[int, int]:
    return sys.version_info[:2]


def version_of(text: str | None) -> tuple[int, int] | None:
    """``3.10.12`` -> (3, 10); None when unknown."""
    try:
        major, minor = (text or "").split(".")[:2]
        return int(major), int(minor)
    except ValueError:
        return None


def syntax_problem_for(script: Path, task_python: tuple[int, int] | None) -> str | None:
    """:func:`syntax_problem` where this Python's verdict holds for the task's Python
    (``task_python``, its version): a newer one may accept syntax this one refuses, and an
    unknown one (a node's) is the doctor's to warn about."""
    if task_python is None or task_python > launcher_version():
        return None
    return syntax_problem(script)


def syntax_problem(script: Path) -> str | None:
    """``file:line: message`` when this Python cannot compile ``script`` (None: it can, or the
    file cannot be read, which the other checks report)."""
    try:
        source = script.read_bytes()
    except OSError:
        return None
    try:
        with warnings.catch_warnings():  # an invalid escape's SyntaxWarning is the task's to print
            warnings.simplefilter("ignore")
            compile(source, str(script), "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f"{script}:{exc.lineno}" if exc.lineno else str(script)
        return f"{where}: {exc.msg}; fix the script (Python cannot run it: every task would fail)"
    except ValueError as exc:  # null bytes (Python 3.11; 3.12 raises SyntaxError)
        return f"{script}: {exc}; fix the script (Python cannot run it)"
    except (RecursionError, MemoryError):  # too deep to compile here: the doctor says so
        return None
    return None


def open_files_problem(n_local: int) -> str | None:
    """Whether this process may open the files ``n_local`` tasks need; the soft limit is raised
    to what is needed when the hard one allows (a launcher of 300 tasks should just work)."""
    if sys.platform == "win32":  # no such per-process limit on handles
        return None
    import resource

    needed = FILES_RESERVED + FILES_PER_TASK * n_local
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or needed <= soft:
        return None
    if hard == resource.RLIM_INFINITY or needed <= hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
            return None
        except (OSError, ValueError):
            pass
    return (
        f"{n_local} tasks need about {needed} open files, but this process may open {soft} "
        f"(ulimit -n); raise the limit (ulimit -n {needed}) or run fewer tasks"
    )


def port_problems(named: Sequence[tuple[int, int]]) -> list[ConfigProblem]:
    """The ports the config names that cannot be served here, as (config entry, port)."""
    problems = []
    for entry, port in named:
        if problem := port_problem(port):
            problems.append(ConfigProblem(
                where=f"tasks[{entry}].port",
                message=f"{problem}; free it, or choose another port "
                "(or omit 'port' to let TensorDeck pick a free one)"))
    return problems


def reserve_ports(count: int) -> tuple[PortReservation, list[int]]:
    """``count`` free ports, held (bound) until the reservation is released."""
    reservation = PortReservation()
    return reservation, [reservation.pick() for _ in range(count)]


def command_problem(name: str, argv: Sequence[str], env: Mapping[str, str],
                    cfg: JobConfig) -> ConfigProblem | None:
    """Whether the OS can start task ``name``'s command line and environment at all (E2BIG:
    the task would fail at its start, after the run folder was made)."""
    if sys.platform == "win32":
        import subprocess

        line_max = one_max = 32766  # CreateProcess's command line; one variable's value
        length = len(subprocess.list2cmdline(argv))
        var = {k: len(v) for k, v in env.items()}
        args = [length]
        total = length
    else:
        try:
            line_max = os.sysconf("SC_ARG_MAX")
        except (OSError, ValueError, AttributeError):
            line_max = 131072
        one_max = 131072 if sys.platform.startswith("linux") else line_max  # MAX_ARG_STRLEN
        args = [os_length(a) + 1 for a in argv]
        var = {k: os_length(k) + os_length(v) + 2 for k, v in env.items()}
        total = sum(args) + sum(var.values()) + 8 * (len(args) + len(var) + 2)  # + pointers
    mine = sum(var.get(k, 0) for k in cfg.env)
    if max(args) > one_max or (total > line_max and sum(args) >= mine):
        return ConfigProblem(
            where="args",
            message=f"the command line of {name} is longer than this system allows "
            f"({line_max} bytes, {one_max} for one argument); shorten the arguments",
        )
    for key in cfg.env:
        if var.get(key, 0) > one_max:
            return ConfigProblem(
                where=f"env.{show(key, 40)}",
                message=f"is longer than this system allows for one variable ({one_max})",
            )
    if total > line_max:
        return ConfigProblem(
            where="env",
            message=f"the environment of {name} is longer than this system allows "
            f"({line_max} bytes with the command line); shorten it",
        )
    return None
