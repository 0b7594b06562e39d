"""Every target tells a task the same cluster: for every strategy with a cluster, every
``cluster_spec`` and arguments with and without placeholders, the TF_CONFIG, arguments and
TensorDeck's variables (the task, its run folder, its GPUs, the job's ``env``) of each task
agree between this machine's tasks, a LAN node's, a ``--slurm`` step's and the batch script of
``export --slurm`` (run under bash with stub ``srun``/``scontrol``). They may differ only in
where the task runs: its host and its run folder."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.cluster_rule import cluster_of, render, split_symbols, symbol
from core.config import parse_config
from core.placements.node import NodePlace, OnNode
from core.placements.slurm import InSlurmJob
from core.slurm.batch import sbatch_script
from core.topology import plan_run
from tests.test_generated_shell import SRUN, STUBS, _calls

TASKS = {
    "multi_worker_mirrored": [{"role": "worker", "count": 2, "port": 0},
                              {"role": "evaluator"}],
    "parameter_server": [{"role": "chief", "port": 0}, {"role": "ps", "port": 0},
                         {"role": "worker", "count": 2, "port": 0}],
    "between_graph": [{"role": "ps", "port": 0}, {"role": "worker", "count": 2, "port": 0}],
}
ARGS = {
    "plain": ["--epochs", "1"],
    "placeholders": ["--job={job_name}", "--i", "{task_index}", "--ps={ps_hosts}",
                     "--w={worker_hosts}", "--out={run_dir}/x"],
}
CASES = [(s, spec, a) for s in TASKS for spec in ("tf_config", "flags", "both") for a in ARGS]
#: The stub srun of test_generated_shell, each task's step waiting until every step started
#: (the script stops the steps still running once the workers end: a race with the stub).
WAITING_SRUN = SRUN + """case " $* " in *" --job-name=tensordeck-ports "*) ;; *)
  n=0; while [ "$(ls "$STUB_LOG" | grep -c 'argv$')" -lt "$STUB_STEPS" ] && [ $n -lt 600 ]; do
    /bin/sleep 0.05; n=$((n + 1)); done;;
esac
"""
#: The job's own variables: every target passes them as they are.
JOB_ENV = {"JOB_VAR": "a b $HOME 'c'"}
#: What a target's host and run folder become, so that only the rule is compared.
_ADDRESS = re.compile(r"[\w.-]+:(\d+)")


def _job(folder: Path, strategy: str, spec: str, args: list[str], node: bool = False) -> Path:
    """The job, every serving task on a fixed port (30000 + its place), on one machine."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "train.py").write_text("print('hi')\n")
    tasks, port = [], 30000
    for group in TASKS[strategy]:
        group = dict(group)
        if "port" in group:
            group["port"], port = port, port + group.get("count", 1)
        if node:
            group["node"] = "far"
        tasks.append(group)
    job = {"name": "t", "strategy": strategy, "cluster_spec": spec, "script": "train.py",
           "args": args, "tasks": tasks, "env": JOB_ENV}
    if node:
        job["nodes"] = {"far": {"host": "192.0.2.1", "python": "/opt/tf/bin/python",
                                "workdir": "/srv/td"}}
    path = folder / "job.json"
    path.write_text(json.dumps(job))
    return path


def _told(env: dict[str, str], args: list[str], run_dir: str) -> tuple[object, list[str], dict]:
    """What a task is told (TF_CONFIG, its arguments, TensorDeck's and the job's variables),
    with its host and run folder made neutral."""
    def neutral(text: str) -> str:
        return _ADDRESS.sub(r"HOST:\1", text.replace(run_dir, "RUN"))

    config = json.loads(neutral(env["TF_CONFIG"])) if "TF_CONFIG" in env else None
    ours = {k: neutral(v) for k, v in env.items()
            if k.startswith("TENSORDECK_") or k in ("CUDA_VISIBLE_DEVICES", *JOB_ENV)}
    return config, [neutral(a) for a in args], ours


def _local(folder: Path, strategy: str, spec: str, args: list[str]) -> dict:
    plan = plan_run(parse_config(json.loads(_job(folder, strategy, spec, args).read_text())),
                    folder / "job.json", run_dir=folder / "run")
    plan.release_ports()
    return {t.key: _told(t.env, t.argv[2:], str(plan.run_dir))
            for t in plan.tasks}


def _node(folder: Path, strategy: str, spec: str, args: list[str]) -> dict:
    path = _job(folder, strategy, spec, args, node=True)
    plan = plan_run(parse_config(json.loads(path.read_text())), path, run_dir=folder / "run")
    ports = plan.node_ports()["far"]
    place = NodePlace("/real/run", "/real/run/train.py")
    plan = plan.with_node_ports({"far": [p or 0 for p in ports]},
                                {t.key: OnNode("far", place, "posix") for t in plan.node_tasks})
    return {t.key: _told(t.env, t.command[2:], "/real/run")
            for t in plan.tasks}


