"""The job config file: a validated model, its loader and its JSON Schema.

``load_config`` turns a file into a :class:`JobConfig` or raises :class:`ConfigError` carrying
one message per problem, each naming the field (``tasks[1].count: must be >= 1``). Only checks
that need no file system or network live in the model; :mod:`core.plan` checks files and ports.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

Role = Literal["chief", "worker", "ps", "evaluator"]
Strategy = Literal[
    "single", "mirrored", "multi_worker_mirrored", "parameter_server", "between_graph"
]
ClusterSpec = Literal["tf_config", "flags", "both"]
CrossDeviceOps = Literal["auto", "nccl", "hierarchical_copy", "reduction_to_one_device"]

#: Strategies that run one process and need no cluster description.
SINGLE_PROCESS: frozenset[str] = frozenset({"single", "mirrored"})

_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_NAME_RE = re.compile(r'^[^\\/:*?"<>|\x00-\x1f]{1,64}$')


class ConfigProblem(BaseModel):
    """One thing wrong with a config: where (``tasks[1].count``) and what."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class ConfigError(Exception):
    """A config that cannot run. ``problems`` lists every problem found, each naming its field."""

    def __init__(self, source: str, problems: list[ConfigProblem]):
        self.source = source
        self.problems = problems
        super().__init__("\n".join(f"{source}: {p}" for p in problems))


class _Strict(BaseModel):
    # strict: "2" is not a count and 1 is not a string; forbid: a typo is an error, not a no-op.
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class TaskGroup(_Strict):
    """One entry of ``tasks``: ``count`` processes of one role."""

    role: Role = Field(description="chief, worker, ps or evaluator.")
    count: int = Field(1, ge=1, description="How many tasks of this role (default 1).")
    port: int | None = Field(
        None,
        ge=1,
        le=65535,
        description="Port of the first task of this entry; the others take the next ports. "
        "Omitted: a free port is chosen at launch and recorded in the run folder.",
    )
    gpus: list[int] | None = Field(
        None,
        description="GPU indexes visible to each task of this entry (CUDA_VISIBLE_DEVICES). "
        "[] hides every GPU. Omitted: ps tasks see none, other tasks see every GPU.",
    )
    host: str = Field(
        "localhost", description="This machine's name for the tasks: localhost or 127.x."
    )
    node: str | None = Field(
        None, description="Name of the machine in 'nodes' that runs these tasks; null: this one."
    )

    @field_validator("gpus")
    @classmethod
    def _gpus(cls, gpus: list[int] | None) -> list[int] | None:
        if gpus is None:
            return gpus
        if any(g < 0 for g in gpus):
            raise ValueError("GPU indexes must be >= 0")
        if len(set(gpus)) != len(gpus):
            raise ValueError("lists a GPU twice")
        return gpus

    @field_validator("host")
    @classmethod
    def _host(cls, host: str) -> str:
        if host not in _LOCAL_HOSTS and not host.startswith("127."):
            raise ValueError(
                f'{host!r} is another machine: describe it in "nodes" and give the task '
                '"node": its name'
            )
        return host


class Node(_Strict):
    """A machine of the LAN that runs tasks, reached over SSH."""

    host: str = Field(description="Name or address TensorDeck connects to over SSH.")
    user: str | None = Field(None, description="SSH user; default: your user name here.")
    port: int = Field(22, ge=1, le=65535, description="SSH port.")
    python: str = Field(description="The training interpreter on that machine (full path).")
    workdir: str = Field(
        "tensordeck",
        description="Folder on the node for scripts and run folders (relative: in the home).",
    )
    address: str | None = Field(
        None,
        description="Address the other machines (and TensorFlow) use to reach this node; "
        "default: host. Set it when the node has several interfaces.",
    )
    key_file: str | None = Field(None, description="Private key file; default: agent and ~/.ssh.")
    password: bool = Field(
        False,
        description="Log in with the password stored in the system keyring "
        "('tensordeck login NODE' stores it; it never goes into a file).",
    )
    shell: Literal["auto", "posix", "cmd", "powershell"] = Field(
        "auto", description="The node's SSH shell; auto detects it."
    )
    script: str | None = Field(
        None, description="Path of the script already on the node; null: copy it there."
    )

    @property
    def tf_address(self) -> str:
        return self.address or self.host


