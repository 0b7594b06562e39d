"""A job for other launchers: a Kubeflow TFJob manifest (training-operator v1), or the command
lines that start each task by hand on its machine (POSIX sh, Windows cmd, PowerShell).

Pure functions: the caller loads the config, plans the run and writes the files.

The command blocks carry every value literally (secrets too: the commands must run). A value no
block can carry is refused (:func:`command_problems`): a control character other than a newline
or TAB (it would end a line of the block, or drive the terminal the file is shown in), a
variable name that is not an identifier (no shell can set it). Every word is quoted by
:func:`core.shellwords.quote`. A newline in a value or an argument is written by sh and
PowerShell; cmd has no way to write one, so that task's cmd block says so and starts nothing.
"""

from __future__ import annotations

import math
import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PureWindowsPath

from core.cluster_rule import CLUSTER_PLACEHOLDERS
from core.config import ENV_NAME_RE, JobConfig, RestartPolicy
from core.output import control_character, plain
from core.placements import resolve_cross_device_ops
from core.plan import RunPlan, TaskPlan
from core.shellwords import comment, quote

DEFAULT_IMAGE = "REPLACE_WITH_YOUR_IMAGE"
#: The port the training operator gives every replica (its default for TFJob).
TFJOB_PORT = 2222
#: Where ``{run_dir}`` points inside a pod (no TensorDeck run folder there).
POD_RUN_DIR = "/tmp/tensordeck-run"

#: TensorDeck role -> TFJob replica type, in the order the manifest lists them.
REPLICA_TYPES = {"chief": "Chief", "worker": "Worker", "ps": "PS", "evaluator": "Evaluator"}
_RESTART_POLICIES = {"never": "Never", "on_failure": "OnFailure"}
_TFJOB_RESTART_POLICIES = ("Always", "OnFailure", "Never", "ExitCode")
_TFJOB_REPLICA_TYPES = (*REPLICA_TYPES.values(), "Master")
_CLEAN_POD_POLICIES = ("All", "Running", "None")
# The operator's webhook checks job names as DNS-1035 labels.
_DNS1035 = re.compile(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?\Z")


# --- Kubeflow TFJob ----------------------------------------------------------------------------


@dataclass
class TfJobExport:
    """The manifest, and what a person must know or change before applying it."""

    manifest: dict
    notes: list[str] = field(default_factory=list)


def kubernetes_name(name: str) -> str:
    """The job name as a DNS-1035 label (``between_graph`` -> ``between-graph``)."""
    label = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if not label[:1].isalpha():
        label = f"job-{label}".rstrip("-")
    return label[:63].rstrip("-")


def _pod_args(args: list[str]) -> tuple[list[str], list[str]]:
    """The config's args for a pod, and the ones left out. A cluster placeholder has no value
    in a TFJob (the operator gives TF_CONFIG only): it is dropped, with the flag before it when
    that flag takes it as its value (``--task_index {task_index}``)."""
    kept: list[str] = []
    dropped: list[str] = []
    for arg in args:
        if any(p in arg for p in CLUSTER_PLACEHOLDERS):
            if kept and kept[-1].startswith("-") and "=" not in kept[-1]:
                dropped.append(kept.pop())
            dropped.append(arg)
        else:
            kept.append(arg.replace("{run_dir}", POD_RUN_DIR))
    return kept, dropped


def _pod_env(cfg: JobConfig) -> list[dict]:
    env = {"PYTHONUNBUFFERED": "1", **cfg.env}  # unbuffered: `kubectl logs` shows lines at once
    env["TENSORDECK_CROSS_DEVICE_OPS"] = resolve_cross_device_ops(cfg.cross_device_ops, "linux")
    return [{"name": k, "value": v} for k, v in env.items()]


def _gpu_count(cfg: JobConfig, role: str, notes: list[str]) -> int:
    counts = {len(g.gpus) for g in cfg.tasks if g.role == role and g.gpus is not None}
    if len(counts) > 1:
        notes.append(
            f"{REPLICA_TYPES[role]}: the config gives its tasks different GPU counts; a TFJob "
            f"gives every replica the same, so each asks for {max(counts)}."
        )
    return max(counts, default=0)


def tfjob(cfg: JobConfig, *, image: str = DEFAULT_IMAGE) -> TfJobExport:
    """The job as a ``kubeflow.org/v1`` TFJob: one replica spec per role, container
    ``tensorflow`` running ``python <script>``; the operator sets TF_CONFIG in every pod."""
    script = PureWindowsPath(cfg.script).name  # a Windows path's name too; "/" splits as well
    notes = [
        f"The image must hold TensorFlow and {script} in its working directory (image: {image}).",
    ]
    args, dropped = _pod_args(cfg.args)
    notes += _cluster_notes(cfg, dropped)
    chosen = _restart_policies(cfg, notes)
    restarting = [p for p in chosen.values() if p.policy == "on_failure"]
    if restarting:
        notes.append(
            "restart.backoff_seconds has no TFJob field: Kubernetes applies its own restart "
            "back-off."
        )
    roles = [role for role in REPLICA_TYPES if cfg.role_count(role)]
    gpus = {role: _gpu_count(cfg, role, notes) for role in roles}
    replica_specs = {
        REPLICA_TYPES[role]: _replica_spec(
            cfg, role, _container(cfg, image, script, args, gpus[role]), chosen[role])
        for role in roles
    }
    notes += _no_gpu_notes(cfg, gpus)
    manifest = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "TFJob",
        "metadata": {"name": kubernetes_name(cfg.name)},
        "spec": {
            # Running: the ps tasks (and TF2 workers) never exit; delete them once the job ends.
            # One limit for the whole job: the largest any replica type may use.
            "runPolicy": {
                "backoffLimit": max((p.max_restarts for p in restarting), default=0),
                "cleanPodPolicy": "Running",
            },
            "tfReplicaSpecs": replica_specs,
        },
    }
    return TfJobExport(manifest, notes)


