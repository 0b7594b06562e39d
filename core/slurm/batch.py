"""``tensordeck export FILE --slurm OUT.sbatch``: the job as a batch script to submit by hand
(``sbatch OUT.sbatch``), for clusters where TensorDeck does not run.

The script does inside its allocation what ``--slurm`` does from outside: the job's nodes
(``scontrol show hostnames``), tasks placed in blocks, ports picked on each node by a short
step, then one ``srun`` step per task with TF_CONFIG or the legacy flags, output prefixed by
task. It ends as a run ends: with a chief, when it exits; else when every worker has; a chief,
worker or ps failing ends it at once with the task's exit code. The tasks still running are
then stopped (srun ends their steps) and the script exits with the run's code.

Every value of the config in it is one word made by :func:`core.shellwords.quote` (the comment
naming the config by :func:`core.shellwords.comment`), its ``#SBATCH`` values are checked by
:func:`core.slurm.launch.submit_options`, and a value no script can carry (a control character)
is refused as the command blocks refuse it: ConfigError, nothing written.
"""

from __future__ import annotations

from core.cluster_rule import cluster_of, render, split_symbols, symbol
from core.config import ConfigError, ConfigProblem
from core.export import command_problems
from core.placements import remote_defaults, task_variables
from core.plan import RunPlan, expand_tasks
from core.shellwords import comment, quote
from core.slurm.launch import PICK_PORTS, submit_options, task_step

#: Seconds between the script's looks at its tasks.
POLL_SECONDS = 1


#: ``{run_dir}`` in the script: the folder it makes in the allocation.
_RUN_DIR = symbol("run_dir")


def _cluster(plan: RunPlan) -> dict[str, list[str]]:
    """The cluster with each address a stand-in for task I's ``$host_I:$port_I``."""
    if not plan.cluster:
        return {}
    return cluster_of((t.role, t.index, symbol(str(i)) if t.role != "evaluator" else None)
                      for i, t in enumerate(plan.tasks))


def _word(text: str) -> str:
    """A word of ours (a step option); one holding a ``$`` expansion of ours in double quotes.
    No value of the config is ever in one."""
    return f'"{text}"' if "$" in text else quote(text)


def _config_word(text: str) -> str:
    """``text`` as one bash word: its own pieces quoted (:func:`core.shellwords.quote`), the
    stand-ins of the cluster rule as double-quoted expansions of the script's own variables."""
    words = []
    for piece, is_symbol in split_symbols(text):
        if not is_symbol:
            words.append(quote(piece))
        elif piece == "run_dir":
            words.append('"$run_dir"')
        else:
            words.append(f'"${{host[{piece}]}}:${{port[{piece}]}}"')
    return "".join(words) or quote("")


