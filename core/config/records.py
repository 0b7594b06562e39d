"""The records of a job config (:mod:`core.model` dataclasses whose field types carry their
rules): the job, its task entries, restart policies, LAN nodes and Slurm options, with the
descriptions the JSON Schema shows. What each record is and says alone; the rules of single
values are in :mod:`core.config.value_rules`, what fields say together in
:mod:`core.config.cross_field`."""

from __future__ import annotations

from dataclasses import field
from typing import Annotated, Literal

from core.config.value_rules import (
    Arg,
    HostName,
    PathText,
    Port,
    Seconds,
    UserName,
    check_env,
    check_gpus,
    check_job_name,
    check_node_names,
    check_sbatch_option,
    check_script,
    check_task_host,
)
from core.model import Check, Doc, Rule, record

Role = Literal["chief", "worker", "ps", "evaluator"]
Strategy = Literal[
    "single", "mirrored", "multi_worker_mirrored", "parameter_server", "between_graph"
]
ClusterSpec = Literal["tf_config", "flags", "both"]
CrossDeviceOps = Literal["auto", "nccl", "hierarchical_copy", "reduction_to_one_device"]

#: Strategies that run one process and need no cluster description.
SINGLE_PROCESS: frozenset[str] = frozenset({"single", "mirrored"})

#: A run of more than MAX_TASKS processes on one launcher is a typo.
MAX_TASKS = 1024

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
        Check(check_gpus),
        Doc("GPU indexes visible to each task of this entry (CUDA_VISIBLE_DEVICES). "
            "[] hides every GPU. Omitted: ps tasks see none, other tasks see every GPU."),
    ] = None
    host: Annotated[
        str,
        Check(check_task_host),
        Doc("This machine's name for the tasks: localhost or 127.x."),
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
        list[Annotated[str, Check(check_sbatch_option)]],
        Rule(max_length=64),
        Doc("More sbatch options, one per line."),
    ] = field(default_factory=list)


def _default_tasks() -> list[TaskGroup]:
    return [TaskGroup(role="worker")]


def default_cluster_spec(strategy: str) -> ClusterSpec:
    """How tasks of ``strategy`` learn the cluster when the file does not say."""
    return "flags" if strategy == "between_graph" else "tf_config"


#: The key editors put first for their schema link; TensorDeck ignores its value.
SCHEMA_KEY = "$schema"


@record
class JobConfig:
    """A TensorDeck job: what to run, as which tasks, with which environment."""

    name: Annotated[
        str, Check(check_job_name), Doc("Job name; used in the run folder's name.")
    ]
    strategy: Annotated[
        Strategy,
        Doc("single, mirrored (one process, several GPUs), multi_worker_mirrored, "
            "parameter_server (TF2) or between_graph (TF1 replica_device_setter scripts)."),
    ]
    script: Annotated[
        PathText,
        Check(check_script),
        Doc("Training script, relative to the config file's folder."),
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
        dict[str, str], Check(check_env), Doc("Extra variables for every task.")
    ] = field(default_factory=dict)
    nodes: Annotated[
        dict[str, Node],
        Check(check_node_names),
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