class RestartPolicy(_Strict):
    """What to do when a task exits with an error."""

    policy: Literal["never", "on_failure"] = Field(
        "never", description="never: the first failure fails the run. on_failure: restart the task."
    )
    max_restarts: int = Field(0, ge=0, description="Restarts allowed per task (on_failure).")
    backoff_seconds: float = Field(
        1.0, ge=0, description="Wait before the first restart; doubles each time, at most 30 s."
    )

    @model_validator(mode="after")
    def _consistent(self) -> RestartPolicy:
        if self.policy == "on_failure" and self.max_restarts == 0:
            raise ValueError("policy 'on_failure' needs max_restarts >= 1")
        return self


class JobConfig(_Strict):
    """A TensorDeck job: what to run, as which tasks, with which environment."""

    schema_ref: str | None = Field(
        None, alias="$schema", description="Editors' schema link; ignored."
    )
    name: str = Field(description="Job name; used in the run folder's name.")
    strategy: Strategy = Field(
        description="single, mirrored (one process, several GPUs), multi_worker_mirrored, "
        "parameter_server (TF2) or between_graph (TF1 replica_device_setter scripts)."
    )
    script: str = Field(description="Training script, relative to the config file's folder.")
    args: list[str] = Field(
        default_factory=list,
        description="Script arguments. Placeholders {job_name} {task_index} {ps_hosts} "
        "{worker_hosts} {run_dir} are substituted.",
    )
    python: str | None = Field(
        None, description="Training interpreter. null: the interpreter running TensorDeck."
    )
    cluster_spec: ClusterSpec | None = Field(
        None,
        description="How tasks learn the cluster: tf_config (TF_CONFIG), flags (--job_name, "
        "--task_index, --ps_hosts, --worker_hosts) or both. Default: flags for between_graph, "
        "else tf_config.",
    )
    tasks: list[TaskGroup] = Field(
        default_factory=lambda: [TaskGroup(role="worker")],
        description="Processes to start. Default: one worker (single and mirrored).",
    )
    env: dict[str, str] = Field(default_factory=dict, description="Extra variables for every task.")
    nodes: dict[str, Node] = Field(
        default_factory=dict, description="Other machines of the LAN, by name (see tasks[].node)."
    )
    address: str | None = Field(
        None,
        description="This machine's LAN address, for its tasks when the cluster spans nodes.",
    )
    cross_device_ops: CrossDeviceOps = Field(
        "auto",
        description="All-reduce for mirrored strategies, exported as TENSORDECK_CROSS_DEVICE_OPS. "
        "auto: hierarchical_copy on Windows (no NCCL there), TensorFlow's default elsewhere.",
    )
    restart: RestartPolicy = Field(default_factory=RestartPolicy)
    stop_grace_seconds: float = Field(
        10, ge=0, description="Seconds a task gets to exit by itself before it is stopped."
    )
    run_dir: str | None = Field(
        None, description="Run folder. null: <config folder>/runs/<YYYYmmdd-HHMMSS>-<name>/."
    )

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if not _NAME_RE.match(name) or name.strip() != name:
            raise ValueError(
                'must be 1-64 characters, no leading/trailing spaces, none of \\ / : * ? " < > |'
            )
        return name

    @field_validator("script")
    @classmethod
    def _script(cls, script: str) -> str:
        if not script.strip():
            raise ValueError("must name the training script")
        return script

    @field_validator("env")
    @classmethod
    def _env(cls, env: dict[str, str]) -> dict[str, str]:
        for key in env:
            if not key or "=" in key or "\x00" in key:
                raise ValueError(f"{key!r} is not a valid variable name")
            if key == "TF_CONFIG" or key.startswith("TENSORDECK_"):
                raise ValueError(f"{key} is set by TensorDeck for each task; remove it")
        return env

    @property
    def effective_cluster_spec(self) -> ClusterSpec:
        if self.cluster_spec:
            return self.cluster_spec
        return "flags" if self.strategy == "between_graph" else "tf_config"

    def role_count(self, role: str) -> int:
        return sum(t.count for t in self.tasks if t.role == role)


