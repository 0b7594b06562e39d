"""A real one-machine Slurm cluster for the tests (as tests/sshd.py serves OpenSSH): munged,
slurmctld and slurmd from Debian's slurm-wlm, with a private slurm.conf, munge key, ports,
state and spool folders under a temp folder; this host is controller and only node. Clients
find it through SLURM_CONF (and the munge socket named in the config's AuthInfo). With ``gpus``
the node has that many GPUs (GRES gpu, backed by empty files: Slurm counts and hands them out,
``SLURM_GPUS_ON_NODE`` says how many a step got; no CUDA device is behind them).

The ``slurm`` fixture (tests/conftest.py) is one such cluster, without GPUs, for the whole test
session; ``slurm_gpus`` one with two GPUs."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "salloc", "srun", "sinfo", "squeue", "scancel", "scontrol")
PARTITION = "debug"
#: More CPUs than this machine has (config_overrides): a run of 4 tasks fits on 2 cores.
CPUS = 8
READY_SECONDS = 30.0


def slurm_missing_reason() -> str | None:
    if sys.platform == "win32":
        return "the test Slurm cluster is Debian's slurm-wlm, which the Windows lane cannot start"
    missing = [name for name in DAEMONS if not (shutil.which(name) or Path("/usr/sbin", name)
                                                 .exists())]
    missing += [name for name in CLIENTS if not shutil.which(name)]
    if missing:
        return f"Slurm not installed ({', '.join(missing)}): apt-get install slurm-wlm munge"
    if os.geteuid() != 0:
        return "the test Slurm cluster runs its daemons as root"
    return None


def _daemon(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class SlurmCluster:
    root: Path
    conf: Path
    partition: str
    processes: list[subprocess.Popen] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        """What a client (and a launcher) needs to reach this cluster."""
        return {"SLURM_CONF": str(self.conf)}

    def client(self, *argv: str, timeout: float = 30, cwd: Path | None = None
               ) -> subprocess.CompletedProcess:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **self.env}, cwd=cwd)

    def queue(self) -> list[str]:
        """The jobs and steps Slurm still has: ``JOBID STATE`` lines and step ids."""
        jobs = self.client("squeue", "-h", "-o", "%i %T").stdout.split()
        steps = self.client("squeue", "-h", "-s", "-o", "%i").stdout.split()
        return jobs + steps

    def wait_empty(self, seconds: float = 20) -> list[str]:
        """Wait until no job is left; what is left then ([] when the queue emptied)."""
        deadline = time.monotonic() + seconds
        while (left := self.queue()) and time.monotonic() < deadline:
            time.sleep(0.2)
        return left

    def stop(self) -> None:
        self.client("scancel", "--full", "-u", "root")
        for process in reversed(self.processes):
            process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _config(root: Path, host: str, socket_path: Path, gpus: int) -> str:
    return "\n".join([
        "ClusterName=tensordeck-test",
        *(["GresTypes=gpu"] if gpus else []),
        f"SlurmctldHost={host}(127.0.0.1)",  # whatever the host's name resolves to
        f"SlurmctldPort={_free_port()}",
        f"SlurmdPort={_free_port()}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={socket_path}",
        f"StateSaveLocation={root / 'state'}",
        f"SlurmdSpoolDir={root / 'spool'}",
        f"SlurmctldPidFile={root / 'slurmctld.pid'}",
        f"SlurmdPidFile={root / 'slurmd.pid'}",
        f"SlurmctldLogFile={root / 'slurmctld.log'}",
        f"SlurmdLogFile={root / 'slurmd.log'}",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "MpiDefault=none",
        "ReturnToService=2",
        "SlurmdParameters=config_overrides",
        # Fast ends: a cancelled job's steps are killed and purged within seconds.
        "KillWait=2",
        "MinJobAge=2",
        "InactiveLimit=0",
        "SchedulerParameters=sched_interval=1",
        f"NodeName={host} NodeAddr=127.0.0.1 CPUs={CPUS}{f' Gres=gpu:{gpus}' if gpus else ''} "
        "State=UNKNOWN",
        f"PartitionName={PARTITION} Nodes={host} Default=YES MaxTime=INFINITE State=UP "
        "OverSubscribe=FORCE",
        "",
    ])


def start_slurm(root: Path, gpus: int = 0) -> SlurmCluster:
    """Start munged, slurmctld and slurmd for a cluster kept under ``root`` (its node with
    ``gpus`` GPUs); return once ``sinfo`` shows the node idle. RuntimeError (with the daemons'
    logs) when it does not."""
    for sub in ("state", "spool", "munge"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    os.chmod(root / "munge", 0o700)
    key = root / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    os.chmod(key, 0o400)
    socket_path = root / "munge" / "munge.socket"
    host = socket.gethostname().split(".")[0]
    conf = root / "slurm.conf"
    conf.write_text(_config(root, host, socket_path, gpus))
    if gpus:  # gres.conf beside slurm.conf: one file per GPU stands for its device
        devices = [root / f"gpu{i}" for i in range(gpus)]
        for device in devices:
            device.touch()
        (root / "gres.conf").write_text(
            f"NodeName={host} Name=gpu File={root}/gpu[0-{gpus - 1}]\n")
    cluster = SlurmCluster(root, conf, PARTITION)
    log = open(root / "daemons.out", "ab")  # noqa: SIM115 - the daemons hold it
    start = [
        [_daemon("munged"), "-F", "-f", f"--socket={socket_path}", f"--key-file={key}",
         f"--pid-file={root / 'munge' / 'munged.pid'}", f"--log-file={root / 'munge.log'}",
         f"--seed-file={root / 'munge' / 'seed'}"],
        [_daemon("slurmctld"), "-D", "-i", "-f", str(conf)],
        [_daemon("slurmd"), "-D", "-f", str(conf), "-N", host],
    ]
    try:
        for argv in start:
            cluster.processes.append(subprocess.Popen(
                argv, stdout=log, stderr=log, env={**os.environ, **cluster.env}
            ))
            if argv[0].endswith("munged"):
                _wait_for(lambda: socket_path.exists(), "munged's socket", cluster)
        _wait_for(lambda: _idle(cluster), f"node {host} idle in sinfo", cluster)
    except BaseException:
        cluster.stop()
        raise
    finally:
        log.close()
    return cluster


def _idle(cluster: SlurmCluster) -> bool:
    result = cluster.client("sinfo", "-h", "-o", "%t", timeout=10)
    return result.returncode == 0 and result.stdout.split() == ["idle"]


def _wait_for(ready, what: str, cluster: SlurmCluster) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if ready():
            return
        dead = [p.args[0] for p in cluster.processes if p.poll() is not None]
        if dead:
            break
        time.sleep(0.2)
    logs = "\n".join(
        f"--- {p.name}:\n{p.read_text(errors='replace')[-2000:]}"
        for p in [*sorted(cluster.root.glob("*.log")), cluster.root / "daemons.out"]
        if p.exists()
    )
    raise RuntimeError(f"Slurm test cluster: no {what} after {READY_SECONDS:.0f} s\n{logs}")


def session_cluster(tmp_path_factory, gpus: int = 0):
    """A cluster for a session-scoped fixture (tests/conftest.py: ``slurm``, ``slurm_gpus``);
    skips where one cannot start."""
    if reason := slurm_missing_reason():
        pytest.skip(reason)
    cluster = start_slurm(tmp_path_factory.mktemp("slurm"), gpus)
    yield cluster
    cluster.stop()
