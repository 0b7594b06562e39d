"""``tensordeck env create``: show the plan (commands, download size), ask, build with streamed
output, verify by a real probe and register the new interpreter.

``--wsl [DISTRO]`` builds it inside a WSL 2 distribution (the default one without a name), as
Windows does by itself when it has no native GPU route: the distribution's python3, a Linux
``--path`` (``~/...`` is that distribution's home folder).

Exit status: 0 built (or only planned / declined), 1 the build failed or was not possible,
2 bad usage or a distribution that cannot be built in (one message on stderr), 130 cancelled
with Ctrl+C (nothing left behind).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.exitcodes import EXIT_USAGE

if TYPE_CHECKING:
    from core.envcreate.plan import Plan


def _usage(message: str) -> int:
    print(f"tensordeck env create: {message}", file=sys.stderr)
    return EXIT_USAGE


def _plan(args: argparse.Namespace, nvml: Any) -> Plan:
    """The plan asked for; raises ValueError (BuildRefused, a WslPathError ...) with the one
    line to say."""
    from core.envcreate.plan import gather_facts, make_plan, make_wsl_plan
    from core.envcreate.target import check_target

    wsl = getattr(args, "wsl", None)  # None: not asked ("": the default distribution)
    if wsl is not None:
        if args.python:
            raise ValueError("--python names a Python of this machine; --wsl uses the "
                             "distribution's python3: give one of them")
        from core.envcreate.wsl_facts import read_wsl

        facts = replace(gather_facts([], nvml=nvml, look_in_wsl=False),
                        wsl=read_wsl(wsl or None, args.path))
        return make_wsl_plan(facts, cpu=args.cpu)
    if args.python and not os.path.isfile(args.python):
        raise ValueError(f"--python {args.python}: no such file. Give the path of a python "
                         "executable to base the environment on")
    target = Path(args.path).absolute() if args.path else None
    if target:
        check_target(target)
    facts = gather_facts([args.python] if args.python else None, nvml=nvml,
                         look_in_wsl=not args.cpu)
    return make_plan(facts, target, cpu=args.cpu)


def env_command(args: argparse.Namespace, *, nvml: Any = None) -> int:
    """``nvml``: the NVML module the GPUs are read with (None: the real one; tests replay)."""
    from core.envcreate.build import BuildInterrupted, build
    from core.output import visible

    try:
        plan = _plan(args, nvml)
    except ValueError as exc:
        return _usage(str(exc))
    print("\n".join(map(visible, plan.describe().splitlines())), flush=True)
    if not plan.buildable:
        return 1
    if args.dry_run:
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            return _usage("no terminal to confirm the build: add --yes to build without asking")
        if input("Build it? [y/N] ").strip().lower() not in ("y", "yes"):
            print("Nothing was built.")
            return 0
    cancel = threading.Event()
    try:
        result = build(plan, lambda line: print(visible(line), flush=True), cancel)
    except BuildInterrupted as exc:
        print(visible(f"\nCancelled (Ctrl+C): {exc.note}; nothing was registered."), flush=True)
        return 130
    print(visible(result.message))
    if result.findings:
        from core.doctor.report import render_finding

        print(render_finding(result.findings[0]))
    return 0 if result.ok else 1