def _slurm_step(folder: Path, strategy: str, spec: str, args: list[str]) -> dict:
    path = _job(folder, strategy, spec, args)
    plan = plan_run(parse_config(json.loads(path.read_text())), path, run_dir=folder / "run")
    plan.release_ports()
    plan = plan.on_hosts({t.key: ("node1", t.port) for t in plan.tasks}, job="42",
                         defaults=plan.defaults)
    plan = plan.placed({t.key: InSlurmJob(("srun", f"--job-name={t.name}")) for t in plan.tasks})
    assert all(t.argv[:2] == ["srun", f"--job-name={t.name}"] for t in plan.tasks)
    return {t.key: _told(t.env, t.command[2:], str(plan.run_dir))
            for t in plan.tasks}


def _batch(folder: Path, strategy: str, spec: str, args: list[str]) -> dict:
    path = _job(folder, strategy, spec, args)
    plan = plan_run(parse_config(json.loads(path.read_text())), path, run_dir=folder / "run")
    plan.release_ports()
    script = folder / "job.sbatch"
    script.write_text(sbatch_script(plan, str(path)))
    calls = _run_batch(script, folder / "batch", steps=len(plan.tasks))  # ports: all named
    run_dir = str(folder / "batch" / "submit" / "runs" / "slurm-42")
    told = {}
    for task in plan.tasks:
        argv, env = calls[task.name]
        after_script = argv[argv.index(str(plan.script)) + 1:]
        told[task.key] = _told(env, after_script, run_dir)
    return told


def _run_batch(script: Path, root: Path, steps: int) -> dict:
    """The batch script under bash, srun and scontrol stubs: each srun call's argv and env."""
    log, submit, bin_dir = root / "log", root / "submit", root / "bin"
    for folder in (log, submit, bin_dir):
        folder.mkdir(parents=True)
    for name, text in {**STUBS, "srun": WAITING_SRUN}.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "SLURM_JOB_ID": "42", "STUB_STEPS": str(steps),
           "SLURM_JOB_NODELIST": "node1", "SLURM_SUBMIT_DIR": str(submit), "STUB_LOG": str(log)}
    done = subprocess.run(["bash", str(script)], env=env, cwd=submit, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return _calls(log)


@pytest.mark.skipif(sys.platform == "win32" or shutil.which("bash") is None,
                    reason="the batch script runs under bash")
@pytest.mark.parametrize(("strategy", "spec", "args"), CASES)
def test_every_target_tells_a_task_the_same_cluster(tmp_path, strategy, spec, args):
    local = _local(tmp_path / "local", strategy, spec, ARGS[args])
    assert local == _node(tmp_path / "node", strategy, spec, ARGS[args])
    assert local == _slurm_step(tmp_path / "step", strategy, spec, ARGS[args])
    assert local == _batch(tmp_path / "batch", strategy, spec, ARGS[args])
    # and the rule really spoke: a cluster in TF_CONFIG or in the arguments
    told = local["worker:1"]
    assert told[0] is not None or any("HOST:" in a for a in told[1]), told


def test_the_rule_by_spec():
    cfg = parse_config({"name": "t", "strategy": "between_graph", "cluster_spec": "both",
                        "script": "s.py", "args": ["--out={run_dir}"],
                        "tasks": [{"role": "ps"}, {"role": "worker", "count": 2}]})
    cluster = cluster_of([("worker", 1, "b:2"), ("ps", 0, "p:1"), ("worker", 0, "a:3"),
                          ("evaluator", 0, None)])
    assert cluster == {"ps": ["p:1"], "worker": ["a:3", "b:2"]}
    told = render(cfg, "worker", 1, cluster, "/r")
    assert json.loads(told.env["TF_CONFIG"]) == {"cluster": cluster,
                                                 "task": {"type": "worker", "index": 1}}
    assert told.args == ["--out=/r", "--job_name=worker", "--task_index=1", "--ps_hosts=p:1",
                         "--worker_hosts=a:3,b:2"]
    assert render(cfg, "worker", 1, {}, "/r") == type(told)({}, ["--out=/r"])  # one process


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(alphabet=st.characters(exclude_characters="\0"), max_size=6),
                          st.sampled_from(["a", "run_dir", "7"]).map(symbol)), max_size=6))
def test_stand_ins_come_back_in_order(parts):
    """A target finds every stand-in in text again, and every piece of text between them."""
    text = "".join(parts)
    pieces = split_symbols(text)
    assert "".join(symbol(p) if s else p for p, s in pieces) == text
    assert [p for p, s in pieces if s] == [p.strip("\0") for p in parts if p.startswith("\0")]


def test_a_placeholder_value_is_never_filled_again():
    """A host or folder that holds a placeholder's text stays as it is."""
    cfg = parse_config({"name": "t", "strategy": "multi_worker_mirrored", "script": "s.py",
                        "args": ["{worker_hosts}", "{run_dir}"],
                        "tasks": [{"role": "worker", "count": 1}]})
    told = render(cfg, "worker", 0, {"worker": ["{task_index}:1"]}, "{job_name}")
    assert told.args == ["{task_index}:1", "{job_name}"]


def test_no_target_writes_its_own_cluster_rule():
    """TF_CONFIG and the legacy flags are written in one place (core/cluster_rule.py)."""
    core = Path(__file__).resolve().parent.parent / "core"
    writers = [p.relative_to(core).as_posix() for p in core.rglob("*.py")
               if re.search(r'"--(job_name|ps_hosts)=|"TF_CONFIG"\]\s*=', p.read_text("utf-8"))]
    assert writers == ["cluster_rule.py"], writers

