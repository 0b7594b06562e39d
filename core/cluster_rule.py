"""How a task learns its cluster: TF_CONFIG, the legacy flags (``--job_name --task_index
--ps_hosts --worker_hosts``) or the placeholders in its arguments. One rendering for every
target: the tasks this machine starts, a LAN node's, a Slurm step's (``--slurm``), the batch
script (``export --slurm``, whose addresses are bash expansions known only in the allocation)
and the hand-start commands (``export --commands``).

An address may be a literal ``host:port`` or a stand-in that the target turns into its own
text afterwards (:func:`symbol`): the rule never needs to know which.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from core.config import JobConfig

CLUSTER_PLACEHOLDERS = ("{job_name}", "{task_index}", "{ps_hosts}", "{worker_hosts}")
RUN_DIR_PLACEHOLDER = "{run_dir}"
#: A stand-in's frame: no value of a config can hold a NUL (control characters are refused).
_SYMBOL = re.compile("\0([^\0]+)\0")


@dataclass(frozen=True)
class TaskCluster:
    """What the rule adds to one task: TF_CONFIG (when the job takes it) and its arguments
    (the config's, placeholders filled, then the legacy flags when the job takes those)."""

    env: dict[str, str]
    args: list[str]


def symbol(name: str) -> str:
    """A stand-in for a value the target writes itself (``split_symbols`` finds it again)."""
    return f"\0{name}\0"


def split_symbols(text: str) -> list[tuple[str, bool]]:
    """``text`` as pieces in order: (literal text, False) and (a stand-in's name, True)."""
    pieces = _SYMBOL.split(text)
    return [(piece, i % 2 == 1) for i, piece in enumerate(pieces) if piece or i % 2]


def uses_placeholders(args: Iterable[str]) -> bool:
    """Whether the script takes its cluster from placeholders in its arguments (then the
    legacy flags are not added: they would come twice)."""
    return any(p in a for a in args for p in CLUSTER_PLACEHOLDERS)


def cluster_of(tasks: Iterable[tuple[str, int, str | None]]) -> dict[str, list[str]]:
    """The cluster of (role, index, address) triples: role -> addresses by index. A task with
    no address (the evaluator) serves nothing and is not in it."""
    cluster: dict[str, list[str]] = {}
    for role, _, address in sorted(tasks, key=lambda t: (t[0], t[1])):
        if address is not None:
            cluster.setdefault(role, []).append(address)
    return cluster


def render(cfg: JobConfig, role: str, index: int, cluster: Mapping[str, Sequence[str]],
           run_dir: str) -> TaskCluster:
    """Task ``role:index``'s TF_CONFIG and arguments in ``cluster`` (empty: a single-process
    job, which gets neither). ``run_dir`` fills ``{run_dir}``, last, as no other value holds
    it."""
    values = {
        "{job_name}": role,
        "{task_index}": str(index),
        "{ps_hosts}": ",".join(cluster.get("ps", [])),
        "{worker_hosts}": ",".join(cluster.get("worker", [])),
        RUN_DIR_PLACEHOLDER: run_dir,
    }
    args = [_fill(arg, values) for arg in cfg.args]
    env: dict[str, str] = {}
    if cluster:
        spec = cfg.effective_cluster_spec
        if spec in ("tf_config", "both"):
            env["TF_CONFIG"] = json.dumps(
                {"cluster": cluster, "task": {"type": role, "index": index}})
        if spec in ("flags", "both") and not uses_placeholders(cfg.args):
            args += [f"--job_name={role}", f"--task_index={index}",
                     f"--ps_hosts={values['{ps_hosts}']}",
                     f"--worker_hosts={values['{worker_hosts}']}"]
    return TaskCluster(env, args)


def _fill(arg: str, values: Mapping[str, str]) -> str:
    for placeholder, value in values.items():
        arg = arg.replace(placeholder, value)
    return arg
