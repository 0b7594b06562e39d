"""What editors of job files (the window's forms and its wizard) need from the config model,
derived from :mod:`core.config`'s records (core.model) so that a new strategy, choice, default or
bound reaches them without being written twice: each field's choices, default and bounds, the
order in which a file lists its keys, and a new job's content. Editors read files with
:func:`core.config.read_config_data`, the loader ``tensordeck`` itself uses."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, get_args, get_origin

from core.config import (
    SCHEMA_KEY,
    SINGLE_PROCESS,
    ConfigError,
    ConfigProblem,
    JobConfig,
    RestartPolicy,
    SlurmOptions,
    TaskGroup,
    default_cluster_spec,
)
from core.model import Rule, default_of, field_types, to_data

if TYPE_CHECKING:
    from core.findings import Finding


def keys(model: type) -> tuple[str, ...]:
    """The keys of ``model`` as a file names them, in the order a file lists them (that of
    core.config.config_to_json)."""
    return tuple(f.name for f in dataclasses.fields(model))


def _field(model: type, name: str) -> dataclasses.Field:
    return next(f for f in dataclasses.fields(model) if f.name == name)


def choices(model: type, field: str) -> tuple[str, ...]:
    """The values a Literal field of ``model`` accepts (null aside), in the model's order."""

    def literals(annotation: object) -> list[str]:
        if get_origin(annotation) is Literal:
            return list(get_args(annotation))
        return [v for arg in get_args(annotation) for v in literals(arg)]

    found = literals(field_types(model)[field])
    if not found:
        raise TypeError(f"{model.__name__}.{field} is not a Literal field")
    return tuple(found)


def default(model: type, field: str) -> object:
    """The value ``field`` takes when a file leaves it out, as the file would say it (a record
    in full, a list of records as a file gives them)."""
    value = default_of(_field(model, field))
    if isinstance(value, list):
        return to_data(value, skip_defaults=True)
    return to_data(value)


def bounds(model: type, field: str) -> tuple[float | None, float | None]:
    """The (lowest, highest) number ``field`` accepts; None where the model sets no bound."""
    low = high = None
    for rule in _rules(field_types(model)[field]):
        low = rule.constraints.get("ge", low)
        high = rule.constraints.get("le", high)
    return low, high


def _rules(kind: object) -> list[Rule]:
    """The Rules of a field's type, also those inside its Annotated parts and a ``| None``."""
    if get_origin(kind) is Annotated:
        inner, *marks = get_args(kind)
        return _rules(inner) + [m for m in marks if isinstance(m, Rule)]
    if get_origin(kind) is not None and get_origin(kind) not in (list, dict):
        return [rule for arg in get_args(kind) for rule in _rules(arg)]
    return []


_KINDS: dict[object, str] = {str: "text", int: "integer", float: "number"}


def kind(model: type, field: str) -> str:
    """How an editor shows ``field`` of ``model``: "text", "integer", "number" or "lines" (a
    list of texts, one a line); null aside."""
    def kinds(annotation: object) -> set[str]:
        origin = get_origin(annotation)
        if origin is list:
            return {"lines" if kinds(get_args(annotation)[0]) == {"text"} else "list"}
        if origin is Annotated:
            return kinds(get_args(annotation)[0])
        if origin is not None:
            return {k for arg in get_args(annotation) for k in kinds(arg)}
        if annotation is type(None):
            return set()
        return {_KINDS.get(annotation, "other")}

    found = kinds(field_types(model)[field])
    if len(found) != 1 or not found <= {"text", "integer", "number", "lines"}:
        raise TypeError(f"{model.__name__}.{field} is not one text, number or list of texts")
    return found.pop()


STRATEGIES = choices(JobConfig, "strategy")
ROLES = choices(TaskGroup, "role")
CLUSTER_SPECS = choices(JobConfig, "cluster_spec")
CROSS_DEVICE_OPS = choices(JobConfig, "cross_device_ops")
RESTART_POLICIES = choices(RestartPolicy, "policy")
KEY_ORDER = (SCHEMA_KEY, *keys(JobConfig))
#: The ``slurm`` block's keys (``tensordeck --run FILE --slurm``), in file order.
SLURM_KEYS = keys(SlurmOptions)

