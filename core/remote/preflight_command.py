"""``tensordeck preflight FILE [--json] [--no-import]``: check a job's machines before a run.

Exit codes: 0 every check passed, 1 problems found (each with its fix), 2 the config itself is
wrong (nothing was checked).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from core.remote.preflight import PreflightReport

EXIT_PROBLEMS = 1
EXIT_CONFIG = 2


def _marks(stream: TextIO) -> tuple[str, str]:
    """✓ and ✗ where the terminal can print them (not a cp1252 Windows console)."""
    try:
        "✓✗".encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return "ok", "XX"
    return "✓", "✗"


def format_report(report: PreflightReport, stream: TextIO) -> str:
    """One line per check, grouped by machine, the fix under each failure; then a verdict."""
    good, bad = _marks(stream)
    groups: dict[str, list] = {}
    for check in report.checks:
        groups.setdefault(check.node, []).append(check)
    width = max((len(c.check) for c in report.checks), default=0)
    lines = []
    for node, checks in groups.items():
        lines.append(node if node in ("this machine", "cluster") else f"node {node}")
        for c in checks:
            lines.append(f"  {good if c.ok else bad} {c.check:<{width}}  {c.detail}")
            if not c.ok and c.fix:
                lines.append(f"    {' ' * width}  fix: {c.fix}")
    failed = sum(not c.ok for c in report.checks)
    lines.append(
        "All checks passed."
        if not failed
        else f"{failed} problem{'s' if failed != 1 else ''} found."
    )
    return "\n".join(lines)


def preflight_cli(args) -> int:
    from core.config import ConfigError, load_config
    from core.remote.preflight import run_preflight

    try:
        cfg = load_config(args.file)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return EXIT_CONFIG
    report = run_preflight(cfg, Path(args.file), import_tf=not args.no_import)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(format_report(report, sys.stdout))
    return 0 if report.ok else EXIT_PROBLEMS
