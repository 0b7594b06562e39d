"""What a config's fields say together, which no field's rule sees alone: the run's size, the
mix of tasks each strategy can run, nodes named and reachable, a port per task. Apart from the
records because these checks also judge a partly wrong config (:mod:`core.config.validation`)
and decide whether it can still be planned."""

from __future__ import annotations

from collections.abc import Callable

from core.config.problems import ConfigProblem
from core.config.records import MAX_TASKS, SINGLE_PROCESS, JobConfig
from core.findings import Text
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
        return [ConfigProblem.of("tasks", Text.of("config.too_many_tasks", total=total,
                                                  limit=MAX_TASKS))]
    return []


#: A config's count of tasks per role (``JobConfig.role_count``): ``n("ps")``: how many ps.
_RoleCounts = Callable[[str], int]


def _at_least_one(strategy: str, role: str) -> Text:
    return Text.of("config.mix.at_least_one", strategy=strategy, role=role)


#: Per strategy of several processes, the task mixes it cannot run (TF's rules, plus
#: TensorDeck's completion rules): (a test of the role counts that finds the mix wrong, the
#: message), in the order the messages are listed.
_MIX_RULES: dict[str, tuple[tuple[Callable[[_RoleCounts], bool], Text], ...]] = {
    "multi_worker_mirrored": (
        (lambda n: n("worker") + n("chief") < 1, _at_least_one("multi_worker_mirrored", "worker")),
        (lambda n: n("ps") != 0, Text.of("config.mix.no_ps")),
    ),
    "parameter_server": (
        (lambda n: n("chief") != 1, Text.of("config.mix.one_chief")),
        (lambda n: n("worker") < 1, _at_least_one("parameter_server", "worker")),
        (lambda n: n("ps") < 1, _at_least_one("parameter_server", "ps")),
    ),
    "between_graph": (
        (lambda n: n("ps") < 1, _at_least_one("between_graph", "ps")),
        (lambda n: n("worker") < 1, _at_least_one("between_graph", "worker")),
        (lambda n: n("chief") != 0 or n("evaluator") != 0, Text.of("config.mix.ps_and_workers")),
    ),
}


def _task_mix_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """Which task mixes each strategy can run (TF's rules, plus TensorDeck's completion rules)."""
    problems = [
        ConfigProblem.of(f"tasks[{i}].count", Text.of("config.one_count", role=group.role))
        for i, group in enumerate(cfg.tasks)
        if group.role in ("chief", "evaluator") and group.count != 1
    ]
    texts = [Text.of("config.one_group", role=role) for role in ("chief", "evaluator")
             if sum(1 for t in cfg.tasks if t.role == role) > 1]
    return problems + [ConfigProblem.of("tasks", text)
                       for text in texts + _strategy_mix_texts(cfg)]


def _strategy_mix_texts(cfg: JobConfig) -> list[Text]:
    """What the strategy says of the mix of roles: one process, or the counts of _MIX_RULES."""
    s = cfg.strategy
    if s not in SINGLE_PROCESS:
        return [text for wrong, text in _MIX_RULES.get(s, ()) if wrong(cfg.role_count)]
    first = cfg.tasks[0] if len(cfg.tasks) == 1 else None
    if first is None or first.count != 1 or first.role not in ("worker", "chief"):
        return [Text.of("config.mix.one_process", strategy=s, task='{"role": "worker"}')]
    return []


def _wsl_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """A job whose interpreter is inside WSL runs every task there: WSL 2's network is behind
    NAT, out of other machines' reach."""
    if cfg.python is None or not is_wsl_spec(cfg.python) or all(g.node is None for g in cfg.tasks):
        return []
    return [ConfigProblem.of("python", Text.of("config.wsl_nat"))]


def _node_problems(cfg: JobConfig) -> list[ConfigProblem]:
    """Tasks name known nodes; every address other machines must reach is a real one."""
    problems = []
    for name, node in cfg.nodes.items():
        if node.tf_address in _LOCAL_HOSTS:
            problems.append(ConfigProblem.of(
                f"nodes.{name}.address", Text.of("config.local_address", address=node.tf_address)))
    remote = [g for g in cfg.tasks if g.node is not None]
    for i, group in enumerate(cfg.tasks):
        if group.node is not None and group.node not in cfg.nodes:
            known = ", ".join(cfg.nodes) or Text.of("config.no_nodes")
            problems.append(ConfigProblem.of(
                f"tasks[{i}].node", Text.of("config.no_node", node=show(group.node), known=known)))
    has_local = any(g.node is None for g in cfg.tasks)
    if remote and has_local and (cfg.address is None or cfg.address in _LOCAL_HOSTS):
        problems.append(ConfigProblem.of("address", Text.of("config.address_needed")))
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
            problems.append(ConfigProblem.of(f"tasks[{i}].port", Text.of(
                "config.ports_past", count=group.count, port=group.port)))
        for port in range(group.port, min(last, 65535) + 1):
            if port in taken:
                problems.append(ConfigProblem.of(f"tasks[{i}].port", Text.of(
                    "config.port_taken", port=port, other=taken[port])))
            taken[port] = f"tasks[{i}]"
    return problems
