"""The ``tensordeck`` command line: a thin face over the core, like the window.

Only argparse is imported at start-up; each command imports what it needs, so ``--help``
and ``--version`` answer at once (no pydantic, no psutil, never Qt or TensorFlow).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from core import __version__

EXIT_USAGE = 2

EPILOG = """\
examples:
  tensordeck --run resources/examples/quickstart.json
  tensordeck --run job.json --dry-run
  tensordeck validate job.json
  tensordeck doctor
  tensordeck doctor --explain error.txt
  tensordeck gpus --watch
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tensordeck",
        description="Launch, watch and diagnose TensorFlow training: one GPU, all GPUs of a "
        "machine, or a parameter-server / worker cluster.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"tensordeck {__version__}")
    parser.add_argument("--run", metavar="FILE", help="run the job described by config FILE")
    _add_run_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("run", help="run a job (same as --run FILE)")
    p.add_argument("file", metavar="FILE")
    _add_run_options(p)

    p = sub.add_parser("validate", help="check a config file; exit 2 with every problem found")
    p.add_argument("file", metavar="FILE")

    sub.add_parser("schema", help="print the JSON Schema of config files")

    p = sub.add_parser("doctor", help="diagnose GPUs, drivers and TensorFlow installs")
    p.add_argument(
        "--python",
        action="append",
        metavar="PATH",
        default=[],
        help="training interpreter to check (repeatable; default: all found)",
    )
    p.add_argument(
        "--explain",
        metavar="FILE",
        help="diagnose a captured error output instead ('-' reads stdin)",
    )
    p.add_argument(
        "--platform",
        choices=["windows", "linux", "wsl"],
        help="with --explain: where the output came from, when known",
    )
    p.add_argument(
        "--tf-version", metavar="X.Y", help="with --explain: TensorFlow version, when known"
    )
    p.add_argument(
        "--no-import", action="store_true", help="skip the 'import tensorflow' probe (fast)"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("gpus", help="list NVIDIA GPUs (NVML)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--watch", action="store_true", help="refresh every second until Ctrl+C")
    return parser


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run-dir", metavar="DIR", help="write the run folder here")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print each task's command and environment; start nothing",
    )
    parser.add_argument(
        "--no-doctor",
        action="store_true",
        help="start even if the doctor's pre-run checks find an error",
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.run and args.command:
        parser.error("--run FILE cannot be combined with a command")
    if args.run or args.command == "run":
        from core.run_command import run_command

        return run_command(
            args.run or args.file,
            run_dir=args.run_dir,
            dry_run=args.dry_run,
            check=not args.no_doctor,
        )
    if args.command == "validate":
        from core.run_command import validate_command

        return validate_command(args.file)
    if args.command == "schema":
        from core.config import schema_json

        print(schema_json())
        return 0
    if args.command == "doctor":
        from core.doctor.command import doctor_command

        return doctor_command(args)
    if args.command == "gpus":
        from core.gpu.command import gpus_command

        return gpus_command(args)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
