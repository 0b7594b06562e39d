"""``tensordeck export FILE --kubeflow OUT | --commands OUT | --slurm OUT [--image IMAGE]``.

``--kubeflow`` writes a TFJob manifest (YAML; JSON when OUT ends in ``.json``), ``--commands``
a Markdown file with the lines that start each task by hand on its machine (``--slurm``: a
batch script, core.slurm.batch), and creates the run
folder (TENSORDECK_RUN_DIR) that this machine's commands point at, so that they can be pasted
as they are. Nodes are only asked (login, interpreter, ports): nothing is made there. ``-`` as
OUT writes to stdout. Notes on what the user must change go to stderr.

Exit codes: 0 written; 1 the file could not be written (or the manifest failed validation,
which is a TensorDeck bug); 2 the config has problems.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys

from core.config import ConfigError, load_config
from core.export import (
    DEFAULT_IMAGE,
    command_problems,
    commands_markdown,
    tfjob,
    to_yaml,
    validate_tfjob,
)
from core.fsio import PRIVATE_FOLDER, make_private, write_private
from core.session import RunSession

EXIT_WRITE = 1
EXIT_CONFIG = 2


def _write(out: str, text: str, use: str | None = None) -> int:
    """``text`` to the file ``out`` (``-``: stdout); ``use``: how to use a written file, said
    after it (``kubectl apply -f``)."""
    if out == "-":
        sys.stdout.write(text)
        return 0
    if os.path.lexists(out) and (os.path.islink(out) or not os.path.isfile(out)):
        # The file is replaced whole (core.fsio): a link, a device or a folder would be
        # replaced by it, not written to.
        print(f"tensordeck: cannot write {out}: it is not a regular file (a link, a device or "
              "a folder); give a file name, or - for stdout", file=sys.stderr)
        return EXIT_WRITE
    try:
        write_private(out, text)  # 0600: the tasks' environment (tokens) is in it
    except OSError as exc:
        print(f"tensordeck: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_WRITE
    print(f"tensordeck: wrote {out}", file=sys.stderr)
    if use:
        print(f"tensordeck: {use} {out}", file=sys.stderr)
    return 0


def _kubeflow(file: str, out: str, image: str) -> int:
    cfg = load_config(file)
    export = tfjob(cfg, image=image)
    problems = validate_tfjob(export.manifest)
    if problems:
        for problem in problems:
            print(f"tensordeck: invalid TFJob (a TensorDeck bug): {problem}", file=sys.stderr)
        return EXIT_WRITE
    if out.lower().endswith(".json"):
        text = json.dumps(export.manifest, indent=2) + "\n"
    else:
        comments = [f"TFJob made by `tensordeck export` from {file}.", *export.notes]
        text = to_yaml(export.manifest, comments)
    for note in export.notes:
        print(f"note: {note}", file=sys.stderr)
    return _write(out, text, use="start it with: kubectl apply -f")


def _commands(file: str, out: str) -> int:
    session = RunSession(file)
    try:
        plan = session.load()
        session.check_nodes()
    finally:
        session.close()  # nothing starts here; the ports are only written down
    problems = command_problems(plan)
    if problems:
        for problem in problems:
            print(f"{file}: {problem}: the command blocks cannot carry it; remove it",
                  file=sys.stderr)
        print("tensordeck: nothing was written.", file=sys.stderr)
        return EXIT_CONFIG
    made = None  # the outermost folder made here, removed again if the file is not written
    if any(t.node is None for t in plan.tasks):
        made = next((p for p in (*reversed(plan.run_dir.parents), plan.run_dir)
                     if not os.path.lexists(p)), None)  # None: planned empty, already there
        try:
            os.makedirs(plan.run_dir, PRIVATE_FOLDER, exist_ok=True)
            make_private(plan.run_dir)  # an empty folder that was there: as a run makes it
        except OSError as exc:
            print(f"tensordeck: cannot create the run folder {plan.run_dir}: "
                  f"{exc.strerror or exc}", file=sys.stderr)
            return EXIT_WRITE
    code = _write(out, commands_markdown(plan))
    if code != 0 and made is not None:
        shutil.rmtree(made, ignore_errors=True)
    elif made is not None:
        print(f"tensordeck: made the run folder {plan.run_dir}", file=sys.stderr)
    return code


def _slurm(file: str, out: str) -> int:
    from core.slurm.batch import sbatch_script

    session = RunSession(file)
    try:
        plan = session.load()
    finally:
        session.close()  # the script picks its ports on the cluster
    if plan.node_tasks:
        print(f"{file}: nodes: a Slurm job places every task itself: leave out the tasks' "
              "'node'", file=sys.stderr)
        return EXIT_CONFIG
    return _write(out, sbatch_script(plan, file), use="submit it with: sbatch")


def export_command(args: argparse.Namespace) -> int:
    """Run the command for parsed ``args`` (``file``; ``kubeflow``, ``commands`` or ``slurm``;
    ``image``)."""
    try:
        if args.kubeflow:
            return _kubeflow(args.file, args.kubeflow, args.image or DEFAULT_IMAGE)
        if args.commands:
            return _commands(args.file, args.commands)
        return _slurm(args.file, args.slurm)
    except ConfigError as exc:
        for problem in exc.problems:
            print(f"{exc.source}: {problem}", file=sys.stderr)
        print("tensordeck: nothing was written.", file=sys.stderr)
        return EXIT_CONFIG
