"""The job config file: its records (core.model), its loader and its JSON Schema.

``load_config`` turns a file into a :class:`JobConfig` or raises :class:`ConfigError` carrying
one message per problem, each naming the field (``tasks[1].count: must be >= 1``). Only checks
that need no file system or network live in the model; :mod:`core.topology` checks files and
ports. Whatever the file holds, loading is bounded (size, nesting, entries, digits) and ends in
a config or a ConfigError, never another exception: see docs/reliability.md. A text checked
once comes from the cache of checked configs afterwards (pydantic is imported only to check).
"""

from __future__ import annotations

import dataclasses
import difflib
import ipaddress
import json
import math
import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from core.bounded import MAX_INT_DIGITS, BadNumber, TooDeep
from core.bounded import loads as loads_json
from core.messages import tr
from core.model import (
    Check,
    Doc,
    Rule,
    from_data,
    json_schema,
    record,
    to_data,
    validate,
    validation_error,
)
from core.output import show  # message text; re-exported: callers import it from here

Role = Literal["chief", "worker", "ps", "evaluator"]
Strategy = Literal[
    "single", "mirrored", "multi_worker_mirrored", "parameter_server", "between_graph"
]
ClusterSpec = Literal["tf_config", "flags", "both"]
CrossDeviceOps = Literal["auto", "nccl", "hierarchical_copy", "reduction_to_one_device"]

#: Strategies that run one process and need no cluster description.
SINGLE_PROCESS: frozenset[str] = frozenset({"single", "mirrored"})

_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_NAME_RE = re.compile(r'^[^\\/:*?"<>|\x00-\x1f\x7f]{1,64}$')

# Bounds that keep loading fast and memory small whatever the file says. A config is a few
# KiB nested 3 levels deep; a run of more than MAX_TASKS processes on one launcher is a typo.
MAX_CONFIG_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 32
MAX_ENTRIES = 65536  # per list or object: more arguments than any command line takes
MAX_TASKS = 1024
MAX_SECONDS = 86400.0

# C0, DEL, C1 (\x9b is CSI to some terminals) and the Unicode line separators.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_HOSTNAME_RE = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*\.?$"
)
_UNPASSABLE_RE = re.compile("[\x00\ud800-\udfff]")
#: A variable name every shell can set and WSLENV can pass (Windows itself takes more).
ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_USER_RE = re.compile(r"^[^-\s;|&$`<>'\"():/\x00-\x1f\x7f][^\s;|&$`<>'\"():/\x00-\x1f\x7f]*$")


def _control_problem(text: str, allowed: str = "") -> str | None:
    for match in _CONTROL_RE.finditer(text):
        if match.group() not in allowed:
            return (
                f"contains the control character {ascii(match.group())[1:-1]} at position "
                f"{match.start()}; remove it"
            )
    return None


def _no_control(text: str) -> str:
    problem = _control_problem(text)
    if problem:
        raise ValueError(problem)
    return text


def _arg(text: str) -> str:
    problem = _control_problem(text, allowed="\t")  # a tab is a common separator argument
    if problem:
        raise ValueError(problem)
    return text


def _hostname(host: str) -> str:
    """A host name or an IP address and nothing else: it reaches ssh, TF_CONFIG and shells."""
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        pass
    if not _HOSTNAME_RE.match(host):
        raise ValueError(
            f"{show(host)!r} is not a host name or IP address (letters, digits, '.', '-', '_'; "
            "IPv6 without brackets)"
        )
    return host


def _printable_name(name: str) -> bool:
    return bool(_NAME_RE.match(name)) and name.isprintable() and name.strip() == name


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _user(user: str) -> str:
    if not _USER_RE.match(user):
        raise ValueError(
            f"{show(user)!r} is not a user name: no spaces, no leading '-', none of "
            "; | & $ ` < > ' \" ( ) : /"
        )
    return user


#: Strings that become paths, commands or host names: control characters are refused.
PathText = Annotated[str, Check(_no_control)]
Arg = Annotated[str, Check(_arg)]
HostName = Annotated[str, Check(_hostname)]
UserName = Annotated[str, Check(_user)]
Port = Annotated[int, Rule(ge=1, le=65535)]
Seconds = Annotated[float, Rule(ge=0, le=MAX_SECONDS)]


