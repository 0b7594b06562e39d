"""The ``tensordeck`` command line: a thin face over the core, like the window.

Only argparse is imported at start-up; each command imports what it needs, so ``--help``
and ``--version`` answer at once (no pydantic, no psutil, never Qt or TensorFlow).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from core import __version__

EPILOG = """\
examples:
  tensordeck --run resources/examples/quickstart.json
  tensordeck --run job.json --dry-run
  tensordeck validate job.json
  tensordeck doctor
  tensordeck doctor --explain error.txt
  tensordeck gpus --watch
  tensordeck export job.json --kubeflow tfjob.yaml
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

    # Each command names its handler as "module:function"; it is imported only when it runs.
    p = sub.add_parser("run", help="run a job (same as --run FILE)")
    p.add_argument("file", metavar="FILE")
    _add_run_options(p)

    p = sub.add_parser("validate", help="check a config file; exit 2 with every problem found")
    p.add_argument("file", metavar="FILE")
    p.set_defaults(handler="core.run_command:validate_cli")

    p = sub.add_parser("schema", help="print the JSON Schema of config files")
    p.set_defaults(handler="core.config:schema_cli")

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
    p.set_defaults(handler="core.doctor.command:doctor_command")

    p = sub.add_parser("gpus", help="list NVIDIA GPUs (NVML)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--watch", action="store_true", help="refresh every second until Ctrl+C")
    p.set_defaults(handler="core.gpu.command:gpus_command")

    p = sub.add_parser(
        "export", help="write the job as a Kubeflow TFJob, or as command lines to start by hand"
    )
    p.add_argument("file", metavar="FILE")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--kubeflow",
        metavar="OUT",
        help="write a TFJob manifest (YAML; JSON if OUT ends in .json; - for stdout)",
    )
    target.add_argument(
        "--commands",
        metavar="OUT",
        help="write the sh / cmd / PowerShell lines that start each task, per machine "
        "(Markdown; - for stdout)",
    )
    target.add_argument(
        "--slurm", metavar="OUT", help="write a Slurm batch script (sbatch OUT; - for stdout)"
    )
    p.add_argument(
        "--image",
        metavar="IMAGE",
        help="container image for the TFJob (default: the placeholder REPLACE_WITH_YOUR_IMAGE)",
    )
    p.set_defaults(handler="core.export_command:export_command")

    p = sub.add_parser(
        "preflight",
        help="check a job's machines before a run: SSH, TensorFlow, GPUs, ports, firewalls",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--no-import",
        action="store_true",
        help="read TensorFlow's version from its files instead of importing it (fast)",
    )
    p.set_defaults(handler="core.remote.preflight_command:preflight_cli")

    p = sub.add_parser("trust", help="trust a node's SSH host key (adds it to known_hosts)")
    p.add_argument("host", metavar="HOST")
    p.add_argument("--port", type=int, default=22)
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(handler="core.remote.commands:trust_cli")

    p = sub.add_parser("login", help="store a node's SSH password in the system keyring")
    p.add_argument("file", metavar="FILE", help="the config that names the node")
    p.add_argument("node", metavar="NODE")
    p.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    p.set_defaults(handler="core.remote.commands:login_cli")

    p = sub.add_parser("env", help="make a TensorFlow environment that works on this machine")
    p.add_argument("action", choices=["create"], help="create: plan, confirm, build, verify, "
                   "and add it to the training interpreters")
    p.add_argument("--path", metavar="DIR", help="where (default: TensorDeck's data folder)")
    p.add_argument("--cpu", action="store_true", help="the CPU build, even with an NVIDIA GPU")
    p.add_argument("--python", metavar="PATH", help="the Python to base a venv on")
    p.add_argument("--yes", action="store_true", help="build without asking")
    p.add_argument("--dry-run", action="store_true", help="show the plan; build nothing")
    p.set_defaults(handler="core.envcreate.command:env_command")

    p = sub.add_parser("gui", help="open the window (also: tensordeck with no arguments)")
    p.add_argument("gui_args", nargs=argparse.REMAINDER, help="[FILE] [--no-wizard]")
    p.set_defaults(handler="core.cli:gui_cli")

    p = sub.add_parser("_remote-task")  # internal: the local stand-in of a node's task
    p.set_defaults(handler="core.remote.run_task:run_task_cli")

    p = sub.add_parser("_slurm-task")  # internal: the local stand-in of a Slurm run's task
    p.add_argument("argv", nargs=argparse.REMAINDER)
    p.set_defaults(handler="core.slurm.stand_in:stand_in_cli")
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
    parser.add_argument(
        "--slurm", action="store_true", help="run the tasks as one job on this Slurm cluster"
    )
    parser.set_defaults(handler=None)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        return gui_cli(argparse.Namespace(gui_args=[]))  # a double-click: the window
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
            slurm=args.slurm,
        )
    if args.handler:
        module, function = args.handler.split(":")
        return importlib.import_module(module).__dict__[function](args)
    parser.print_help()  # options without a command or --run
    return 0


def gui_cli(args: argparse.Namespace) -> int:
    """The window. The CLI is where both faces start, so it alone may load the gui package,
    by name and only here; without Qt it says how to get it (the CLI works without it)."""
    try:
        has_qt = importlib.util.find_spec("PySide6") is not None
    except ImportError:
        has_qt = False
    if not has_qt:
        print('tensordeck: the window needs PySide6: pip install "tensordeck[gui]". '
              "Command line help: tensordeck --help", file=sys.stderr)
        return 2
    return importlib.import_module("gui.app").main(args.gui_args)


if __name__ == "__main__":
    sys.exit(main())
