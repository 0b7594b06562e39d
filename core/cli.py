"""The ``tensordeck`` command line: a thin face over the core, like the window.

Only argparse is imported at start-up; each command imports what it needs, so ``--help``
and ``--version`` answer at once (no pydantic, no psutil, never Qt or TensorFlow).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence

from core import __version__
from core.exitcodes import EXIT_USAGE
from core.messages import tr

EXAMPLES = """\
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
        description=tr("cli.description"),
        epilog=tr("cli.examples") + "\n" + EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"tensordeck {__version__}")
    parser.add_argument("--run", metavar="FILE", type=_checked("--run"), help=tr("cli.run"))
    _add_run_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    # Each command names its handler as "module:function"; it is imported only when it runs.
    p = sub.add_parser("run", help=tr("cli.run_command"))
    p.add_argument("file", metavar="FILE", type=_checked("FILE"))
    _add_run_options(p)

    p = sub.add_parser("validate", help=tr("cli.validate"))
    p.add_argument("file", metavar="FILE", type=_checked("FILE"))
    p.set_defaults(handler="core.run_command:validate_cli")

    p = sub.add_parser("schema", help=tr("cli.schema"))
    p.set_defaults(handler="core.config:schema_cli")

    p = sub.add_parser("doctor", help=tr("cli.doctor"))
    p.add_argument(
        "--python",
        action="append",
        metavar="PATH",
        type=_checked("--python"),
        default=[],
        help=tr("cli.doctor.python"),
    )
    p.add_argument(
        "--explain",
        metavar="FILE",
        type=_checked("--explain"),
        help=tr("cli.doctor.explain"),
    )
    p.add_argument(
        "--platform",
        choices=["windows", "linux", "wsl"],
        help=tr("cli.doctor.platform"),
    )
    p.add_argument(
        "--tf-version", metavar="X.Y", type=_version("--tf-version"),
        help=tr("cli.doctor.tf_version")
    )
    p.add_argument(
        "--cuda-version", metavar="X.Y", type=_version("--cuda-version"),
        help=tr("cli.doctor.cuda_version")
    )
    p.add_argument(
        "--no-import", action="store_true", help=tr("cli.doctor.no_import")
    )
    p.add_argument("--json", action="store_true", help=tr("cli.json"))
    p.set_defaults(handler="core.doctor.command:doctor_command")

    p = sub.add_parser("gpus", help=tr("cli.gpus"))
    p.add_argument("--json", action="store_true", help=tr("cli.json"))
    p.add_argument("--watch", action="store_true", help=tr("cli.gpus.watch"))
    p.set_defaults(handler="core.gpu.command:gpus_command")

    p = sub.add_parser(
        "export", help=tr("cli.export")
    )
    p.add_argument("file", metavar="FILE", type=_checked("FILE"))
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--kubeflow",
        metavar="OUT",
        type=_checked("--kubeflow", dash=True),
        help=tr("cli.export.kubeflow"),
    )
    target.add_argument(
        "--commands",
        metavar="OUT",
        type=_checked("--commands", dash=True),
        help=tr("cli.export.commands"),
    )
    target.add_argument(
        "--slurm", metavar="OUT", type=_checked("--slurm", dash=True),
        help="write a Slurm batch script (sbatch OUT; - for stdout)"
    )
    p.add_argument(
        "--image",
        metavar="IMAGE",
        type=_checked("--image", path=False),
        help=tr("cli.export.image"),
    )
    p.set_defaults(handler="core.export_command:export_command")

    p = sub.add_parser(
        "preflight",
        help=tr("cli.preflight"),
    )
    p.add_argument("file", metavar="FILE", type=_checked("FILE"))
    p.add_argument("--json", action="store_true", help=tr("cli.json"))
    p.add_argument(
        "--no-import",
        action="store_true",
        help=tr("cli.preflight.no_import"),
    )
    p.set_defaults(handler="core.remote.preflight_command:preflight_cli")

    p = sub.add_parser("trust", help=tr("cli.trust"))
    p.add_argument("host", metavar="HOST", type=_checked("HOST", path=False))
    p.add_argument("--port", type=int, default=22)
    p.add_argument("--yes", action="store_true", help=tr("cli.trust.yes"))
    p.set_defaults(handler="core.remote.commands:trust_cli")

    p = sub.add_parser("login", help=tr("cli.login"))
    p.add_argument("file", metavar="FILE", type=_checked("FILE"), help=tr("cli.login.file"))
    p.add_argument("node", metavar="NODE", type=_checked("NODE", path=False))
    p.add_argument("--password-stdin", action="store_true", help=tr("cli.login.stdin"))
    p.set_defaults(handler="core.remote.commands:login_cli")

    p = sub.add_parser("env", help=tr("cli.env"))
    p.add_argument("action", choices=["create"], help=tr("cli.env.create"))
    p.add_argument("--path", metavar="DIR", type=_checked("--path"), help=tr("cli.env.path"))
    p.add_argument("--cpu", action="store_true", help=tr("cli.env.cpu"))
    p.add_argument("--wsl", nargs="?", const="", metavar="DISTRO",
                   type=_checked("--wsl", path=False), help=tr("cli.env.wsl"))
    p.add_argument("--python", metavar="PATH", type=_checked("--python"),
                   help=tr("cli.env.python"))
    p.add_argument("--yes", action="store_true", help=tr("cli.env.yes"))
    p.add_argument("--dry-run", action="store_true", help=tr("cli.env.dry_run"))
    p.set_defaults(handler="core.envcreate.command:env_command")

    p = sub.add_parser("cache", help=tr("cli.cache"))
    p.add_argument("action", nargs="?", choices=["clear"], help=tr("cli.cache.clear"))
    p.set_defaults(handler="core.cache_command:cache_command")

    p = sub.add_parser("gui", help=tr("cli.gui"))
    p.add_argument("file", metavar="FILE", nargs="?", type=_checked("FILE"),
                   help=tr("cli.gui.file"))
    p.add_argument("--no-wizard", action="store_true", help=tr("cli.gui.no_wizard"))
    p.set_defaults(handler="core.cli:gui_cli")
    parser.set_defaults(commands=tuple(sub.choices))
    return parser


