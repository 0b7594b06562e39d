"""What a config's fields say together, which no field's rule sees alone: the run's size, the
mix of tasks each strategy can run, nodes named and reachable, a port per task. Apart from the
records because these checks also judge a partly wrong config (:mod:`core.config.validation`)
and decide whether it can still be planned."""

from __future__ import annotations

from collections.abc import Callable

from core.config.problems import ConfigProblem
from core.config.records import MAX_TASKS, SINGLE_PROCESS, JobConfig
from core.output import show
from core.wsl.paths import is_wsl_spec

_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def cross_field_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """What no field says alone: the run's size, its mix of tasks, nodes, WSL, ports."""
    return (_size_problems(cfg) + _task_mix_problems(cfg) + _node_problems(cfg)
            + _wsl_problems(cfg) + _port_problems(cfg))


def _layout_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """The cross-field problems that planning cannot get past (a task on an unknown node, one
    port twice, too many tasks)."""
    return _size_problems(cfg) + _node_problems(cfg) + _port_problems(cfg)


def plannable(cfg: JobConfig | None) -> JobConfig | None:
    """``cfg`` when it can be planned despite its problems (a wrong mix of roles can)."""
    return cfg if cfg is not None and not _layout_problems(cfg) else None


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


def _wsl_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """A job whose interpreter is inside WSL runs every task there: WSL 2's network is behind
    NAT, out of other machines' reach."""
    if cfg.python is None or not is_wsl_spec(cfg.python) or all(g.node is None for g in cfg.tasks):
        return []
    return [ConfigProblem(
        where="python",
        message="a WSL interpreter runs this machine's tasks inside WSL 2, whose network other "
        "machines cannot reach (NAT): run the nodes' tasks in a job of their own, or choose an "
        "interpreter of this machine")]


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