def _task_mix_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """Which task mixes each strategy can run (TF's rules, plus TensorDeck's completion rules)."""
    problems: list[ConfigProblem] = []
    n = cfg.role_count

    def add(message: str, where: str = "tasks") -> None:
        problems.append(ConfigProblem(where=where, message=message))

    for i, group in enumerate(cfg.tasks):
        if group.role in ("chief", "evaluator") and group.count != 1:
            add(f"a cluster has at most one {group.role}; use count 1", f"tasks[{i}].count")
    for role in ("chief", "evaluator"):
        if sum(1 for t in cfg.tasks if t.role == role) > 1:
            add(f"a cluster has at most one {role}; list it once")
    s = cfg.strategy
    if s in SINGLE_PROCESS:
        if (
            len(cfg.tasks) != 1
            or cfg.tasks[0].count != 1
            or cfg.tasks[0].role not in ("worker", "chief")
        ):
            add(f'strategy \'{s}\' runs one process: use a single task {{"role": "worker"}}')
    elif s == "multi_worker_mirrored":
        if n("worker") + n("chief") < 1:
            add("multi_worker_mirrored needs at least one worker")
        if n("ps"):
            add("multi_worker_mirrored has no ps tasks; use strategy 'parameter_server'")
    elif s == "parameter_server":
        if n("chief") != 1:
            add("parameter_server needs exactly one chief (the coordinator)")
        if n("worker") < 1:
            add("parameter_server needs at least one worker")
        if n("ps") < 1:
            add("parameter_server needs at least one ps")
    elif s == "between_graph":
        if n("ps") < 1:
            add("between_graph needs at least one ps")
        if n("worker") < 1:
            add("between_graph needs at least one worker")
        if n("chief") or n("evaluator"):
            add("between_graph uses only ps and worker tasks (worker 0 acts as chief)")
    return problems


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
                    where=f"tasks[{i}].node", message=f"no node {group.node!r} (nodes: {known})"
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
        elif part in ("function-after", "function-before", "function-plain"):
            continue
        else:
            out += f".{part}" if out else str(part)
    return out


_TYPE_WORDS = {
    "int_type": "an integer",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "an object",
    "float_type": "a number",
    "bool_type": "true or false",
    "model_type": "an object",
    "int_from_float": "an integer",
}


def _message(err: dict, model_fields: dict[tuple, list[str]]) -> str:
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        parent = tuple(p for p in err["loc"][:-1] if not isinstance(p, int))
        if parent[:1] == ("nodes",):
            parent = ("nodes",)  # nodes.<name>.<key>: the key of a Node
        allowed = model_fields.get(parent, [])
        close = difflib.get_close_matches(str(err["loc"][-1]), allowed, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return f"unknown key{hint} (allowed: {', '.join(allowed)})"
    if kind == "literal_error":
        return f"must be one of: {ctx.get('expected', '')}".replace("'", "")
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        op = {
            "greater_than_equal": ">=",
            "greater_than": ">",
            "less_than_equal": "<=",
            "less_than": "<",
        }[kind]
        bound = next(iter(ctx.values()))
        return f"must be {op} {bound}"
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
    return err["msg"]


def _field_names() -> dict[tuple, list[str]]:
    def names(model: type[BaseModel]) -> list[str]:
        return [f.alias or n for n, f in model.model_fields.items()]

    return {
        (): names(JobConfig),
        ("tasks",): names(TaskGroup),
        ("restart",): names(RestartPolicy),
        ("nodes",): names(Node),
    }


def parse_config(data: object, source: str = "config") -> JobConfig:
    """Validate already-parsed JSON. Raises :class:`ConfigError` listing every problem."""
    if not isinstance(data, dict):
        raise ConfigError(source, [ConfigProblem(where="", message="must be a JSON object {...}")])
    try:
        cfg = JobConfig.model_validate(data)
    except ValidationError as exc:
        fields = _field_names()
        problems = [
            ConfigProblem(where=_where(e["loc"]), message=_message(e, fields)) for e in exc.errors()
        ]
        raise ConfigError(source, problems) from None
    problems = _task_mix_problems(cfg) + _node_problems(cfg) + _port_problems(cfg)
    if problems:
        raise ConfigError(source, problems)
    return cfg


def load_config(path: str | Path) -> JobConfig:
    """Read and validate a config file; :class:`ConfigError` for file, JSON or field problems."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(str(path), [ConfigProblem(where="", message="no such file")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            str(path), [ConfigProblem(where="", message=f"cannot read: {exc}")]
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            str(path),
            [
                ConfigProblem(
                    where="",
                    message=f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
                )
            ],
        ) from None
    return parse_config(data, str(path))


def schema() -> dict:
    """The JSON Schema of config files, for editors (``tensordeck schema``)."""
    doc = JobConfig.model_json_schema(by_alias=True)
    doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    doc["title"] = "TensorDeck job"
    return doc


def schema_json() -> str:
    return json.dumps(schema(), indent=2)


def schema_cli(_args: object) -> int:
    print(schema_json())
    return 0


def config_to_json(cfg: JobConfig) -> dict:
    """The config as its file would say it (aliases, no defaults filled in for absent keys)."""
    return cfg.model_dump(by_alias=True, exclude_none=True, exclude_unset=True)