def _task_words(plan: RunPlan, i: int,
                cluster: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """Task I's TF_CONFIG assignment (when the job takes it) and its arguments, as bash words."""
    task = plan.tasks[i]
    rule = render(plan.config, task.role, task.index, cluster, _RUN_DIR)
    # TF_CONFIG holds no text of the config (roles, indices, stand-ins): its JSON escape of
    # a stand-in's NUL can only be one.
    assign = [f"{k}={_config_word(v.replace(chr(92) + 'u0000', chr(0)))}"
              for k, v in rule.env.items()]
    return assign, [_config_word(a) for a in rule.args]


def sbatch_script(plan: RunPlan, source: str) -> str:
    """The batch script of ``plan`` (``source``: the config it came from, named in a comment).
    ConfigError when the script cannot carry a value of it."""
    problems = command_problems(plan)
    if problems:
        raise ConfigError(str(plan.config_path), [
            ConfigProblem(where="", message=f"{p}: a batch script cannot carry it; remove it")
            for p in problems])
    lines = [*_head_lines(plan, source), *_port_lines(plan), *_step_lines(plan),
             *_wait_lines(plan)]
    return "\n".join(lines) + "\n"


def _head_lines(plan: RunPlan, source: str) -> list[str]:
    """The job's #SBATCH options, then its run folder, its nodes and the tasks per node."""
    return ["#!/bin/bash", *(f"#SBATCH {o}" for o in submit_options(plan)),
            comment(f"Made by `tensordeck export --slurm` from {quote(source)}: submit with "
                    "sbatch."),
            "set -u", f"cd {quote(str(plan.script.parent))}",
            'run_dir="${SLURM_SUBMIT_DIR:-$PWD}/runs/slurm-${SLURM_JOB_ID}"',
            'mkdir -p "$run_dir"',
            'mapfile -t hosts < <(scontrol show hostnames "$SLURM_JOB_NODELIST")',
            f'per=$(( ({len(plan.tasks)} + ${{#hosts[@]}} - 1) / ${{#hosts[@]}} ))',
            "declare -a host port pid",
            "declare -A wanted pool"]


def _port_lines(plan: RunPlan) -> list[str]:
    """Each task's host (tasks in blocks over the nodes) and the port of each task that serves:
    the config's, or one picked on its node by a short step (one per node)."""
    named = {t.key: t.port for t, _ in expand_tasks(plan.config)}
    serves = [i for i, t in enumerate(plan.tasks) if plan.cluster and t.role != "evaluator"]
    lines = [f'host[{i}]="${{hosts[$(( {i} / per ))]}}"' for i in range(len(plan.tasks))]
    picked = [i for i in serves if named[plan.tasks[i].key] is None]
    for i in picked:
        lines.append(f'wanted[${{host[{i}]}}]=$(( ${{wanted[${{host[{i}]}}]:-0}} + 1 ))')
    pick_line = " ".join([*map(_word, task_step("$SLURM_JOB_ID", "$h", "tensordeck-ports")),
                          quote(plan.python), "-c", quote(PICK_PORTS)])
    lines += ['for h in "${!wanted[@]}"; do',
              f'  pool[$h]="$({pick_line} "${{wanted[$h]}}")" || exit 1',
              "done"]
    for i in serves:
        if i in picked:
            lines += [f'p=(${{pool[${{host[{i}]}}]}}); port[{i}]=${{p[0]}}; '
                      f'pool[${{host[{i}]}}]="${{p[*]:1}}"']
        else:
            lines.append(f"port[{i}]={named[plan.tasks[i].key]}")
    return lines


def _step_lines(plan: RunPlan) -> list[str]:
    """One srun step per task, in the background, its output prefixed by the task's name."""
    cfg = plan.config
    cluster = _cluster(plan)
    gpus = cfg.slurm.gpus_per_task if cfg.slurm else None
    lines = []
    for i, task in enumerate(plan.tasks):
        step = task_step("$SLURM_JOB_ID", f"${{host[{i}]}}", task.name)
        if gpus and task.role != "ps":
            step.append(f"--gpus-per-task={gpus}")
        # What a --slurm step gets (core.placements), its machine's own threads and import
        # path aside: the script may run where this TensorDeck is not installed.
        env = task_variables(plan, task, _RUN_DIR, remote_defaults(plan))
        words = [f"{k}={_config_word(v)}" for k, v in env.items()]  # names: identifiers
        assign, args = _task_words(plan, i, cluster)
        words += [*assign, *map(_word, step)]
        words += [quote(plan.python), quote(str(plan.script)), *args]
        lines += [f"{' '.join(words)} \\",
                  f"  > >(sed -u 's/^/[{task.name}] /') 2>&1 &",
                  f"pid[{i}]=$!"]
    return lines


def _wait_lines(plan: RunPlan) -> list[str]:
    """The end of the script: it waits as a run does (the chief, else every worker), stops at
    once with the exit code of a chief, worker or ps that fails, then stops the others."""
    chief = [i for i, t in enumerate(plan.tasks) if t.role == "chief"]
    ends = chief or [i for i, t in enumerate(plan.tasks) if t.role == "worker"]
    critical = [i for i, t in enumerate(plan.tasks) if t.role in ("chief", "worker", "ps")]
    return [
        f"name=({' '.join(t.name for t in plan.tasks)})",
        f"ends=({' '.join(map(str, ends))})",
        f"critical=' {' '.join(map(str, critical))} '",
        "stop_all() { kill -TERM \"${pid[@]}\" 2>/dev/null; wait; }",
        "trap 'stop_all; exit 143' TERM INT",
        "declare -A done",
        "while :; do",
        '  for i in "${!pid[@]}"; do',
        '    [ -n "${done[$i]:-}" ] || kill -0 "${pid[$i]}" 2>/dev/null && continue',
        '    wait "${pid[$i]}"; code=$?; done[$i]=1',
        '    if [ "$code" -ne 0 ] && [[ $critical == *" $i "* ]]; then',
        '      echo "tensordeck: ${name[$i]} failed with exit code $code" >&2',
        '      unset "pid[$i]"; stop_all; exit "$code"',
        "    fi",
        "  done",
        '  left=0; for i in "${ends[@]}"; do [ -n "${done[$i]:-}" ] || left=1; done',
        '  if [ "$left" -eq 0 ]; then',
        '    for i in "${!done[@]}"; do unset "pid[$i]"; done',
        '    stop_all; exit 0',
        "  fi",
        f"  sleep {POLL_SECONDS}",
        "done",
    ]
