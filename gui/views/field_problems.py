"""Which part of the Cluster view's forms shows a problem of the config, and in what words:
core names the field (``tasks[1].count``, ``nodes.lab2.python``, ``slurm.partition``), the
forms say it next to that field, in the window's language."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from core.config import ConfigProblem

#: The forms' problem labels, by what they show: a field of the file, a group of them
#: ("restart", "advanced"), or "" for what belongs to no field.
PROBLEM_KEYS = ("", "name", "strategy", "script", "args", "python", "tasks", "nodes",
                "address", "env", "restart", "stop_grace_seconds", "advanced", "slurm")
#: Keys shown together in the Advanced group, each named there.
ADVANCED_KEYS = ("cluster_spec", "cross_device_ops", "run_dir")


def problem_text(problem: ConfigProblem) -> str:
    """``problem`` on one line as the window says it: its place as the file names it, what is
    wrong in the window's language (core writes the catalogue's English)."""
    return str(ConfigProblem(problem.where, problem.said()))


def field_of(problem: ConfigProblem) -> tuple[str, str]:
    """The problem label (one of PROBLEM_KEYS) that shows ``problem``, and its text there."""
    where = problem.where
    message = problem.said()
    if where.startswith("tasks["):
        index = where[len("tasks["):].split("]")[0]
        field = where.split("]", 1)[1].lstrip(".")
        row = int(index) + 1 if index.isdigit() else index
        prefix = QCoreApplication.translate("FieldProblems", "Row {row}").format(row=row)
        return "tasks", f"{prefix}{f' ({field})' if field else ''}: {message}"
    if where.startswith("nodes."):
        _, name, *inside = where.split(".", 2)
        place = f"{name} ({inside[0]})" if inside else name
        return "nodes", f"{place}: {message}"
    head = where.split(".")[0].split("[")[0]
    if head in ADVANCED_KEYS:
        return "advanced", f"{head}: {message}"
    if head == "slurm":
        field = where.removeprefix("slurm").lstrip(".")
        return "slurm", f"{field}: {message}" if field else message
    if head in PROBLEM_KEYS and head:
        return head, message
    return "", problem_text(problem)