@dataclass
class ConfigProblem:
    """One thing wrong with a config: where (``tasks[1].count``) and what."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class ConfigError(Exception):
    """A config that cannot run. ``problems`` lists every problem found, each naming its field.
    When its fields were wrong: ``partial``, the config with those keys (``broken``) at their
    defaults, for the checks that can still be made (see :func:`parse_config`); when only what
    they say together was wrong, the config itself."""

    def __init__(self, source: str, problems: list[ConfigProblem], *,
                 partial: JobConfig | None = None, broken: frozenset[str] = frozenset()):
        self.source = source
        self.problems = problems
        self.partial = partial
        self.broken = broken
        super().__init__("\n".join(f"{source}: {p}" for p in problems))


def _gpus(gpus: list[int] | None) -> list[int] | None:
    if gpus is None:
        return gpus
    if any(g < 0 for g in gpus):
        raise ValueError("GPU indexes must be >= 0")
    if len(set(gpus)) != len(gpus):
        raise ValueError("lists a GPU twice")
    return gpus


def _task_host(host: str) -> str:
    _hostname(host)
    if host != "localhost" and not _is_loopback(host):
        raise ValueError(
            f'{host!r} is another machine: describe it in "nodes" and give the task '
            '"node": its name'
        )
    return host


#: Restarts a parameter_server worker gets by default (its entry's ``restart`` overrides).
PS_WORKER_RESTARTS = 3


@record
class RestartPolicy:
    """What to do when a task exits with an error."""

    policy: Annotated[
        Literal["never", "on_failure"],
        Doc("never: the first failure fails the run. on_failure: restart the task."),
    ] = "never"
    max_restarts: Annotated[
        int, Rule(ge=0), Doc("Restarts allowed per task (on_failure).")
    ] = 0
    backoff_seconds: Annotated[
        Seconds, Doc("Wait before the first restart; doubles each time, at most 30 s.")
    ] = 1.0

    def __post_init__(self) -> None:
        if self.policy == "on_failure" and self.max_restarts == 0:
            raise ValueError("policy 'on_failure' needs max_restarts >= 1")


@record
class TaskGroup:
    """One entry of ``tasks``: ``count`` processes of one role."""

    role: Annotated[Role, Doc("chief, worker, ps or evaluator.")]
    count: Annotated[
        int, Rule(ge=1, le=MAX_TASKS), Doc("How many tasks of this role (default 1).")
    ] = 1
    port: Annotated[
        Port | None,
        Doc("Port of the first task of this entry; the others take the next ports. "
            "Omitted: a free port is chosen at launch and recorded in the run folder."),
    ] = None
    gpus: Annotated[
        list[int] | None,
        Check(_gpus),
        Doc("GPU indexes visible to each task of this entry (CUDA_VISIBLE_DEVICES). "
            "[] hides every GPU. Omitted: ps tasks see none, other tasks see every GPU."),
    ] = None
    host: Annotated[
        str, Check(_task_host), Doc("This machine's name for the tasks: localhost or 127.x.")
    ] = "localhost"
    node: Annotated[
        str | None, Doc("Name of the machine in 'nodes' that runs these tasks; null: this one.")
    ] = None
    restart: Annotated[
        RestartPolicy | None,
        Doc("Restart policy of these tasks, instead of the job's 'restart'. Omitted: "
            "the job's; in parameter_server, workers restart on failure (3 times) unless the "
            "job's says on_failure itself."),
    ] = None


@record
class Node:
    """A machine of the LAN that runs tasks, reached over SSH."""

    host: Annotated[HostName, Doc("Name or address TensorDeck connects to over SSH.")]
    user: Annotated[UserName | None, Doc("SSH user; default: your user name here.")] = None
    port: Annotated[Port, Doc("SSH port.")] = 22
    python: Annotated[PathText, Doc("The training interpreter on that machine (full path).")]
    workdir: Annotated[
        PathText, Doc("Folder on the node for scripts and run folders (relative: in the home).")
    ] = "tensordeck"
    address: Annotated[
        HostName | None,
        Doc("Address the other machines (and TensorFlow) use to reach this node; "
            "default: host. Set it when the node has several interfaces."),
    ] = None
    key_file: Annotated[PathText | None, Doc("Private key file; default: agent and ~/.ssh.")] = None
    password: Annotated[
        bool,
        Doc("Log in with the password stored in the system keyring "
            "('tensordeck login NODE' stores it; it never goes into a file)."),
    ] = False
    shell: Annotated[
        Literal["auto", "posix", "cmd", "powershell"],
        Doc("The node's SSH shell; auto detects it."),
    ] = "auto"
    script: Annotated[
        PathText | None, Doc("Path of the script already on the node; null: copy it there.")
    ] = None

    @property
    def tf_address(self) -> str:
        return self.address or self.host


#: A long option, the form salloc and an #SBATCH line both take as one word.
_SBATCH_OPTION_RE = re.compile(r"^--[A-Za-z][A-Za-z0-9-]*(=\S.*)?$")


def _sbatch_option(line: str) -> str:
    """``--qos=high`` (``#SBATCH --qos=high`` accepted): one option, no newline or script."""
    option = line.removeprefix("#SBATCH").strip()
    if _CONTROL_RE.search(option) or not _SBATCH_OPTION_RE.match(option):
        raise ValueError("must be one long sbatch option, such as --qos=high or "
                         "#SBATCH --qos=high")
    return option


SlurmName = Annotated[str, Rule(pattern=r"^[A-Za-z0-9_.-]{1,64}$")]


@record
class SlurmOptions:
    """Where and how ``--slurm`` submits the job (all optional: the cluster's defaults)."""

    partition: Annotated[
        SlurmName | None, Doc("Partition (sbatch --partition). null: the cluster's default.")
    ] = None
    account: Annotated[SlurmName | None, Doc("Account charged (sbatch --account).")] = None
    time_limit: Annotated[
        Annotated[str, Rule(pattern=r"^(\d+-)?\d+(:\d{1,2}){0,2}$")] | None,
        Doc("Wall-time limit, as Slurm writes it: MINUTES, HH:MM:SS or D-HH:MM:SS."),
    ] = None
    gpus_per_task: Annotated[
        Annotated[int, Rule(ge=0, le=64)] | None,
        Doc("GPUs Slurm gives each task except ps (--gpus-per-task)."),
    ] = None
    extra_sbatch: Annotated[
        list[Annotated[str, Check(_sbatch_option)]],
        Rule(max_length=64),
        Doc("More sbatch options, one per line."),
    ] = field(default_factory=list)


def _default_tasks() -> list[TaskGroup]:
    return [TaskGroup(role="worker")]


def _job_name(name: str) -> str:
    if not _printable_name(name) or name.endswith("."):
        raise ValueError(
            "must be 1-64 characters, no leading/trailing spaces, no trailing '.', no "
            'control characters, none of \\ / : * ? " < > |'
        )
    return name


def _script(script: str) -> str:
    if not script.strip():
        raise ValueError("must name the training script")
    return script


def _env(env: dict[str, str]) -> dict[str, str]:
    for key in env:
        if not ENV_NAME_RE.match(key):
            raise ValueError(
                f"'{show(key)}' is not a valid variable name: use letters, digits and '_', "
                "not starting with a digit (Windows takes more, but no shell can export such "
                "a name, nor WSLENV pass it to WSL); rename it"
            )
        if key == "TF_CONFIG" or key.startswith("TENSORDECK_"):
            raise ValueError(f"{key} is set by TensorDeck for each task; remove it")
    return env


def _node_names(nodes: dict[str, Node]) -> dict[str, Node]:
    for name in nodes:
        if not _printable_name(name):
            raise ValueError(
                f"'{show(name)}' is not a node name: 1-64 characters, no control "
                'characters, none of \\ / : * ? " < > |'
            )
    return nodes


def default_cluster_spec(strategy: str) -> ClusterSpec:
    """How tasks of ``strategy`` learn the cluster when the file does not say."""
    return "flags" if strategy == "between_graph" else "tf_config"


#: The key editors put first for their schema link; TensorDeck ignores its value.
SCHEMA_KEY = "$schema"


@record
class JobConfig:
    """A TensorDeck job: what to run, as which tasks, with which environment."""

    name: Annotated[str, Check(_job_name), Doc("Job name; used in the run folder's name.")]
    strategy: Annotated[
        Strategy,
        Doc("single, mirrored (one process, several GPUs), multi_worker_mirrored, "
            "parameter_server (TF2) or between_graph (TF1 replica_device_setter scripts)."),
    ]
    script: Annotated[
        PathText, Check(_script), Doc("Training script, relative to the config file's folder.")
    ]
    args: Annotated[
        list[Arg],
        Doc("Script arguments. Placeholders {job_name} {task_index} {ps_hosts} "
            "{worker_hosts} {run_dir} are substituted."),
    ] = field(default_factory=list)
    python: Annotated[
        PathText | None, Doc("Training interpreter. null: the interpreter running TensorDeck.")
    ] = None
    cluster_spec: Annotated[
        ClusterSpec | None,
        Doc("How tasks learn the cluster: tf_config (TF_CONFIG), flags (--job_name, "
            "--task_index, --ps_hosts, --worker_hosts) or both. Default: flags for "
            "between_graph, else tf_config."),
    ] = None
    tasks: Annotated[
        list[TaskGroup],
        Rule(max_length=MAX_TASKS),
        Doc("Processes to start. Default: one worker (single and mirrored)."),
    ] = field(default_factory=_default_tasks)
    env: Annotated[
        dict[str, str], Check(_env), Doc("Extra variables for every task.")
    ] = field(default_factory=dict)
    nodes: Annotated[
        dict[str, Node],
        Check(_node_names),
        Doc("Other machines of the LAN, by name (see tasks[].node)."),
    ] = field(default_factory=dict)
    address: Annotated[
        HostName | None,
        Doc("This machine's LAN address, for its tasks when the cluster spans nodes."),
    ] = None
    cross_device_ops: Annotated[
        CrossDeviceOps,
        Doc("All-reduce for mirrored strategies, exported as TENSORDECK_CROSS_DEVICE_OPS. "
            "auto: hierarchical_copy on Windows (no NCCL there), TensorFlow's default "
            "elsewhere."),
    ] = "auto"
    restart: RestartPolicy = field(default_factory=RestartPolicy)
    stop_grace_seconds: Annotated[
        Seconds, Doc("Seconds a task gets to exit by itself before it is stopped.")
    ] = 10
    run_dir: Annotated[
        PathText | None,
        Doc("Run folder. null: <config folder>/runs/<YYYYmmdd-HHMMSS>-<name>/."),
    ] = None
    slurm: Annotated[
        SlurmOptions | None,
        Doc("Options of a run on a Slurm cluster (tensordeck --run FILE --slurm)."),
    ] = None

    @property
    def effective_cluster_spec(self) -> ClusterSpec:
        return self.cluster_spec or default_cluster_spec(self.strategy)

    def role_count(self, role: str) -> int:
        return sum(t.count for t in self.tasks if t.role == role)

    def restart_for(self, role: str, index: int) -> RestartPolicy:
        """The restart policy of task ``role:index`` (numbered per role in the order of
        ``tasks``, as core.topology numbers them): its entry's ``restart``; else, for a
        parameter_server worker, restart on failure (TF's ClusterCoordinator goes on without a
        failed worker and takes it back when it rejoins) unless the job's policy restarts
        itself; else the job's ``restart``."""
        first = 0
        for group in self.tasks:
            if group.role != role:
                continue
            if index < first + group.count:
                if group.restart is not None:
                    return group.restart
                break
            first += group.count
        ps_worker = self.strategy == "parameter_server" and role == "worker"
        if ps_worker and self.restart.policy == "never":
            return RestartPolicy(policy="on_failure", max_restarts=PS_WORKER_RESTARTS)
        return self.restart


def _size_problems(cfg: JobConfig) -> list[ConfigProblem]:
    total = sum(t.count for t in cfg.tasks)
    if total > MAX_TASKS:
        return [
            ConfigProblem(
                where="tasks",
                message=f"{total} tasks in all; a run has at most {MAX_TASKS}: lower the counts",
            )
        ]
    return []


#: A config's count of tasks per role (``JobConfig.role_count``): ``n("ps")``: how many ps.
_RoleCounts = Callable[[str], int]

#: Per strategy of several processes, the task mixes it cannot run (TF's rules, plus
#: TensorDeck's completion rules): (a test of the role counts that finds the mix wrong, the
#: message), in the order the messages are listed.
_MIX_RULES: dict[str, tuple[tuple[Callable[[_RoleCounts], bool], str], ...]] = {
    "multi_worker_mirrored": (
        (lambda n: n("worker") + n("chief") < 1, "multi_worker_mirrored needs at least one worker"),
        (lambda n: n("ps") != 0,
         "multi_worker_mirrored has no ps tasks; use strategy 'parameter_server'"),
    ),
    "parameter_server": (
        (lambda n: n("chief") != 1, "parameter_server needs exactly one chief (the coordinator)"),
        (lambda n: n("worker") < 1, "parameter_server needs at least one worker"),
        (lambda n: n("ps") < 1, "parameter_server needs at least one ps"),
    ),
    "between_graph": (
        (lambda n: n("ps") < 1, "between_graph needs at least one ps"),
        (lambda n: n("worker") < 1, "between_graph needs at least one worker"),
        (lambda n: n("chief") != 0 or n("evaluator") != 0,
         "between_graph uses only ps and worker tasks (worker 0 acts as chief)"),
    ),
}


def _task_mix_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """Which task mixes each strategy can run (TF's rules, plus TensorDeck's completion rules)."""
    problems = [
        ConfigProblem(where=f"tasks[{i}].count",
                      message=f"a cluster has at most one {group.role}; use count 1")
        for i, group in enumerate(cfg.tasks)
        if group.role in ("chief", "evaluator") and group.count != 1
    ]
    messages = [f"a cluster has at most one {role}; list it once" for role in ("chief", "evaluator")
                if sum(1 for t in cfg.tasks if t.role == role) > 1]
    return problems + [ConfigProblem(where="tasks", message=m)
                       for m in messages + _strategy_mix_messages(cfg)]


def _strategy_mix_messages(cfg: JobConfig) -> list[str]:
    """What the strategy says of the mix of roles: one process, or the counts of _MIX_RULES."""
    s = cfg.strategy
    if s not in SINGLE_PROCESS:
        return [message for wrong, message in _MIX_RULES.get(s, ()) if wrong(cfg.role_count)]
    first = cfg.tasks[0] if len(cfg.tasks) == 1 else None
    if first is None or first.count != 1 or first.role not in ("worker", "chief"):
        return [f'strategy \'{s}\' runs one process: use a single task {{"role": "worker"}}']
    return []


def _node_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """Tasks name known nodes; every address other machines must reach is a real one."""
    problems = []
    for name, node in cfg.nodes.items():
        if node.tf_address in _LOCAL_HOSTS:
            problems.append(
                ConfigProblem(
                    where=f"nodes.{name}.address",
                    message=f"{node.tf_address} is not reachable from other machines; give the "
                    "node's LAN address",
                )
            )
    remote = [g for g in cfg.tasks if g.node is not None]
    for i, group in enumerate(cfg.tasks):
        if group.node is not None and group.node not in cfg.nodes:
            known = ", ".join(cfg.nodes) or "none defined"
            problems.append(
                ConfigProblem(
                    where=f"tasks[{i}].node",
                    message=f"no node '{show(group.node)}' (nodes: {known})",
                )
            )
    has_local = any(g.node is None for g in cfg.tasks)
    if remote and has_local and (cfg.address is None or cfg.address in _LOCAL_HOSTS):
        problems.append(
            ConfigProblem(
                where="address",
                message="tasks run here and on other nodes: give this machine's LAN address, "
                "which the other nodes use to reach its tasks",
            )
        )
    return problems


def _port_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """Two tasks cannot share host:port. A TF server binds every interface, so on one machine
    every task needs its own port whatever host name it uses."""
    problems = []
    taken: dict[int, str] = {}
    for i, group in enumerate(cfg.tasks):
        if group.port is None or cfg.strategy in SINGLE_PROCESS or group.node is not None:
            continue  # ports on other machines are checked there
        last = group.port + group.count - 1
        if last > 65535:
            problems.append(
                ConfigProblem(
                    where=f"tasks[{i}].port",
                    message=f"{group.count} tasks from port {group.port} run past 65535",
                )
            )
        for port in range(group.port, min(last, 65535) + 1):
            if port in taken:
                problems.append(
                    ConfigProblem(
                        where=f"tasks[{i}].port",
                        message=f"port {port} is also used by {taken[port]}; "
                        "every task needs its own port",
                    )
                )
            taken[port] = f"tasks[{i}]"
    return problems


# --- error messages ------------------------------------------------------------------------


def _where(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("function-after", "function-before", "function-plain", "[key]"):
            continue
        else:
            part = show(str(part), 40)  # a key from the file: one line, bounded
            out += f".{part}" if out else part
    return out


_TYPE_WORDS = {
    "int_type": "an integer",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "an object",
    "float_type": "a number",
    "bool_type": "true or false",
    "model_type": "an object",
    "dataclass_type": "an object",
    "int_from_float": "an integer",
}


def _message(err: Mapping[str, Any], model_fields: dict[tuple, list[str]]) -> str:
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind in ("missing", "missing_argument"):
        return tr("config.required", "en")
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        parent = tuple(p for p in err["loc"][:-1] if not isinstance(p, int))
        if parent[:1] == ("nodes",):
            parent = ("nodes",)  # nodes.<name>.<key>: the key of a Node
        allowed = model_fields.get(parent, [])
        close = difflib.get_close_matches(str(err["loc"][-1]), allowed, n=1)
        if close:
            return tr("config.unknown_key_close", "en", close=close[0],
                      allowed=", ".join(allowed))
        return tr("config.unknown_key", "en", allowed=", ".join(allowed))
    if kind == "literal_error":
        return tr("config.one_of", "en", choices=str(ctx.get("expected", "")).replace("'", ""))
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        op = {
            "greater_than_equal": ">=",
            "greater_than": ">",
            "less_than_equal": "<=",
            "less_than": "<",
        }[kind]
        return tr("config.bound", "en", op=op, bound=next(iter(ctx.values())))
    if kind in _TYPE_WORDS:
        return (
            f"must be {_TYPE_WORDS[kind]}, not {type(err.get('input')).__name__}".replace(
                "NoneType", "null"
            )
            .replace("not str", "not a string")
            .replace("not dict", "not an object")
        )
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    if kind == "too_long":
        return tr("config.at_most", "en", n=ctx.get("max_length"))
    return err["msg"]


def _field_names() -> dict[tuple, list[str]]:
    def names(model: type) -> list[str]:
        return [f.name for f in dataclasses.fields(model)]

    return {
        (): [SCHEMA_KEY, *names(JobConfig)],
        ("tasks",): names(TaskGroup),
        ("restart",): names(RestartPolicy),
        ("tasks", "restart"): names(RestartPolicy),
        ("nodes",): names(Node),
        ("slurm",): names(SlurmOptions),
    }


def _text_problem(text: str) -> str | None:
    """What no OS accepts in a name, an argument or a variable: NUL, and lone surrogates
    (from a \\ud800 escape: they cannot even be encoded to be printed or passed on)."""
    found = _UNPASSABLE_RE.search(text)
    if found is None:
        return None
    char = found.group()
    what = "a NUL character" if char == "\x00" else f"a lone surrogate ({show(char)})"
    return f"contains {what} at position {found.start()}; remove it"


def _checked(value: object, where: str, problems: list[ConfigProblem], depth: int = 0) -> object:
    """``value`` as plain JSON data, with what no field may hold listed in ``problems``:
    duplicate keys, bad numbers and characters, nesting deeper than any config needs.
    The recursion stops at MAX_DEPTH, so it is bounded whatever the input."""

    def add(message: str, at: str = where) -> None:
        problems.append(ConfigProblem(where=at, message=message))

    if depth > MAX_DEPTH:
        add(f"nested deeper than {MAX_DEPTH} levels; a config needs 4", show(where, 80))
        return None
    if isinstance(value, (list, dict)) and len(value) > MAX_ENTRIES:
        add(f"{len(value)} entries; at most {MAX_ENTRIES}")
        return None
    if isinstance(value, list):
        return [_checked(v, f"{where}[{i}]", problems, depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return _checked_object(value, where, problems, depth)
    if problem := _scalar_problem(value):
        add(problem)
    return value


def _scalar_problem(value: object) -> str | None:
    """What no field may hold in a string or a number (None: nothing)."""
    if isinstance(value, BadNumber):
        return value.message
    if isinstance(value, str):
        return _text_problem(value)
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a JSON number; write a finite number"
    if isinstance(value, int) and value.bit_length() > MAX_INT_DIGITS * 3:
        return (f"a number of about {value.bit_length() * 3 // 10} digits; write at most "
                f"{MAX_INT_DIGITS} digits")
    return None


def _checked_object(value: dict, where: str, problems: list[ConfigProblem],
                    depth: int) -> dict:
    """A JSON object checked as :func:`_checked` checks values, its keys too (bad characters,
    keys the file gives twice)."""

    def at(key: object) -> str:
        return _where((where, key) if where else (key,))

    out = {}
    for key, item in value.items():
        if isinstance(key, str) and (problem := _text_problem(key)):
            problems.append(ConfigProblem(where=at(key), message=f"key {problem}"))
        out[key] = _checked(item, at(key), problems, depth + 1)
    for key in getattr(value, "duplicates", ()):
        problems.append(ConfigProblem(
            where=at(key),
            message=f"duplicate key '{show(key)}': the file gives it twice; keep one"))
    return out


def parse_config(data: object, source: str = "config") -> JobConfig:
    """Validate already-parsed JSON. Raises :class:`ConfigError` listing every problem."""
    if not isinstance(data, dict):
        raise ConfigError(source, [ConfigProblem(where="", message="must be a JSON object {...}")])
    problems: list[ConfigProblem] = []
    checked = _checked(data, "", problems)
    if problems:  # the file itself is broken: field checks on it would only add noise
        raise ConfigError(source, problems)
    assert isinstance(checked, dict)  # an object stays one
    data = checked
    link = data.pop(SCHEMA_KEY, None)
    if link is not None and not isinstance(link, str):
        raise ConfigError(source, [ConfigProblem(where=SCHEMA_KEY, message="must be a string")])
    try:
        cfg = validate(JobConfig, data)
    except validation_error() as exc:
        fields = _field_names()
        errors = exc.errors()
        problems = [ConfigProblem(where=_where(e["loc"]), message=_message(e, fields))
                    for e in errors]
        # Every problem at once: what the other keys say together is checked too, so that
        # fixing a name does not reveal a missing chief only then.
        broken = frozenset(str(e["loc"][0]) for e in errors if e["loc"])
        partial = _partial_config(data, broken)
        if partial is not None:
            problems += _cross_field_problems(partial)
        raise ConfigError(source, problems, partial=_plannable(partial),
                          broken=broken) from None
    if problems := _cross_field_problems(cfg):
        raise ConfigError(source, problems, partial=_plannable(cfg))
    return cfg


def _cross_field_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """What no field says alone: the run's size, its mix of tasks, nodes, ports."""
    return (_size_problems(cfg) + _task_mix_problems(cfg) + _node_problems(cfg)
            + _port_problems(cfg))


def _layout_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """The cross-field problems that planning cannot get past (a task on an unknown node, one
    port twice, too many tasks)."""
    return _size_problems(cfg) + _node_problems(cfg) + _port_problems(cfg)


def _plannable(cfg: JobConfig | None) -> JobConfig | None:
    """``cfg`` when it can be planned despite its problems (a wrong mix of roles can)."""
    return cfg if cfg is not None and not _layout_problems(cfg) else None


#: Stand-ins for required keys whose values are wrong: no cross-field check reads them.
_STAND_INS = {"name": "job", "script": "train.py"}
#: The keys the cross-field checks read: when one of them is wrong, they would judge defaults.
_CROSS_FIELD_KEYS = frozenset({"strategy", "tasks", "nodes", "address"})


def _partial_config(data: dict, broken: frozenset[str]) -> JobConfig | None:
    """``data`` with its ``broken`` keys at their defaults (stand-ins for the required ones),
    or None when a key the cross-field checks read is among them."""
    if broken & _CROSS_FIELD_KEYS:
        return None
    rest = {key: value for key, value in data.items() if key not in broken}
    rest.update({key: _STAND_INS[key] for key in broken if key in _STAND_INS})
    try:
        return validate(JobConfig, rest)
    except validation_error():
        return None


def _read_text(path: Path) -> str:
    """The file's text. What is not a regular file (a FIFO blocks the open, /dev/zero never
    ends) or is too big is refused from its ``stat``, before it is opened; the read is capped
    as well, for a file that grows or is swapped in between."""
    source = show(str(path), None)

    def refuse(message: str) -> ConfigError:
        return ConfigError(source, [ConfigProblem(where="", message=message)])

    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise refuse("no such file") from None
    except (OSError, ValueError) as exc:
        raise refuse(f"cannot read: {_reason(exc)}") from None
    if stat.S_ISDIR(info.st_mode):
        raise refuse("is a folder; give the config file (job.json)")
    if not stat.S_ISREG(info.st_mode):
        raise refuse("is not a regular file (a pipe or a device?); give the config file")
    too_big = f"is larger than {MAX_CONFIG_BYTES // 2**20} MiB; a config is a few KiB"
    if info.st_size > MAX_CONFIG_BYTES:
        raise refuse(too_big)
    # O_NONBLOCK: should a FIFO replace the file after the stat, the open does not block.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
        with open(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise refuse("is not a regular file (a pipe or a device?); give the config file")
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise refuse(f"cannot read: {_reason(exc)}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise refuse(too_big)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise refuse(
            f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8"
        ) from None


def _reason(exc: BaseException) -> str:
    return show(getattr(exc, "strerror", None) or str(exc), 200)


def load_config(path: str | Path) -> JobConfig:
    """Read and validate a config file; :class:`ConfigError` for file, JSON or field problems.
    A text this TensorDeck checked before comes from the cache of checked configs."""
    text = _read_text(Path(path))
    source = show(str(path), None)
    return _checked_once(text, lambda: parse_config(_parse_text(text, source), source),
                         "configs", CHECKED_CONFIGS)


def check_config(data: dict) -> JobConfig:
    """:func:`parse_config` for fields an editor holds (the window checks every edit); fields
    checked before (the starter job at every start, a document shown before) come from the cache
    of checked configs, so showing them imports no pydantic. They are kept apart from the configs
    that were loaded, so that typing never pushes those out."""
    try:  # the key: the fields as the JSON text that parses back to them
        text = json.dumps(data, ensure_ascii=False, allow_nan=False)
        same = json.loads(text) == data
    except (TypeError, ValueError):
        same = False
    if not same:  # not plain JSON data (a tuple, a number as a key): the check says what
        return parse_config(data)
    return _checked_once(text, lambda: parse_config(data), "fields", CHECKED_FIELDS)


# --- checked configs -----------------------------------------------------------------------
# A config's checks depend on its text alone (nothing here reads files or the network), so a
# text checked once is not checked again: the launcher rebuilds it from the user's cache
# without importing pydantic. An entry is named by the hash of the text and of the checking
# code (core.paths.code_stamp), holds the checked config as data, and is only ever a miss when
# anything about it is off.

CHECKED_CONFIGS = 256  # entries kept: one per config text a user runs
CHECKED_FIELDS = 64  # the editor's: one per document it showed (and the last edits)


def _checked_once(text: str, check: Callable[[], JobConfig], folder: str, keep: int
                  ) -> JobConfig:
    """The config of ``text``: from the cache's ``folder`` when it was checked before, else
    ``check()``'s, which is then remembered there (a config with problems raises, and is
    checked every time)."""
    from core.paths import cache_entry, code_stamp, write_cache_entry

    entry = cache_entry(folder, code_stamp(), text)
    remembered = _remembered(entry)
    if remembered is not None:
        return remembered
    cfg = check()
    write_cache_entry(entry, json.dumps(to_data(cfg)), keep)
    return cfg


def _remembered(entry: Path) -> JobConfig | None:
    try:
        info = os.stat(entry)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CONFIG_BYTES:
            return None  # not an entry this TensorDeck wrote (a FIFO would block the read)
        return from_data(JobConfig, json.loads(entry.read_text(encoding="utf-8")))
    except Exception:  # none yet, or damaged: check the text again
        return None


def schema() -> dict:
    """The JSON Schema of config files, for editors (``tensordeck schema``)."""
    doc = json_schema(JobConfig)
    doc["properties"] = {
        SCHEMA_KEY: {"description": "Editors' schema link; ignored.", "type": "string"},
        **doc["properties"],
    }
    doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    doc["title"] = "TensorDeck job"
    return doc


def schema_json() -> str:
    return json.dumps(schema(), indent=2)


def schema_cli(_args: object) -> int:
    print(schema_json())
    return 0


def config_to_json(cfg: JobConfig) -> dict:
    """The config as its file would say it, in its file order: what is null or at its default
    is left out."""
    return to_data(cfg, skip_defaults=True)


def read_config_data(path: str | Path) -> dict:
    """The file's JSON object as plain data, read as :func:`load_config` reads it (bounded,
    every value a field could hold), fields not yet validated: what an editor shows. Raises
    :class:`ConfigError` when the file cannot be read, is not JSON or not an object, or holds
    what no field may (duplicate keys, numbers out of range, NUL, nesting too deep)."""
    path = Path(path)
    return _parse_text(_read_text(path), show(str(path), None))


def _parse_text(text: str, source: str) -> dict:
    try:
        data = loads_json(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            source,
            [
                ConfigProblem(
                    where="",
                    message=f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
                )
            ],
        ) from None
    except TooDeep:
        raise ConfigError(
            source,
            [ConfigProblem(where="", message=f"nested deeper than {MAX_DEPTH} levels; a config "
                           "needs 4")],
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(source, [ConfigProblem(where="", message="must be a JSON object {...}")])
    problems: list[ConfigProblem] = []
    data = _checked(data, "", problems)
    if problems:
        raise ConfigError(source, problems)
    return data  # type: ignore[return-value]