#: Commands TensorDeck starts itself (never typed): kept out of the usage and of the list of
#: commands an error shows.
INTERNAL = {
    "_remote-task": "core.remote.run_task:run_task_cli",  # the local stand-in of a node's task
    "_slurm-task": "core.slurm.stand_in:stand_in_cli",  # ... of a Slurm run's task
    "_wsl-task": "core.wsl.run_task:run_task_cli",  # ... of a task inside WSL
}


def _run_internal(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog=f"tensordeck {argv[0]}", description=tr("cli.internal")
    )
    parser.add_argument("argv", nargs=argparse.REMAINDER)  # the task's command (Slurm's)
    return _call(INTERNAL[argv[0]], parser.parse_args(argv[1:]))


def _call(handler: str, args: argparse.Namespace) -> int:
    module, function = handler.split(":")
    return importlib.import_module(module).__dict__[function](args)


def _names_a_file(argv: list[str], parser: argparse.ArgumentParser) -> bool:
    """``tensordeck FILE [--no-wizard]`` (what "Open with" and a double-click on a config
    give): the first word is no command, no option, and names a file."""
    first = argv[0]
    commands = parser.get_default("commands")
    return not first.startswith("-") and first not in commands and os.path.isfile(first)


def _missing_file(argv: list[str], parser: argparse.ArgumentParser) -> str | None:
    """The one-line refusal of ``tensordeck FILE`` whose file is not there (instead of
    argparse's "invalid choice" among the commands): a first word that looks like a path."""
    first = argv[0]
    if first.startswith("-") or first in parser.get_default("commands"):
        return None
    looks_like_a_path = first.lower().endswith(".json") or any(c in first for c in "/\\.")
    if not looks_like_a_path or os.path.exists(first):
        return None
    return (f"tensordeck: {first}: no such file. Give the path of a job file "
            "(tensordeck FILE opens it in the window), or a command: tensordeck --help")


