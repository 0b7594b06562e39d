"""``tensordeck --run FILE --slurm --slurm-login NODE``: the same Slurm run as ``--slurm``, with
every Slurm command run on the cluster's login node over SSH. The login node is a real OpenSSH
server on loopback (tests/sshd.py) whose sessions reach the real one-machine Slurm cluster
(tests/slurm.py); its "shared file system" is this machine's. Bad login nodes are refused with
exit 2 and nothing submitted; a run leaves no job, step, process or SSH session behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import psutil
import pytest

from tests.conftest import (
    only_run_dir,
    processes_with,
    read_summary,
    tensordeck,
    wait_no_leftovers,
    wait_none,
)
from tests.sshd import SshServer, sshd_missing_reason, start_lab, stop_lab
from tests.test_slurm import TASK, _logs, _said, interrupt, start_and_wait, write_job

pytestmark = pytest.mark.skipif(
    sshd_missing_reason() is not None, reason=sshd_missing_reason() or ""
)


@pytest.fixture(scope="module")
def login(slurm, tmp_path_factory):
    """Login nodes, each a real sshd whose sessions find the test cluster (SLURM_CONF): "login"
    (a good one), "bare" (no Slurm commands on its PATH), "down" (its controller does not
    answer). Key login; the lab's HOME trusts them all."""
    root = tmp_path_factory.mktemp("login")
    bare_bin = root / "bare-bin"
    bare_bin.mkdir()
    (bare_bin / "sh").symlink_to("/bin/sh")
    broken = root / "down.conf"
    broken.write_text(slurm.conf.read_text().replace(
        "SlurmctldPort=", "MessageTimeout=2\nSlurmctldPort=1\n#"))
    lab = start_lab(root, {"login": "127.0.0.2", "bare": "127.0.0.4", "down": "127.0.0.5"}, {
        "login": f"SetEnv SLURM_CONF={slurm.conf}\n",
        "bare": f"SetEnv SLURM_CONF={slurm.conf} PATH={bare_bin}\n",
        "down": f"SetEnv SLURM_CONF={broken}\n",
    })
    yield lab
    stop_lab(lab)


def _node(server: SshServer, key: Path, workdir: Path) -> dict:
    return {"host": server.address, "port": server.port, "user": "root",
            "python": sys.executable, "workdir": str(workdir), "key_file": str(key)}


@pytest.fixture
def login_job(login, slurm, tmp_path):
    """``login_job(**config)``: task.py and job.json (the cluster's "shared" folder: cluster/,
    nodes named as the lab's servers). Afterwards the queue is empty and no process or SSH
    session of the run is left on the login node."""

    nodes = {name: _node(server, login["key"], tmp_path / "cluster")
             for name, server in login["servers"].items()}

    def make(strategy: str = "between_graph", **config) -> Path:
        return write_job(tmp_path, slurm, strategy, nodes=nodes, **config)

    yield make
    assert slurm.wait_empty() == [], "a Slurm job or step was left behind"
    for server in login["servers"].values():
        assert _wait_no_sessions(server) == [], "a process or SSH session was left behind"


def _sessions(server: SshServer) -> list[psutil.Process]:
    """The server's SSH sessions (its children: one per connection, and what they run) and
    every process started in one (they carry its port in SSH_CONNECTION, srun's tasks too),
    wherever they were reparented."""
    found = processes_with(lambda env: env.get("SSH_CONNECTION", "").endswith(f" {server.port}"))
    with suppress(psutil.NoSuchProcess):
        found += [p for p in psutil.Process(server.process.pid).children(recursive=True)
                  if p not in found and p.status() != psutil.STATUS_ZOMBIE]
    return found


def _wait_no_sessions(server: SshServer, timeout: float = 10) -> list[psutil.Process]:
    return wait_none(lambda: _sessions(server), timeout)