def _cluster_notes(cfg: JobConfig, dropped: list[str]) -> list[str]:
    """What a pod cannot give the script as TensorDeck does: the cluster as flags, a run
    folder."""
    notes = []
    if cfg.effective_cluster_spec != "tf_config" or dropped:
        notes.append(
            "This script takes the cluster as flags (--job_name, --task_index, --ps_hosts, "
            "--worker_hosts); a TFJob gives it TF_CONFIG only. Make the script read TF_CONFIG, "
            "or start it through a wrapper that turns TF_CONFIG into those flags."
            + (f" Left out of args: {' '.join(dropped)}." if dropped else "")
        )
    if any("{run_dir}" in a for a in cfg.args):
        notes.append(f"{{run_dir}} is {POD_RUN_DIR} in the pods; mount a volume there to keep it.")
    return notes


def _restart_policies(cfg: JobConfig, notes: list[str]) -> dict[str, RestartPolicy]:
    """One restart policy per role that has tasks (a TFJob has one per replica type), with a
    note where TensorDeck would decide per task (tasks[].restart, the ps-worker default)."""
    policies = {
        role: [cfg.restart_for(role, i) for i in range(cfg.role_count(role))]
        for role in REPLICA_TYPES
    }
    chosen = {role: p[0] for role, p in policies.items() if p}
    for role, each in policies.items():
        if len({p.policy for p in each}) > 1:
            notes.append(
                f"{REPLICA_TYPES[role]}: its tasks have different restart policies; a TFJob has "
                f"one per replica type: {_RESTART_POLICIES[chosen[role].policy]} is used."
            )
    return chosen