class _Refused(Exception):
    """A value refused at the door; argparse lets it through (it is no ArgumentTypeError), so
    that :func:`main` says it in one line."""


def _checked(option: str, *, path: bool = True, dash: bool = False) -> Callable[[str], str]:
    """The argparse ``type`` of an option that takes a path (a name: ``path=False``): control
    characters are refused before anything runs. ``dash``: ``-`` is stdout."""

    def check(value: str) -> str:
        if dash and value == "-":
            return value
        from core.fsio import control_character_problem

        if problem := control_character_problem(value, relative_to_cwd=path):
            from core.config import show

            raise _Refused(f"tensordeck: {option}: {show(value, None)} {problem}")
        return value

    return check


def _version(option: str) -> Callable[[str], str]:
    """The argparse ``type`` of a version option: major.minor[.patch], or a one-line refusal
    (a version the doctor cannot read would silently count for nothing)."""
    checked = _checked(option, path=False)

    def check(value: str) -> str:
        from core.doctor.kb import is_version_text

        if not is_version_text(checked(value)):
            from core.config import show

            raise _Refused(f"tensordeck: {option}: {show(value, None)} is not a version: give "
                           "major.minor, e.g. 2.10")
        return value

    return check


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run-dir", metavar="DIR", type=_checked("--run-dir"),
                        help=tr("cli.run_dir"))
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help=tr("cli.dry_run"),
    )
    parser.add_argument(
        "--no-doctor",
        action="store_true",
        help=tr("cli.no_doctor"),
    )
    parser.add_argument(
        "--slurm", action="store_true", help="run the tasks as one job on this Slurm cluster"
    )
    parser.add_argument("--slurm-login", metavar="NODE", type=_checked("--slurm-login", path=False),
                        help=tr("cli.slurm_login"))
    parser.set_defaults(handler=None)


def _speak_what_the_output_can_show() -> None:
    """The system's language, unless the output cannot encode it: a Windows pipe or file is
    written in the ANSI code page, and cp1252 has no Chinese (every print would raise
    UnicodeEncodeError). Then English, which every code page has."""
    from core import messages

    if messages.language() == "en":
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            "中文".encode(getattr(stream, "encoding", None) or "ascii")
        except (LookupError, UnicodeEncodeError):
            messages.set_language("en")
            return


def main(argv: Sequence[str] | None = None) -> int:
    from core.terminal import visible_streams

    with visible_streams():  # every message may quote a hostile name (core.terminal)
        return _main(argv)


def _main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    _speak_what_the_output_can_show()
    if not argv:
        return gui_cli(argparse.Namespace(file=None, no_wizard=False))  # a double-click
    if argv[0] in INTERNAL:
        return _run_internal(argv)
    parser = build_parser()
    if _names_a_file(argv, parser):
        argv = ["gui", *argv]
    elif missing := _missing_file(argv, parser):
        print(missing, file=sys.stderr)
        return EXIT_USAGE
    try:
        args = parser.parse_args(argv)
    except _Refused as exc:
        print(f"{exc}\ntensordeck: nothing was started.", file=sys.stderr)
        return 2
    if args.run and args.command:
        parser.error(tr("cli.run_and_command"))
    if args.run or args.command == "run":
        from core.run_command import run_command

        return run_command(
            args.run or args.file,
            run_dir=args.run_dir,
            dry_run=args.dry_run,
            check=not args.no_doctor,
            slurm=args.slurm,
            slurm_login=args.slurm_login,
        )
    if args.handler:
        return _call(args.handler, args)
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
        print(tr("cli.no_qt"), file=sys.stderr)
        return 2
    gui_args = ([args.file] if args.file else []) + (["--no-wizard"] if args.no_wizard else [])
    return importlib.import_module("gui.app").main(gui_args)


if __name__ == "__main__":
    sys.exit(main())