def _run(login, config: Path, node: str = "login", *args: str, home: Path | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess:
    return tensordeck("--run", str(config), "--slurm", "--slurm-login", node, *args,
                      timeout=timeout, env=_env(home or login["home"]))


def test_the_quickstart_shaped_job_runs_through_the_login_node(login_job, login):
    config = login_job(
        "parameter_server",
        tasks=[{"role": "chief"}, {"role": "worker", "count": 2}, {"role": "ps", "gpus": []}],
        cluster_spec="tf_config",
    )
    result = _run(login, config)
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = only_run_dir(config)
    summary = read_summary(run_dir)
    assert summary["status"] == "succeeded" and summary["slurm_job"]
    assert {t["task"]: t["state"] for t in summary["tasks"]} == {
        "chief:0": "succeeded", "worker:0": "stopped", "worker:1": "stopped", "ps:0": "stopped"}
    logs = _logs(run_dir)
    assert {_said(log, "slurm").split()[0] for log in logs.values()} == {summary["slurm_job"]}
    assert len({_said(log, "slurm").split()[1] for log in logs.values()}) == 4
    cluster = json.loads(_said(logs["chief-0"], "tf_config"))["cluster"]
    assert len({a for role in cluster.values() for a in role}) == 4
    assert "[chief-0]" in result.stdout and "[ps-0]" in result.stdout
    # Stopped as local --slurm stops them: the task's own SIGTERM.
    assert "stopped by SIGTERM" in logs["ps-0"] and "stopped by SIGTERM" in logs["worker-1"]
    # The tasks ran from the run's folder on the cluster: the script and the runtime module
    # were put there, and every task wrote there (its .up file).
    [remote] = (config.parent / "cluster" / "runs").iterdir()
    assert (remote / "task.py").read_text() == TASK
    assert (remote / "runtime" / "tensordeck_runtime.py").exists()
    assert sorted(p.name for p in remote.glob("*.up")) == ["chief0.up", "ps0.up", "worker0.up",
                                                           "worker1.up"]
    resolved = {t["task"]: t for t in json.loads((run_dir / "config.json").read_text())["tasks"]}
    chief = resolved["chief:0"]
    assert chief["env"]["TENSORDECK_RUN_DIR"] == str(remote)
    assert chief["env"]["PYTHONPATH"] == str(remote / "runtime")
    assert chief["argv"][-2:] == [sys.executable, str(remote / "task.py")]
    assert not wait_no_leftovers(run_dir)


def test_a_worker_exiting_7_fails_the_run_with_7_and_cancels_the_job(login_job, login, slurm):
    config = login_job(env={"FAIL_WORKER1": "7", "HANG_WORKER0": "1"})
    started = time.monotonic()
    result = _run(login, config)
    assert result.returncode == 7, result.stdout + result.stderr
    assert time.monotonic() - started < 30
    summary = read_summary(only_run_dir(config))
    assert summary["status"] == "failed" and summary["exit_code"] == 7
    assert {t["task"]: t["exit_code"] for t in summary["tasks"]}["worker:1"] == 7
    assert slurm.queue() == []
    assert not wait_no_leftovers(only_run_dir(config))


def _env(home: Path) -> dict[str, str]:
    """The launcher's environment: this machine's Slurm is not the one the login node uses."""
    env = {**os.environ, "HOME": str(home)}
    env.pop("SLURM_CONF", None)
    return env


def _start_and_wait(login, config: Path) -> subprocess.Popen:
    return start_and_wait(config, 3, "--slurm-login", "login", env=_env(login["home"]))


def test_ctrl_c_cancels_the_job_and_leaves_no_process_or_ssh_session(login_job, login, slurm):
    config = login_job(env={"HANG": "1"})
    launcher = _start_and_wait(login, config)
    assert slurm.queue() and _sessions(login["servers"]["login"])
    interrupt(launcher, config)
    run_dir = only_run_dir(config)
    assert slurm.wait_empty() == []
    assert _wait_no_sessions(login["servers"]["login"]) == []
    assert not wait_no_leftovers(run_dir)


def test_kill_9_of_the_launcher_still_ends_the_job_its_tasks_and_sessions(login_job, login,
                                                                         slurm):
    """The SSH connections close with their processes: salloc's cat ends (the job goes), and
    each stand-in's agent kills its srun."""
    config = login_job(env={"HANG": "1"})
    launcher = _start_and_wait(login, config)
    assert slurm.queue()
    launcher.kill()
    launcher.communicate(timeout=30)
    assert slurm.wait_empty(30) == []
    assert _wait_no_sessions(login["servers"]["login"], 15) == []
    assert not wait_no_leftovers(only_run_dir(config), timeout=15)


@pytest.mark.parametrize("named", [True, False], ids=["a-node-name", "user-at-host-port"])
def test_an_unknown_host_key_is_refused_with_exit_2_and_nothing_submitted(
    login_job, login, slurm, tmp_path, named
):
    config = login_job()
    server = login["servers"]["login"]
    home = tmp_path / "home"  # no known_hosts
    home.mkdir()
    node = "login" if named else f"root@127.0.0.2:{server.port}"
    result = _run(login, config, node, home=home)
    assert result.returncode == 2, result.stderr
    where = "nodes.login" if named else "--slurm-login"
    assert (f"{where}: 127.0.0.2:{server.port} is not a known host (key fingerprint SHA256:"
            in result.stderr)
    assert f"Fix: tensordeck trust 127.0.0.2 --port {server.port}" in result.stderr
    assert slurm.queue() == [] and not (config.parent / "runs").exists()
    assert not (config.parent / "cluster").exists()


def test_an_unknown_node_name_exits_2_naming_the_fix(login_job, login):
    config = login_job()
    result = _run(login, config, "logn")
    assert result.returncode == 2, result.stderr
    [line] = [line for line in result.stderr.splitlines() if "--slurm-login" in line]
    assert line.endswith("--slurm-login: no node 'logn' in the config's nodes (nodes: login, "
                         "bare, down); name one of them, or give the login node as "
                         "user@host[:port]")
    assert not (config.parent / "runs").exists()


@pytest.mark.parametrize(
    ("node", "fix"),
    [("bare", "salloc, sbatch, srun, scancel, scontrol, sinfo, squeue not found on the PATH of the "
              "login node bare's SSH sessions"),
     ("down", "the Slurm controller does not answer: start slurmctld"),
     ("root@127.0.0.1:1", "cannot reach the SSH server at 127.0.0.1:1")],
    ids=["no-slurm-commands", "controller-down", "unreachable"],
)
def test_a_login_node_that_cannot_submit_exits_2_naming_the_fix(login_job, login, slurm, node,
                                                                 fix):
    config = login_job()
    started = time.monotonic()
    result = _run(login, config, node)
    assert result.returncode == 2, result.stderr
    assert fix in result.stderr
    assert time.monotonic() - started < 30
    assert slurm.queue() == [] and not (config.parent / "runs").exists()
    assert not (config.parent / "cluster").exists()


def test_dry_run_asks_the_cluster_through_the_login_node_and_submits_nothing(login_job, login,
                                                                              slurm):
    config = login_job(slurm={"partition": "nosuch"})
    result = _run(login, config, "login", "--dry-run")
    assert result.returncode == 2 and "--slurm-login: " not in result.stderr
    assert "slurm.partition: no partition 'nosuch'" in result.stderr, result.stderr
    config = login_job()
    result = _run(login, config, "login", "--dry-run")
    assert result.returncode == 0 and "[worker-1]" in result.stdout, result.stderr
    assert slurm.queue() == [] and not (config.parent / "runs").exists()