def _container(cfg: JobConfig, image: str, script: str, args: list[str], gpus: int) -> dict:
    """A replica's container: ``python <script>`` with the config's args and env, the port the
    operator gives it, and ``gpus`` GPUs when it asks for any."""
    container: dict = {
        "name": "tensorflow",  # the operator's default container name
        "image": image,
        "command": ["python", script],
    }
    if args:
        container["args"] = args
    container["env"] = _pod_env(cfg)
    container["ports"] = [{"name": "tfjob-port", "containerPort": TFJOB_PORT}]
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
    return container


def _replica_spec(cfg: JobConfig, role: str, container: dict, policy: RestartPolicy) -> dict:
    """The replica spec of ``role``: its count, its restart policy, its one container."""
    return {
        "replicas": cfg.role_count(role),
        "restartPolicy": _RESTART_POLICIES[policy.policy],
        "template": {
            "spec": {
                "containers": [container],
                "terminationGracePeriodSeconds": math.ceil(cfg.stop_grace_seconds),
            }
        },
    }


def _no_gpu_notes(cfg: JobConfig, gpus: dict[str, int]) -> list[str]:
    """A note naming the replica types that ask for no GPU although their tasks may use every
    GPU here (a pod gets none unless it asks; ps tasks need none). ``gpus``: per role run."""
    no_gpus = [
        REPLICA_TYPES[role] for role, count in gpus.items()
        if not count and role != "ps" and any(g.gpus is None for g in cfg.tasks if g.role == role)
    ]
    if not no_gpus:
        return []
    return [
        f"{', '.join(no_gpus)}: the config lets these tasks use every GPU of the machine; a "
        "pod gets none unless it asks: give 'gpus' in the config or add "
        "resources.limits nvidia.com/gpu."
    ]


def _replica_problems(replica_type: str, spec: object) -> list[str]:
    """What the schema and the webhook reject in the replica spec of ``replica_type``."""
    where = f"spec.tfReplicaSpecs.{replica_type}"
    if replica_type not in _TFJOB_REPLICA_TYPES:
        return [f"{where}: unknown replica type (use {', '.join(_TFJOB_REPLICA_TYPES)})"]
    if not isinstance(spec, dict):
        return [f"{where}: must be a mapping"]
    problems = _replica_count_problems(where, replica_type, spec)
    policy = spec.get("restartPolicy")
    if policy is not None and policy not in _TFJOB_RESTART_POLICIES:
        problems.append(
            f"{where}.restartPolicy: {policy!r} is not one of {', '.join(_TFJOB_RESTART_POLICIES)}"
        )
    return problems + _container_problems(where, spec)


def _replica_count_problems(where: str, replica_type: str, spec: dict) -> list[str]:
    """``replicas``: a count, and one at most for the types a cluster has one of."""
    replicas = spec.get("replicas", 1)
    if type(replicas) is not int or replicas < 0:
        return [f"{where}.replicas: must be an integer >= 0"]
    if replica_type in ("Chief", "Master", "Evaluator") and replicas > 1:
        return [f"{where}.replicas: a TFJob has at most one {replica_type}"]
    return []


def _container_problems(where: str, spec: dict) -> list[str]:
    """The pod template's containers: at least one, each with an image, one named
    ``tensorflow`` (the one the operator configures)."""
    containers = (((spec.get("template") or {}).get("spec")) or {}).get("containers")
    if not isinstance(containers, list) or not containers:
        return [f"{where}.template.spec.containers: at least one container is required"]
    problems = [
        f"{where}.template.spec.containers[{i}].image: is required"
        for i, container in enumerate(containers)
        if not isinstance(container, dict) or not container.get("image")
    ]
    if not any(isinstance(c, dict) and c.get("name") == "tensorflow" for c in containers):
        problems.append(
            f"{where}.template.spec.containers: none is named 'tensorflow' (the operator "
            "configures the container of that name)"
        )
    return problems


