"""Run a program inside a WSL distribution: wsl.exe's command line, and the environment that
carries variables into it.

The command line is ``[wsl.exe, -d, DISTRO, --cd, DIR, -e, PROGRAM, ARGS...]``: ``-e`` starts
the program itself. Without it (``--``, or a bare command line) wsl.exe hands the rest of its
command line to the distribution's shell, which would read every argument again as shell text:
a space, a quote, ``$`` or ``;`` in a path or a value would change the command.

Windows variables do not cross into WSL unless WSLENV names them: the environment made here
names exactly the variables passed (any WSLENV already set is replaced), each value as it is
(``/p``, WSL's own Windows-to-Linux path translation, only for the names asked).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.wsl.bounded_run import NO_WINDOW
from core.wsl.distros import Distro, installed_distros
from core.wsl.paths import parse_wsl_spec

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def wsl_argv(wsl_exe: str, distro: str | None, program: str, args: Sequence[str] = (), *,
             cwd: str | None = None) -> list[str]:
    """The command line that runs ``program`` with ``args`` in ``distro`` (None: the default
    one), in the Linux folder ``cwd`` (``~``: the home folder; None: wsl.exe's own folder,
    translated)."""
    argv = [wsl_exe]
    if distro:
        argv += ["-d", distro]
    if cwd:
        argv += ["--cd", cwd]
    return [*argv, "-e", program, *args]


def wsl_environment(passed: Mapping[str, str], *, base: Mapping[str, str] | None = None,
                    paths: Collection[str] = (), platform: str = sys.platform) -> dict[str, str]:
    """``base`` (default: this process's environment) with the variables ``passed`` set and
    WSLENV naming exactly them; the names in ``paths`` get ``/p`` (a Windows path, which WSL
    translates). Raises ValueError for a name WSLENV cannot carry."""
    for name in passed:
        if not _IDENTIFIER.fullmatch(name):
            raise ValueError(f"{name!r} cannot cross into WSL: WSLENV names only identifiers")
    unknown = set(paths) - set(passed)
    if unknown:
        raise ValueError(f"/p asked for variables not passed: {', '.join(sorted(unknown))}")

    def key(name: str) -> str:  # Windows variable names ignore case
        return name.upper() if platform == "win32" else name

    replaced = {key(name) for name in (*passed, "WSLENV")}
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if key(k) not in replaced}
    env.update(passed)
    env["WSLENV"] = ":".join(name + ("/p" if name in paths else "") for name in passed)
    return env


def own_group() -> dict[str, Any]:
    """Popen arguments for a wsl.exe that carries a node agent: out of reach of the signals and
    console events sent to its caller's group (a stop goes in-band as ``stop``: a signalled
    wsl.exe would drop the connection, and the agent would kill instead), yet it dies with
    its caller: the parent-death signal on Linux (the tests' stand-in), the caller's Job
    Object on Windows."""
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | NO_WINDOW}
    from core.proctree import pdeathsig_preexec

    return {"start_new_session": True, "preexec_fn": pdeathsig_preexec()}


@dataclass(frozen=True)
class WslTarget:
    """A distribution checked to exist and to run as WSL 2, reached through ``wsl_exe``."""

    wsl_exe: str
    distro: Distro

    def argv(self, program: str, args: Sequence[str] = (), *, cwd: str | None = None
             ) -> list[str]:
        """:func:`wsl_argv` for this distribution, named (never "the default": that may
        change between two calls)."""
        return wsl_argv(self.wsl_exe, self.distro.name, program, args, cwd=cwd)


def wsl_target(distro: str | None, env: Mapping[str, str] | None = None) -> WslTarget:
    """The WSL 2 distribution ``distro`` (None: the default one) of this machine's wsl.exe.
    Raises a :class:`~core.wsl.refusals.WslRefusal` saying why it cannot run there."""
    distros = installed_distros(env)
    return WslTarget(distros.wsl_exe, distros.pick(distro))


def interpreter_target(spec: str, env: Mapping[str, str] | None = None) -> tuple[WslTarget, str]:
    """The distribution and the Linux path of the interpreter ``wsl://DISTRO/path``."""
    where = parse_wsl_spec(spec)
    return wsl_target(where.distro, env), where.path
