"""Runs through a real one-machine Slurm cluster (tests/slurm.py): ``tensordeck --run FILE
--slurm`` places every task as a step of one job, ends as a local run ends, and leaves no job,
step or process behind; the sbatch export is accepted by ``sbatch --test-only``; bad input is
refused with nothing submitted. Plain Python tasks stand in for TensorFlow."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from tests.conftest import (
    EXAMPLES,
    REPO,
    only_run_dir,
    read_summary,
    tensordeck,
    wait_no_leftovers,
)

HOST = socket.gethostname().split(".")[0]

# By role: ps (and parameter_server workers) serve until stopped; the chief (else each
# worker) reports what Slurm and TensorDeck told it, then exits with FAIL_<ROLE><INDEX>.
# A task that ends waits until every task has said its lines (they share this file system).
TASK = """
import json, os, signal, sys, time
role, index = os.environ["TENSORDECK_TASK"].split(":")
signal.signal(signal.SIGTERM, lambda *_: (print("stopped by SIGTERM", flush=True), sys.exit(0)))
print("slurm", os.environ["SLURM_JOB_ID"], os.environ["SLURM_STEP_ID"], flush=True)
print("tf_config", os.environ.get("TF_CONFIG", "{}"), flush=True)
print("args", json.dumps(sys.argv[1:]), flush=True)
run_dir = os.environ["TENSORDECK_RUN_DIR"]
open(os.path.join(run_dir, role + index + ".up"), "w").close()
while len([n for n in os.listdir(run_dir) if n.endswith(".up")]) < int(os.environ["TASKS"]):
    time.sleep(0.05)
serves = role == "ps" or (role == "worker" and os.environ.get("STRATEGY") == "parameter_server")
if serves or os.environ.get("HANG") or os.environ.get("HANG_" + role.upper() + index):
    time.sleep(600)