def validate_tfjob(doc: object) -> list[str]:
    """What the TFJob schema and the training operator's webhook would reject, one line each."""
    if not isinstance(doc, dict):
        return ["the document must be a mapping"]
    problems = _header_problems(doc)
    spec = doc.get("spec") or {}
    replica_specs = spec.get("tfReplicaSpecs")
    if not isinstance(replica_specs, dict) or not replica_specs:
        return [*problems, "spec.tfReplicaSpecs: at least one replica spec is required"]
    for replica_type, replica in replica_specs.items():
        problems += _replica_problems(replica_type, replica)
    if "Chief" in replica_specs and "Master" in replica_specs:
        problems.append("spec.tfReplicaSpecs: a TFJob has at most one Chief or Master")
    return problems + _run_policy_problems(spec.get("runPolicy") or {})


def _header_problems(doc: dict) -> list[str]:
    """The document's kind, its API version and the job's name (a DNS-1035 label)."""
    problems = []
    if doc.get("apiVersion") != "kubeflow.org/v1":
        problems.append("apiVersion: must be kubeflow.org/v1")
    if doc.get("kind") != "TFJob":
        problems.append("kind: must be TFJob")
    name = (doc.get("metadata") or {}).get("name")
    if not isinstance(name, str) or not _DNS1035.match(name):
        problems.append(
            "metadata.name: must be 1-63 lowercase letters, digits or '-', starting with a letter"
        )
    return problems


def _run_policy_problems(run_policy: dict) -> list[str]:
    """The job's back-off limit and what happens to its pods once it ends."""
    problems = []
    backoff = run_policy.get("backoffLimit", 0)
    if type(backoff) is not int or backoff < 0:
        problems.append("spec.runPolicy.backoffLimit: must be an integer >= 0")
    if run_policy.get("cleanPodPolicy", "Running") not in _CLEAN_POD_POLICIES:
        problems.append(
            f"spec.runPolicy.cleanPodPolicy: must be one of {', '.join(_CLEAN_POD_POLICIES)}"
        )
    return problems