#: The tasks a new job of each strategy starts with: the smallest mix core accepts for it,
#: with two workers where workers share the training (the user edits them afterwards).
STARTER_TASKS: dict[str, list[dict]] = {
    "single": [{"role": "worker"}],
    "mirrored": [{"role": "worker"}],
    "multi_worker_mirrored": [{"role": "worker", "count": 2}],
    "parameter_server": [{"role": "chief"}, {"role": "worker", "count": 2},
                         {"role": "ps", "gpus": []}],
    "between_graph": [{"role": "ps", "gpus": []}, {"role": "worker", "count": 2}],
}


def cluster_spec_for(strategy: str) -> str | None:
    """How tasks of ``strategy`` learn the cluster when a file names no cluster_spec; None for
    the strategies that run one process."""
    if strategy in SINGLE_PROCESS:
        return None
    return default_cluster_spec(strategy)


def in_file_order(data: dict) -> dict:
    """``data`` with the keys a config knows in their file order, then any others as given."""
    known = {key: data[key] for key in KEY_ORDER if key in data}
    return {**known, **{k: v for k, v in data.items() if k not in known}}


def new_job(name: str, strategy: str, script: str, **values: object) -> dict:
    """A new job file as the editors start it: the required keys, the keys people set most
    (at core's defaults, so that the file shows them), the starter tasks of ``strategy`` and
    its cluster description; ``values`` replace any of them."""
    data: dict = {"name": name, "strategy": strategy, "script": script}
    data.update({key: default(JobConfig, key) for key in ("args", "python", "env", "run_dir")})
    data["cluster_spec"] = cluster_spec_for(strategy)
    data["tasks"] = [dict(task) for task in STARTER_TASKS[strategy]]
    data["restart"] = {key: default(RestartPolicy, key) for key in ("policy", "max_restarts")}
    data["stop_grace_seconds"] = default(JobConfig, "stop_grace_seconds")
    return in_file_order({**data, **values})


def run_problems(data: dict, config_path: Path) -> tuple[list[ConfigProblem], list[Finding]]:
    """What ``tensordeck validate`` finds in an editor's document, as if it were saved at
    ``config_path``: (the problems that refuse the run, the doctor's warnings). It plans the
    run as the command line does (the interpreter run to prove it is a Python, the script, the
    run folder, the ports bound and released) and asks the doctor's pre-run checks; a doctor
    error is a problem ``doctor: TITLE``. Slow (a probe, cached): editors call it off their
    UI thread. The LAN's nodes are not contacted: Preflight (``tensordeck preflight``) does."""
    from core.config import parse_config

    try:
        return _planned_problems(parse_config(data), config_path)
    except ConfigError as exc:
        return [*exc.problems, *partial_run_problems(exc, config_path)], []


def partial_run_problems(error: ConfigError, config_path: Path) -> list[ConfigProblem]:
    """What planning and the doctor's gate find in a config whose fields were wrong, from the
    keys that were right (``error.partial``), so that every problem is listed at once: the
    interpreter, the script, the run folder, the ports. Problems of the wrong keys' defaults
    and stand-ins are left out."""
    if error.partial is None:
        return []
    problems, _ = _planned_problems(error.partial, config_path)
    return [p for p in problems if _top_key(p.where) not in error.broken
            and p not in error.problems]


def _top_key(where: str) -> str:
    return where.split(".")[0].split("[")[0]


def _planned_problems(config: JobConfig, config_path: Path
                      ) -> tuple[list[ConfigProblem], list[Finding]]:
    from core.session import doctor_findings
    from core.topology import plan_run

    try:
        plan = plan_run(config, config_path, probe_python=True)
    except ConfigError as exc:
        return list(exc.problems), []
    try:
        findings = doctor_findings(plan)
    finally:
        plan.release_ports()
    errors = [ConfigProblem(where="doctor", message=f.title) for f in findings
              if f.severity == "error"]
    return errors, [f for f in findings if f.severity != "error"]