sys.exit(int(os.environ.get("FAIL_" + role.upper() + index, "0")))
"""


def write_job(folder, cluster, strategy: str = "between_graph", **config):
    """task.py (TASK) and job.json in ``folder``: ps + 2 workers unless ``config`` says."""
    (folder / "task.py").write_text(TASK)
    data = {
        "name": "t",
        "strategy": strategy,
        "script": "task.py",
        "tasks": [{"role": "ps"}, {"role": "worker", "count": 2}],
        "stop_grace_seconds": 5,
        "slurm": {"partition": cluster.partition, "time_limit": "10"},
        **config,
    }
    tasks = sum(t.get("count", 1) for t in data["tasks"])
    data["env"] = {"STRATEGY": strategy, "TASKS": str(tasks), **data.get("env", {})}
    path = folder / "job.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def slurm_job(slurm, tmp_path, monkeypatch):
    """``slurm_job(**config)`` writes task.py and job.json; the CLI's children reach the test
    cluster. Afterwards the queue must be empty."""
    monkeypatch.setenv("SLURM_CONF", str(slurm.conf))
    yield lambda strategy="between_graph", **config: write_job(tmp_path, slurm, strategy,
                                                               **config)
    assert slurm.wait_empty() == [], "a Slurm job or step was left behind"


def _logs(run_dir) -> dict[str, str]:
    return {p.stem: p.read_text() for p in (run_dir / "logs").glob("*.log")}


def _said(log: str, what: str) -> str:
    return next(line.split(" ", 1)[1] for line in log.splitlines() if line.startswith(what + " "))


def test_the_quickstart_shaped_parameter_server_job_runs_as_one_slurm_job(slurm_job):
    config = slurm_job(
        "parameter_server",
        tasks=[{"role": "chief"}, {"role": "worker", "count": 2}, {"role": "ps", "gpus": []}],
        cluster_spec="tf_config",
    )
    result = tensordeck("--run", str(config), "--slurm", timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = only_run_dir(config)
    summary = read_summary(run_dir)
    assert summary["status"] == "succeeded"
    states = {t["task"]: t["state"] for t in summary["tasks"]}
    assert states == {"chief:0": "succeeded", "worker:0": "stopped", "worker:1": "stopped",
                      "ps:0": "stopped"}
    logs = _logs(run_dir)
    # One job, one step per task, every task told the same cluster on the node Slurm chose.
    jobs = {_said(log, "slurm").split()[0] for log in logs.values()}
    assert jobs == {summary["slurm_job"]}
    assert len({_said(log, "slurm").split()[1] for log in logs.values()}) == 4
    configs = {name: json.loads(_said(log, "tf_config")) for name, log in logs.items()}
    cluster = configs["chief-0"]["cluster"]
    assert all(c["cluster"] == cluster for c in configs.values())
    assert configs["worker-1"]["task"] == {"type": "worker", "index": 1}
    # This machine's thread budget is not the nodes': no TF_NUM_INTRAOP_THREADS from it.
    resolved = json.loads((run_dir / "config.json").read_text())
    assert all("TF_NUM_INTRAOP_THREADS" not in t["env"] for t in resolved["tasks"])
    addresses = [a for role in cluster.values() for a in role]
    assert len(addresses) == 4 and {a.rsplit(":", 1)[0] for a in addresses} == {HOST}
    assert len({a.rsplit(":", 1)[1] for a in addresses}) == 4
    assert "[chief-0]" in result.stdout and "[ps-0]" in result.stdout
    # Stopped as locally: the task's own SIGTERM (its handler ran), not srun's SIGKILL.
    assert "stopped by SIGTERM" in logs["ps-0"] and "stopped by SIGTERM" in logs["worker-1"]
    assert not wait_no_leftovers(run_dir)


def test_the_between_graph_job_gets_its_flags_from_what_slurm_assigned(slurm_job):
    config = slurm_job(cluster_spec="flags")
    result = tensordeck("--run", str(config), "--slurm", timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = only_run_dir(config)
    summary = read_summary(run_dir)
    assert summary["status"] == "succeeded" and summary["slurm_job"]
    args = json.loads(_said(_logs(run_dir)["worker-1"], "args"))
    assert "--job_name=worker" in args and "--task_index=1" in args
    ps_hosts = next(a for a in args if a.startswith("--ps_hosts=")).split("=", 1)[1]
    assert ps_hosts.startswith(f"{HOST}:")
    assert not wait_no_leftovers(run_dir)


def test_a_worker_exiting_7_fails_the_run_with_7_and_cancels_the_job(slurm_job):
    config = slurm_job(env={"FAIL_WORKER1": "7", "HANG_WORKER0": "1"})
    started = time.monotonic()
    result = tensordeck("--run", str(config), "--slurm", timeout=120)
    assert result.returncode == 7, result.stdout + result.stderr
    # The others' graceful stop and the job's release: seconds (a salloc that hung on its
    # release once held the launcher for a minute).
    assert time.monotonic() - started < 30
    run_dir = only_run_dir(config)
    summary = read_summary(run_dir)
    assert summary["status"] == "failed" and summary["exit_code"] == 7
    assert {t["task"]: t["exit_code"] for t in summary["tasks"]}["worker:1"] == 7
    assert not wait_no_leftovers(run_dir)


def test_ctrl_c_stops_the_tasks_and_cancels_the_job(slurm_job, slurm):
    config = slurm_job(env={"HANG": "1"})
    launcher = start_and_wait(config, 3)
    assert slurm.queue(), "no Slurm job while the tasks run"
    interrupt(launcher, config)
    assert not wait_no_leftovers(only_run_dir(config))


def interrupt(launcher: subprocess.Popen, config) -> None:
    """Ctrl+C (SIGINT) to the launcher: it ends as an interrupted run, each task stopped by its
    own SIGTERM, within stop_grace_seconds and the job's cancel."""
    try:
        stopped = time.monotonic()
        launcher.send_signal(signal.SIGINT)
        out, _ = launcher.communicate(timeout=60)
    finally:
        launcher.kill()
    assert launcher.returncode == 130, out.decode(errors="replace")
    assert time.monotonic() - stopped < 5 + 30  # stop_grace_seconds, then the job's cancel
    summary = read_summary(only_run_dir(config))
    assert summary["status"] == "interrupted"
    assert {t["state"] for t in summary["tasks"]} == {"stopped"}
    assert all("stopped by SIGTERM" in log for log in _logs(only_run_dir(config)).values())