# --- YAML (the subset manifests need: mappings, lists, strings, ints, bools, null) -------------

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*\Z")
# Words YAML 1.1 or 1.2 parsers read as booleans or null when unquoted.
_RESERVED = frozenset(["y", "n", "yes", "no", "on", "off", "true", "false", "null"])
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def _yaml_char(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    code = ord(ch)
    # Printable per the YAML spec, less the characters some parsers treat as line breaks.
    if 0x20 <= code <= 0x7E or (0xA0 <= code <= 0xD7FF and code not in (0x2028, 0x2029)):
        return ch
    if (0xE000 <= code <= 0xFFFD and code != 0xFEFF) or code >= 0x10000:
        return ch
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def yaml_scalar(value: object) -> str:
    """One scalar, quoted whenever a plain one could be read as something else."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        raise TypeError(f"cannot write {type(value).__name__} as YAML")
    if _PLAIN.match(value) and value.lower() not in _RESERVED:
        return value
    return '"' + "".join(_yaml_char(ch) for ch in value) + '"'


def _yaml_block(value: object, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(value, dict) and value:
        lines = []
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{yaml_scalar(str(key))}:")
                lines += _yaml_block(item, indent + 2)
            else:
                lines.append(f"{pad}{yaml_scalar(str(key))}: {_yaml_inline(item)}")
        return lines
    if isinstance(value, list) and value:
        lines = []
        for item in value:
            if isinstance(item, (dict, list)) and item:
                nested = _yaml_block(item, indent + 2)
                lines.append(f"{pad}- {nested[0][indent + 2 :]}")
                lines += nested[1:]
            else:
                lines.append(f"{pad}- {_yaml_inline(item)}")
        return lines
    return [pad + _yaml_inline(value)]


def _yaml_inline(value: object) -> str:
    if isinstance(value, dict):
        return "{}"  # only empty ones get here
    if isinstance(value, list):
        return "[]"
    return yaml_scalar(value)


def to_yaml(doc: object, comments: Iterable[str] = ()) -> str:
    """``doc`` as block-style YAML, after ``comments`` as ``#`` lines."""
    head = [comment(line) for text in comments for line in text.splitlines()]
    return "\n".join([*head, *_yaml_block(doc, 0)]) + "\n"


# --- command lines -----------------------------------------------------------------------------

_CMD_SPECIALS = frozenset("^&|<>()")


def cmd_escape(line: str) -> str:
    """A line for a Windows batch file that cmd passes on literally: ``%`` doubled, and
    ``^ & | < > ( )`` caret-escaped where cmd's quote state (every ``"`` toggles it) leaves them
    unquoted. Delayed expansion (``!``) must be off: the block turns it off."""
    out = []
    quoted = False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif ch == "%":
            ch = "%%"
        elif ch in _CMD_SPECIALS and not quoted:
            ch = "^" + ch
        out.append(ch)
    return "".join(out)


def _value_problem(value: str) -> str | None:
    found = control_character(value.replace("\n", ""))
    return f"contains the control character {found}" if found else None


def _name_problem(name: str) -> str | None:
    if ENV_NAME_RE.match(name):
        return None
    return "not a variable name a shell can set (letters, digits and '_', not first a digit)"


def _refuse_unsafe(env: Mapping[str, str], argv: list[str]) -> None:
    """Blocks are written only for what they can carry (see the module's docstring)."""
    for name, value in env.items():
        problem = _name_problem(name) or _value_problem(value)
        if problem:
            raise ValueError(f"variable {plain(name)}: {problem}")
    for i, arg in enumerate(argv):
        problem = _value_problem(arg)
        if problem:
            raise ValueError(f"argument {i}: {problem}")


def command_problems(plan: RunPlan) -> list[str]:
    """What the command blocks of ``plan`` cannot carry, one line per field (``env.NAME: ...``,
    ``args[1]: ...``; a value TensorDeck derived, such as a path, by task)."""
    cfg = plan.config
    problems = []
    for name, value in cfg.env.items():
        problem = _name_problem(name) or _value_problem(value)
        if problem:
            problems.append(f"env.{plain(name)}: {problem}")
    for i, arg in enumerate(cfg.args):
        problem = _value_problem(arg)
        if problem:
            problems.append(f"args[{i}]: {problem}")
    if problems:
        return problems
    for task in plan.tasks:
        try:
            _refuse_unsafe(task.env, task.command)
        except ValueError as exc:
            problems.append(f"{task.name}: {exc}")
    return problems


def posix_lines(env: Mapping[str, str], argv: list[str]) -> list[str]:
    _refuse_unsafe(env, argv)
    exports = [f"export {name}={quote(value)}" for name, value in env.items()]
    return [*exports, " ".join(quote(a) for a in argv)]


def cmd_lines(env: Mapping[str, str], argv: list[str]) -> list[str]:
    _refuse_unsafe(env, argv)
    multiline = [f"variable {name}" for name, value in env.items() if "\n" in value]
    multiline += [f"argument {i}" for i, arg in enumerate(argv) if "\n" in arg]
    if multiline:
        # Half a task (one variable missing, an argument cut) is worse than none.
        return [cmd_escape(f"rem cmd cannot start this task: {', '.join(multiline)} spans "
                           "several lines. Use the PowerShell or sh block.")]
    lines = ["setlocal DisableDelayedExpansion"]
    if not all(text.isascii() for text in (*env, *env.values(), *argv)):
        # cmd reads a batch file in the console's OEM code page: UTF-8 from here on.
        lines.insert(0, "chcp 65001 >nul")
    for name, value in env.items():
        lines.append(cmd_escape(f'set "{name}={value}"'))
    # list2cmdline: the quoting python.exe (the MS C runtime) splits back into argv.
    return [*lines, cmd_escape(subprocess.list2cmdline(argv))]


def powershell_lines(env: Mapping[str, str], argv: list[str]) -> list[str]:
    _refuse_unsafe(env, argv)
    lines = [f"$env:{name} = {quote(value, 'powershell')}" for name, value in env.items()]
    return [*lines, "& " + " ".join(quote(a, "powershell") for a in argv)]


_SHELL_BLOCKS = {
    "posix": ("POSIX sh (Linux, macOS, WSL):", "sh", posix_lines),
    "cmd": (
        "Windows cmd, as a .cmd file (typed at the prompt instead, write each %% as %):",
        "bat",
        cmd_lines,
    ),
    "powershell": ("PowerShell:", "powershell", powershell_lines),
}


def _fence(lang: str, lines: list[str]) -> list[str]:
    """A Markdown code block whose fence no backtick run inside can close."""
    longest = max((len(run) for run in re.findall(r"`+", "\n".join(lines))), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + lang, *lines, fence]


def task_node(task: TaskPlan) -> str | None:
    """The name of the node that runs ``task``; None: this machine."""
    return getattr(task, "node", None)


def _stop_note(plan: RunPlan) -> str:
    strategy = plan.config.strategy
    if strategy == "parameter_server":
        return (
            "The ps and worker tasks never exit (they serve the chief): once the chief has "
            "finished, stop them by hand (Ctrl+C in their terminal)."
        )
    if plan.config.role_count("ps"):
        return (
            "The ps tasks never exit: once every worker has finished, stop them by hand "
            "(Ctrl+C in their terminal)."
        )
    return "Every task exits by itself when training ends."


def _machine_heading(plan: RunPlan, node_name: str | None) -> tuple[str, str]:
    """The section title of one machine, and the shell its blocks are for (auto: all)."""
    if node_name is None:
        return "This machine", "auto"
    node = plan.config.nodes[node_name]
    login = f"{node.user}@{node.host}" if node.user else node.host
    return f"Node `{node_name}` ({login}, folder `{node.workdir}`)", node.shell


def commands_markdown(plan: RunPlan) -> str:
    """Per machine, per task in start order: the shell lines that start it by hand, with the
    environment (TF_CONFIG included) and arguments (legacy flags included) of ``plan``."""
    cfg = plan.config
    out = [
        f"# Starting `{plain(cfg.name)}` by hand ({cfg.strategy})",
        "",
        f"Made by `tensordeck export` from `{plain(str(plan.config_path))}`. Open one terminal "
        "per task on its machine and start the tasks in the order below (servers first).",
        "",
        f"- {_stop_note(plan)}",
        "- The ports were free on this machine when this file was made; if one is taken when "
        "you start, export again or set `port` in the config.",
        "- Paths (interpreter, script, run folder, PYTHONPATH) are those TensorDeck resolved; "
        "adjust them where a machine keeps its files elsewhere.",
    ]
    if plan.cluster:
        cluster = "; ".join(f"{role}: {', '.join(hosts)}" for role, hosts in plan.cluster.items())
        out.append(f"- Cluster: {plain(cluster)}.")
    if any(a == "" or '"' in a for t in plan.tasks for a in t.command):
        out.append(
            '- Some arguments are empty or contain `"`: Windows PowerShell 5.1 passes those '
            "wrongly; use PowerShell 7.3 or later, or cmd."
        )
    groups: dict[str | None, list[TaskPlan]] = {}
    for task in plan.tasks:
        groups.setdefault(task_node(task), []).append(task)
    for node_name, tasks in groups.items():
        title, shell = _machine_heading(plan, node_name)
        out += ["", f"## {plain(title)}"]
        for task in tasks:
            where = f": listens on {task.address}" if task.address else ""
            out += ["", f"### {task.name}{where}"]
            for key, (label, lang, make_lines) in _SHELL_BLOCKS.items():
                if shell in ("auto", key):
                    out += ["", label, "", *_fence(lang, make_lines(task.env, task.command))]
    return "\n".join(out) + "\n"
