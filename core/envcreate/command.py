"""``tensordeck env create``: show the plan (commands, download size), ask, build with streamed
output, verify by a real probe and register the new interpreter.

Exit status: 0 built (or only planned / declined), 1 the build failed or was not possible,
2 bad usage (one message on stderr), 130 cancelled with Ctrl+C (nothing left behind).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from pathlib import Path
from typing import Any

from core.exitcodes import EXIT_USAGE


def _usage(message: str) -> int:
    print(f"tensordeck env create: {message}", file=sys.stderr)
    return EXIT_USAGE


def env_command(args: argparse.Namespace, *, nvml: Any = None) -> int:
    """``nvml``: the NVML module the GPUs are read with (None: the real one; tests replay)."""
    from core.envcreate.build import build
    from core.envcreate.plan import gather_facts, make_plan
    from core.envcreate.target import BuildRefused, check_target, removed_note
    from core.output import visible

    if args.python and not os.path.isfile(args.python):
        return _usage(f"--python {args.python}: no such file. Give the path of a python "
                      "executable to base the environment on")
    target = Path(args.path).absolute() if args.path else None
    try:
        if target:
            check_target(target)
        facts = gather_facts([args.python] if args.python else None, nvml=nvml)
        plan = make_plan(facts, target, cpu=args.cpu)
    except (BuildRefused, ValueError) as exc:
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
    except KeyboardInterrupt:
        print(visible(f"\nCancelled (Ctrl+C): {removed_note(plan.target)}; nothing was "
                      "registered."), flush=True)
        return 130
    print(visible(result.message))
    if result.findings:
        from core.doctor.report import render_finding

        print(render_finding(result.findings[0]))
    return 0 if result.ok else 1