def start_and_wait(config, tasks: int, *options: str, env=None) -> subprocess.Popen:
    """``tensordeck --run config --slurm [options]`` in a child, once ``tasks`` tasks have
    started."""
    launcher = subprocess.Popen(
        [sys.executable, "-m", "core", "--run", str(config), "--slurm", *options], cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and launcher.poll() is None:
        logs = list((config.parent / "runs").glob("*/logs/*.log"))
        if len([p for p in logs if "args" in p.read_text()]) == tasks:
            return launcher
        time.sleep(0.2)
    launcher.kill()
    raise AssertionError(f"the tasks did not start: {launcher.communicate()[0]!r}")


def test_kill_9_of_the_launcher_still_ends_the_job_and_its_tasks(slurm_job, slurm):
    config = slurm_job(env={"HANG": "1"})
    launcher = start_and_wait(config, 3)
    assert slurm.queue()
    launcher.kill()
    launcher.communicate(timeout=30)
    assert slurm.wait_empty(30) == []
    assert not wait_no_leftovers(only_run_dir(config), timeout=15)


def test_a_job_slurm_refuses_exits_2_with_slurms_words(slurm_job, slurm):
    config = slurm_job(slurm={"extra_sbatch": ["--constraint=nosuchfeature"]})
    result = tensordeck("--run", str(config), "--slurm", timeout=60)
    assert result.returncode == 2, result.stderr
    assert "slurm: Slurm refused the job" in result.stderr and "feature" in result.stderr
    assert not (config.parent / "runs").exists()


def test_the_sbatch_export_is_accepted_by_sbatch_test_only(slurm_job, slurm, tmp_path):
    config = slurm_job(cluster_spec="flags")
    out = tmp_path / "job.sbatch"
    result = tensordeck("export", str(config), "--slurm", str(out))
    assert result.returncode == 0, result.stderr
    script = out.read_text()
    assert script.startswith("#!/bin/bash\n") and f"#SBATCH --partition={slurm.partition}" in script
    checked = slurm.client("sbatch", "--test-only", str(out))
    assert checked.returncode == 0 and "to start at" in checked.stderr, checked.stderr
    assert slurm.queue() == []


def test_the_sbatch_export_runs_the_job_when_submitted(slurm_job, slurm, tmp_path):
    """The exported script, submitted by hand, runs every task with its flags and ends when the
    workers are done (the ps stopped), exiting as the workers did."""
    config = slurm_job(cluster_spec="flags", env={"FAIL_WORKER1": "7"})
    out = tmp_path / "job.sbatch"
    assert tensordeck("export", str(config), "--slurm", str(out)).returncode == 0
    submitted = slurm.client("sbatch", "--wait", f"--output={tmp_path / 'out.txt'}", str(out),
                             timeout=90, cwd=tmp_path)
    log = (tmp_path / "out.txt").read_text()
    assert submitted.returncode == 7, log
    assert "[worker-1] args" in log and "--task_index=1" in log and "[ps-0] slurm" in log
    assert "worker-1 failed with exit code 7" in log


@pytest.mark.parametrize(
    ("slurm_options", "where", "fix"),
    [
        ({"partition": "nosuch"}, "slurm.partition", "partitions: debug"),
        ({"gpus_per_task": 1}, "slurm.gpus_per_task", "have at most 0"),
    ],
    ids=["unknown-partition", "more-gpus-than-the-partition-has"],
)
def test_bad_slurm_options_exit_2_naming_the_fix_with_nothing_submitted(
    slurm_job, slurm_options, where, fix
):
    config = slurm_job(slurm=slurm_options)
    result = tensordeck("--run", str(config), "--slurm")
    assert result.returncode == 2, result.stderr
    assert f"{where}: " in result.stderr and fix in result.stderr
    assert not (config.parent / "runs").exists()


def test_dry_run_asks_the_cluster_and_submits_nothing(slurm_job, slurm):
    config = slurm_job(slurm={"partition": "nosuch"})
    result = tensordeck("--run", str(config), "--slurm", "--dry-run")
    assert result.returncode == 2 and "slurm.partition: " in result.stderr, result.stderr
    config = slurm_job()
    result = tensordeck("--run", str(config), "--slurm", "--dry-run")
    assert result.returncode == 0 and "[worker-1]" in result.stdout, result.stderr
    assert slurm.queue() == [] and not (config.parent / "runs").exists()


def test_no_slurm_commands_exits_2_naming_the_fix(slurm_job, tmp_path):
    config = slurm_job()
    bare = tmp_path / "bin"
    bare.mkdir()
    result = tensordeck("--run", str(config), "--slurm", env={**os.environ, "PATH": str(bare)})
    assert result.returncode == 2, result.stderr
    assert "salloc" in result.stderr and "not found on PATH" in result.stderr


@pytest.mark.parametrize(
    ("change", "fix"),
    [(("AuthInfo=", "AuthInfo=socket=/nonexistent/munge.socket\n#"), "start munged"),
     (("SlurmctldPort=", "MessageTimeout=2\nSlurmctldPort=1\n#"), "start slurmctld")],
    ids=["munge-down", "controller-down"],
)
def test_munge_or_controller_down_exits_2_naming_the_fix(slurm_job, slurm, tmp_path, change,
                                                          fix, monkeypatch):
    config = slurm_job()
    broken = tmp_path / "slurm.conf"
    broken.write_text(slurm.conf.read_text().replace(*change))
    monkeypatch.setenv("SLURM_CONF", str(broken))
    started = time.monotonic()
    result = tensordeck("--run", str(config), "--slurm", timeout=120)
    assert result.returncode == 2, result.stderr
    assert fix in result.stderr
    assert time.monotonic() - started < 60


@pytest.mark.tf
@pytest.mark.parametrize(
    ("example", "states", "done"),
    [("between_graph", {"ps:0": "stopped", "worker:0": "succeeded", "worker:1": "succeeded"},
      ("worker-0", "worker:0 done at global_step")),
     ("quickstart", {"ps:0": "stopped", "worker:0": "stopped", "worker:1": "stopped",
                     "chief:0": "succeeded"}, ("chief-0", "step 100/100"))],
)
def test_the_examples_train_through_slurm(slurm_job, tmp_path, example, states, done):
    """The real examples: their tasks find each other at the hosts and ports Slurm gave them,
    train, and end the run by its rules."""
    config = json.loads((EXAMPLES / f"{example}.json").read_text())
    config.update(script=str(EXAMPLES / config["script"]), args=["--steps", "100"],
                  slurm={"time_limit": "10"})
    path = tmp_path / f"{example}.json"
    path.write_text(json.dumps(config))
    run_dir = tmp_path / "run"
    result = tensordeck("--run", str(path), "--slurm", "--run-dir", str(run_dir), timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    summary = read_summary(run_dir)
    assert {t["task"]: t["state"] for t in summary["tasks"]} == states
    assert done[1] in (run_dir / "logs" / f"{done[0]}.log").read_text()
    assert not wait_no_leftovers(run_dir)


@pytest.mark.parametrize(
    ("slurm_options", "where"),
    [({"extra_sbatch": ["--qos=high\nrm -rf ~"]}, "slurm.extra_sbatch[0]"),
     ({"extra_sbatch": ["--qos=high", "-q high"]}, "slurm.extra_sbatch[1]"),
     ({"time_limit": "ten minutes"}, "slurm.time_limit"),
     ({"gpus_per_task": -1}, "slurm.gpus_per_task"),
     ({"partiton": "gpu"}, "slurm.partiton")],
    ids=["a-script-line", "a-short-option", "time-limit", "negative-gpus", "a-typo"],
)
def test_bad_slurm_settings_are_config_errors_naming_the_field(tmp_path, slurm_options, where):
    (tmp_path / "task.py").write_text("")
    path = tmp_path / "job.json"
    path.write_text(json.dumps({"name": "t", "strategy": "single", "script": "task.py",
                                "slurm": slurm_options}))
    result = tensordeck("validate", str(path))
    assert result.returncode == 2 and f"{where}: " in result.stderr, result.stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_queued_job_says_so_and_a_stop_cancels_it(slurm_job, slurm, signum):
    """A job Slurm holds (it may begin only in an hour) is said to wait, with its id and
    Slurm's reason; Ctrl+C or SIGTERM to the launcher then cancels it: no traceback, nothing
    left in the queue, nothing ran."""
    config = slurm_job(slurm={"partition": slurm.partition, "extra_sbatch": ["--begin=now+3600"]})
    launcher = subprocess.Popen(
        [sys.executable, "-m", "core", "--run", str(config), "--slurm"], cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_read_lines, args=(launcher.stdout, lines), daemon=True).start()
    try:
        first = lines.get(timeout=60)  # (the launcher said nothing for the whole wait before)
        jobs = slurm.client("squeue", "-h", "-o", "%i %T %r").stdout.split()
        assert jobs[1:] == ["PENDING", "BeginTime"], (first, jobs)
        assert first == (f"tensordeck: Slurm job {jobs[0]} is queued (BeginTime): the tasks "
                         "start when Slurm grants it\n")
        launcher.send_signal(signum)
        launcher.wait(timeout=60)
    finally:
        launcher.kill()
    out = "".join(iter(lambda: lines.get(timeout=30), None))
    assert launcher.returncode == 128 + signum, out
    assert out == ("tensordeck: stopped while the Slurm job waited in the queue: it was "
                   "cancelled; nothing ran.\n")
    assert slurm.wait_empty() == []
    assert not (config.parent / "runs").exists()


def _read_lines(stream, into: queue.Queue) -> None:
    """``stream``'s lines into ``into``, then None at its end."""
    for line in stream:
        into.put(line)
    into.put(None)


def test_dry_run_refuses_a_job_slurm_can_never_start(slurm_job, slurm):
    """More tasks than the partition's CPUs: salloc would queue it for ever; Slurm's own test
    (sbatch --test-only) refuses it, and so does the run, before anything is submitted."""
    from tests.slurm import CPUS

    config = slurm_job("multi_worker_mirrored", tasks=[{"role": "worker", "count": CPUS + 1}])
    for options in (["--dry-run"], []):
        result = tensordeck("--run", str(config), "--slurm", *options, timeout=60)
        assert result.returncode == 2, result.stdout + result.stderr
        assert f"slurm: Slurm refused the job ({CPUS + 1} tasks; sbatch --test-only: " \
               "allocation failure: Requested node configuration is not available)" \
               in result.stderr
        assert slurm.queue() == [] and not (config.parent / "runs").exists()


@pytest.mark.parametrize("name", ["a$(touch${IFS}PWN)b", "x;id", "x--mail-user=a@b", "名前&1",
                                  "`id`", "!x~"])
def test_an_exported_job_name_reaches_slurm_as_one_word(slurm_job, slurm, tmp_path, name):
    """The real sbatch reads the exported #SBATCH lines: the job's name arrives whole and no
    other option comes with it."""
    config = slurm_job(name=name)
    out = tmp_path / "job.sbatch"
    assert tensordeck("export", str(config), "--slurm", str(out)).returncode == 0
    held = slurm.client("sbatch", "--hold", "--parsable", str(out), cwd=tmp_path)
    assert held.returncode == 0, held.stderr
    job = held.stdout.strip()
    try:
        shown = slurm.client("squeue", "-h", f"--jobs={job}", "-o", "%j|%u").stdout.strip()
        mail = slurm.client("scontrol", "show", "job", job).stdout
    finally:
        slurm.client("scancel", job)
    assert shown == f"{name}|root"
    assert "MailUser=a@b" not in mail
    assert not list(tmp_path.rglob("PWN"))


def test_a_long_wait_is_said_again_less_and_less_often():
    """A queued job is said at once, then after half a minute, each pause twice the one before,
    at most ten minutes: a night in the queue is a few dozen lines, each with the wait so far."""
    from itertools import islice

    from core.describe import describe_event
    from core.events import SlurmQueued
    from core.slurm.launch import queue_pauses

    assert list(islice(queue_pauses(), 7)) == [30, 60, 120, 240, 480, 600, 600]
    assert describe_event(SlurmQueued(0, "7", "Priority", 0), "en") == (
        "Slurm job 7 is queued (Priority): the tasks start when Slurm grants it")
    assert describe_event(SlurmQueued(0, "7", "Priority", 7500), "en") == (
        "Slurm job 7 is still queued (Priority) after 2 h 5 min")
    assert describe_event(SlurmQueued(0, "7", "Priority", 45), "zh_CN") == (
        "Slurm 作业 7 仍在排队（Priority），已等待 45 s")
