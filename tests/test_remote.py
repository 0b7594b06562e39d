"""Tasks on LAN nodes, against real OpenSSH servers on 127.0.0.2 and 127.0.0.3 (two
"machines" that are this one): host keys, login, a real TF job across nodes, dropped
connections, failures, Ctrl+C, and passwords that never reach a file."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from tests.conftest import EXAMPLES, REPO, processes_with, read_summary, tensordeck, wait_none
from tests.sshd import SshServer, keygen, sshd_missing_reason, start_lab, start_sshd, stop_lab

pytestmark = pytest.mark.skipif(
    sshd_missing_reason() is not None, reason=sshd_missing_reason() or ""
)

PYTHON = sys.executable


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Nodes a and b with key login; a HOME whose known_hosts trusts both."""
    lab = start_lab(tmp_path_factory.mktemp("lab"), {"a": "127.0.0.2", "b": "127.0.0.3"})
    yield lab
    stop_lab(lab)


def node(server: SshServer, key: Path, workdir: Path, **extra) -> dict:
    return {
        "host": server.address,
        "port": server.port,
        "user": "root",
        "python": PYTHON,
        "workdir": str(workdir),
        "key_file": str(key),
        **extra,
    }


def write_job(folder: Path, lab: dict, code: str | None = None, **config) -> Path:
    """job.json in ``folder``: ps on node a, two workers on node b; ``code`` as task.py."""
    folder.mkdir(parents=True, exist_ok=True)
    a, b = lab["servers"]["a"], lab["servers"]["b"]
    data = {
        "name": "lan",
        "strategy": "between_graph",
        "stop_grace_seconds": 3,
        "nodes": {
            "a": node(a, lab["key"], folder / "node-a"),
            "b": node(b, lab["key"], folder / "node-b"),
        },
        "tasks": [{"role": "ps", "node": "a"}, {"role": "worker", "count": 2, "node": "b"}],
    }
    if code is not None:
        (folder / "task.py").write_text(code)
        data["script"] = "task.py"
    data.update(config)
    path = folder / "job.json"
    path.write_text(json.dumps(data))
    return path


@contextmanager
def listening_port(address: str):
    """A port that something listens on at ``address``: taken, as a node's task port."""
    import socket

    with socket.socket() as sock:
        sock.bind(("", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


def env_for(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "HOME": str(home), **extra}


def node_leftovers(folder: Path) -> list[psutil.Process]:
    """Processes started on the nodes for jobs in ``folder`` (their run folders are there)."""
    return processes_with(
        lambda env: env.get("TENSORDECK_RUN_DIR", "").startswith(str(folder / "node-"))
    )


def wait_gone(folder: Path, timeout: float = 8) -> list[psutil.Process]:
    return wait_none(lambda: node_leftovers(folder), timeout)


HANG = """
import os, subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # a grandchild
print("serving", os.environ["TENSORDECK_TASK"], flush=True)
time.sleep(600)
"""


def test_unknown_host_is_refused_with_its_fingerprint_then_trusted(lab, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    config = write_job(tmp_path / "job", lab, "print('x')")
    result = tensordeck("--run", str(config), env=env_for(home))
    assert result.returncode == 2
    a = lab["servers"]["a"]
    assert (
        f"nodes.a: 127.0.0.2:{a.port} is not a known host (key fingerprint SHA256:" in result.stderr
    )
    assert f"tensordeck trust 127.0.0.2 --port {a.port}" in result.stderr
    assert not (config.parent / "runs").exists()
    trusted = tensordeck("trust", "127.0.0.2", "--port", str(a.port), "--yes", env=env_for(home))
    assert trusted.returncode == 0 and "Added to known_hosts" in trusted.stdout
    assert a.host_key_pub.split()[1] in (home / ".ssh" / "known_hosts").read_text()


def test_changed_host_key_is_always_refused(lab, tmp_path):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    a, b = lab["servers"]["a"], lab["servers"]["b"]
    other = keygen(tmp_path / "impostor").with_suffix(".pub").read_text().split()
    (home / ".ssh" / "known_hosts").write_text(
        f"[{a.address}]:{a.port} {other[0]} {other[1]}\n[{b.address}]:{b.port} {b.host_key_pub}\n"
    )
    config = write_job(tmp_path / "job", lab, "print('x')")
    result = tensordeck("--run", str(config), env=env_for(home))
    assert result.returncode == 2
    assert f"nodes.a: the host key of 127.0.0.2:{a.port} CHANGED" in result.stderr
    assert "nodes.b" not in result.stderr
    refused = tensordeck("trust", a.address, "--port", str(a.port), "--yes", env=env_for(home))
    assert refused.returncode == 1 and "known with another key; refusing" in refused.stderr


@pytest.mark.tf
def test_between_graph_across_two_nodes(lab, tmp_path):
    """The TF1 example with its ps on one machine and its workers on the other."""
    example = json.loads((EXAMPLES / "between_graph.json").read_text())
    config = write_job(
        tmp_path / "job",
        lab,
        None,
        script=str(EXAMPLES / example["script"]),
        args=example["args"],
        env=example["env"],
    )
    run_dir = tmp_path / "run"
    result = tensordeck("--run", str(config), "--run-dir", str(run_dir), env=env_for(lab["home"]))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    summary = read_summary(run_dir)
    assert summary["status"] == "succeeded"
    states = {t["task"]: (t["state"], t["host"]) for t in summary["tasks"]}
    assert states == {
        "ps:0": ("stopped", "127.0.0.2"),
        "worker:0": ("succeeded", "127.0.0.3"),
        "worker:1": ("succeeded", "127.0.0.3"),
    }
    assert "done at global_step" in (run_dir / "logs" / "worker-1.log").read_text()
    resolved = json.loads((run_dir / "config.json").read_text())
    worker = next(t for t in resolved["tasks"] if t["task"] == "worker:0")
    # The script is in the run's own folder on the node.
    node_run = tmp_path / "job" / "node-b" / "runs" / "run"
    assert worker["argv"][1] == str(node_run / "train_between_graph.py")
    assert worker["env"]["TENSORDECK_RUN_DIR"] == str(node_run)
    assert f"--ps_hosts=127.0.0.2:{summary['tasks'][0]['port']}" in worker["argv"]
    assert not wait_gone(tmp_path / "job")


def tree(folder: Path) -> dict[str, str]:
    """Every path under ``folder`` with its file's text ("" for a folder)."""
    return {
        p.relative_to(folder).as_posix(): (p.read_text() if p.is_file() else "")
        for p in sorted(folder.rglob("*"))
    }


def test_validate_dry_run_and_export_change_nothing_on_the_nodes(lab, tmp_path):
    """They log in and check the ports there (a bad port is still found), but make no run
    folder and copy no script; a real run then does both, in its own folder."""
    script = "import os\nprint('ran in', os.getcwd(), os.environ['TENSORDECK_RUN_DIR'])\n"
    config = write_job(tmp_path / "job", lab, script)
    for node_dir in ("node-a", "node-b"):  # a workdir with the user's own file in it
        (tmp_path / "job" / node_dir).mkdir()
        (tmp_path / "job" / node_dir / "notes.txt").write_text("mine")
    before = tree(tmp_path / "job")
    env = env_for(lab["home"])
    checks = [
        ["validate", str(config)],
        ["--run", str(config), "--dry-run"],
        ["export", str(config), "--commands", "-"],
    ]
    for args in checks:
        result = tensordeck(*args, env=env)
        assert result.returncode == 0, (args, result.stdout, result.stderr)
        assert tree(tmp_path / "job") == before, args
    dry = tensordeck("--run", str(config), "--dry-run", env=env).stdout
    # The node's command, with the port picked there, and the folder a run would make.
    assert f"command (on node b): {PYTHON} {tmp_path / 'job' / 'node-b' / 'runs'}" in dry
    assert "--ps_hosts=127.0.0.2:" in dry and "_remote-task" not in dry

    with listening_port(lab["servers"]["a"].address) as taken:  # checked on the node
        bad = write_job(tmp_path / "bad", lab, script,
                        tasks=[{"role": "ps", "node": "a", "port": taken},
                               {"role": "worker", "node": "b"}])
        refused = tensordeck("validate", str(bad), env=env)
    assert refused.returncode == 2 and f"nodes.a: port {taken}" in refused.stderr

    ran = tensordeck("--run", str(config), env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    [run] = (tmp_path / "job" / "node-b" / "runs").iterdir()
    assert (run / "task.py").read_text() == script
    assert f"ran in {run} {run}" in ran.stdout
    assert (tmp_path / "job" / "node-a" / "notes.txt").read_text() == "mine"


def test_two_jobs_on_one_node_each_run_their_own_script(lab, tmp_path):
    """Same script name, same run folder name, same node: each job runs its own script."""
    configs = []
    for job in ("one", "two"):
        code = f"print('I am job {job}')\n"
        configs.append(write_job(tmp_path / job, lab, code, strategy="single",
                                 run_dir=str(tmp_path / job / "run"),
                                 nodes={"a": node(lab["servers"]["a"], lab["key"],
                                                  tmp_path / "shared")},
                                 tasks=[{"role": "worker", "node": "a"}]))
    env = env_for(lab["home"])
    procs = [_start(config, lab["home"]) for config in configs]  # at once, on one workdir
    outs = [proc.communicate(timeout=120)[0] for proc in procs]
    for job, proc, out in zip(("one", "two"), procs, outs, strict=True):
        assert proc.returncode == 0, out
        other = "two" if job == "one" else "one"
        assert f"I am job {job}" in out and f"I am job {other}" not in out
    folders = sorted(p.name for p in (tmp_path / "shared" / "runs").iterdir())
    assert folders == ["run", "run-2"]  # one run folder per run, never shared
    scripts = {(tmp_path / "shared" / "runs" / f / "task.py").read_text() for f in folders}
    assert scripts == {"print('I am job one')\n", "print('I am job two')\n"}
    again = tensordeck("--run", str(configs[0]), "--run-dir", str(tmp_path / "one" / "run2"),
                       env=env)
    assert again.returncode == 0 and "I am job one" in again.stdout


SECRET_TASK = """
import os, time
print("secret ok" if os.environ["API_TOKEN"] == os.environ["EXPECTED"] else "secret wrong",
      flush=True)
time.sleep(float(os.environ["HOLD"]))
"""


def test_no_secret_on_any_command_line_during_a_lan_run(lab, tmp_path):
    token = secrets.token_hex(16)
    config = write_job(tmp_path / "job", lab, SECRET_TASK, strategy="single",
                       tasks=[{"role": "worker", "node": "a"}],
                       env={"API_TOKEN": token, "EXPECTED": token, "HOLD": "600"})
    proc = _start(config, lab["home"])
    try:
        deadline = time.monotonic() + 60
        logs = tmp_path / "job" / "runs"
        # Running on the node, and its first line relayed (else a stop may come before it).
        while not any("secret" in log.read_text() for log in logs.glob("*/logs/worker-0.log")):
            assert time.monotonic() < deadline and proc.poll() is None, "the task did not start"
            time.sleep(0.1)
        assert any(p.environ().get("API_TOKEN") == token for p in node_leftovers(tmp_path / "job"))
        # The token on any command line of the machine; the stand-ins among this launcher's
        # own (other tests may run beside this one: the Windows lane's, under Wine, in CI).
        ours = {c.pid for c in psutil.Process(proc.pid).children(recursive=True)}
        seen = []
        for p in psutil.process_iter():
            try:
                line = " ".join(p.cmdline())
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
            if token in line or ("_remote-task" in line and p.pid in ours):
                seen.append(line)
        # The stand-in runs, with nothing of the task's environment on its command line.
        assert seen and all(line.endswith(" _remote-task") for line in seen), seen
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    assert "[worker-0] secret ok" in out
    assert not wait_gone(tmp_path / "job")


def test_remote_worker_failure_fails_the_run_with_its_code(lab, tmp_path):
    script = """
import os, sys, time
if os.environ["TENSORDECK_TASK"] == "ps:0":
    time.sleep(600)
print("worker", os.environ["TENSORDECK_TASK"], flush=True)
sys.exit(7 if os.environ["TENSORDECK_TASK"] == "worker:1" else 0)
"""
    config = write_job(tmp_path / "job", lab, script)
    result = tensordeck("--run", str(config), env=env_for(lab["home"]))
    assert result.returncode == 7, result.stdout + result.stderr
    run_dir = next((config.parent / "runs").iterdir())
    summary = read_summary(run_dir)
    states = {t["task"]: (t["state"], t["exit_code"]) for t in summary["tasks"]}
    assert states["worker:1"] == ("failed", 7) and states["ps:0"] == ("stopped", 143)
    assert (run_dir / "logs" / "worker-1.log").read_text() == "worker worker:1\n"
    assert not wait_gone(tmp_path / "job")


def _start(config: Path, home: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "core", "--run", str(config)],
        cwd=REPO,
        env=env_for(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait_serving(folder: Path, count: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while (
        len([p for p in node_leftovers(folder) if "sleep(600)" not in " ".join(p.cmdline())])
        < count
        or len(node_leftovers(folder)) < 2 * count
    ):
        if time.monotonic() > deadline:
            raise AssertionError("remote tasks did not start")
        time.sleep(0.1)


def test_dropped_connection_leaves_nothing_on_the_node(lab, tmp_path):
    config = write_job(tmp_path / "job", lab, HANG)
    proc = _start(config, lab["home"])
    _wait_serving(tmp_path / "job", 3)
    stand_ins = [
        p
        for p in psutil.Process(proc.pid).children(recursive=True)
        if "_remote-task" in p.cmdline()
    ]
    assert len(stand_ins) == 3
    for p in stand_ins:  # the client side of every connection dies at once
        p.kill()
    proc.communicate(timeout=30)
    assert not wait_gone(tmp_path / "job")


def test_ctrl_c_stops_remote_tasks(lab, tmp_path):
    config = write_job(tmp_path / "job", lab, HANG)
    proc = _start(config, lab["home"])
    _wait_serving(tmp_path / "job", 3)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, out
    summary = read_summary(next((config.parent / "runs").iterdir()))
    assert {t["state"] for t in summary["tasks"]} == {"stopped"}
    assert not wait_gone(tmp_path / "job")


# --- passwords ----------------------------------------------------------------------------------

USER = "tensordeck-test"


@pytest.fixture(scope="module")
def password_node(tmp_path_factory):
    """A node with password login only, as a dedicated user with a fresh random password."""
    if not shutil.which("useradd") or not shutil.which("chpasswd"):
        pytest.skip("useradd/chpasswd not available")
    if subprocess.run(["id", USER], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "-m", "-s", "/bin/sh", USER], check=True)
    password = secrets.token_urlsafe(16)
    subprocess.run(["chpasswd"], input=f"{USER}:{password}", text=True, check=True)
    root = tmp_path_factory.mktemp("pw")
    empty = root / "no_keys"
    empty.write_text("")
    server = start_sshd(root / "c", "127.0.0.4", empty, password_auth=True)
    workdir = Path(tempfile.mkdtemp(prefix="tensordeck-node-"))  # the user must reach it
    workdir.chmod(0o777)
    yield server, password, workdir
    server.stop()
    shutil.rmtree(workdir, ignore_errors=True)


def test_password_from_keyring_wrong_one_refused_and_never_written(password_node, tmp_path):
    server, password, workdir = password_node
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "known_hosts").write_text(
        f"[{server.address}]:{server.port} {server.host_key_pub}\n"
    )
    # No desktop keyring here: the file backend, chosen explicitly and allowed explicitly
    # (tensordeck login refuses it otherwise, see test_attacks).
    env = env_for(
        home,
        PYTHON_KEYRING_BACKEND="keyrings.alt.file.PlaintextKeyring",
        TENSORDECK_ALLOW_PLAINTEXT_KEYRING="1",
        XDG_DATA_HOME=str(tmp_path / "data"),
    )
    (tmp_path / "task.py").write_text("import getpass; print('logged in as', getpass.getuser())")
    config = tmp_path / "job.json"
    config.write_text(
        json.dumps(
            {
                "name": "pw",
                "strategy": "single",
                "script": "task.py",
                "nodes": {
                    "c": {
                        "host": server.address,
                        "port": server.port,
                        "user": USER,
                        "python": "/usr/bin/python3",
                        "workdir": str(workdir),
                        "password": True,
                    }
                },
                "tasks": [{"role": "worker", "node": "c"}],
            }
        )
    )

    missing = tensordeck("--run", str(config), env=env)
    assert missing.returncode == 2 and "tensordeck login CONFIG c" in missing.stderr

    stored = tensordeck("login", str(config), "c", "--password-stdin", input="wrong\n", env=env)
    assert stored.returncode == 0, stored.stderr
    wrong = tensordeck("--run", str(config), env=env)
    assert wrong.returncode == 2 and "refused the login (the keyring password)" in wrong.stderr

    tensordeck("login", str(config), "c", "--password-stdin", input=password + "\n", env=env)
    ok = tensordeck("--run", str(config), env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"logged in as {USER}" in ok.stdout
    for path in [config, *tmp_path.joinpath("runs").rglob("*")]:
        if path.is_file():
            assert password not in path.read_text(errors="replace"), path
    assert password not in ok.stdout + ok.stderr + wrong.stdout + wrong.stderr


def test_trust_refuses_a_key_other_than_the_one_approved(lab, tmp_path, monkeypatch):
    import asyncio

    from core.remote.connect import RemoteError, trust_host

    monkeypatch.setenv("HOME", str(tmp_path))
    a = lab["servers"]["a"]
    with pytest.raises(RemoteError, match="nothing was trusted"):
        asyncio.run(trust_host(a.address, a.port, "SHA256:not-the-key-shown"))
    assert not (tmp_path / ".ssh" / "known_hosts").exists()


def test_a_node_that_fails_leaves_nothing_on_the_others(lab, tmp_path):
    """Node b cannot run the job (no such interpreter): the run is refused and node a, which
    was ready first, keeps no run folder and no script of it."""
    config = write_job(tmp_path / "job", lab, "print('ran')\n")
    data = json.loads(config.read_text())
    data["nodes"]["b"]["python"] = "/nonexistent/python3"
    config.write_text(json.dumps(data))
    result = tensordeck("--run", str(config), env=env_for(lab["home"]))
    assert result.returncode == 2 and "nodes.b: " in result.stderr, result.stderr
    assert not list((tmp_path / "job" / "node-a" / "runs").iterdir())
    assert not (tmp_path / "job" / "runs").exists()


def test_a_run_folder_that_cannot_be_made_leaves_nothing_on_the_nodes(lab, tmp_path,
                                                                      monkeypatch):
    """The nodes are ready (their run folders made, the script copied) when this machine's
    run folder turns out to be taken: the session leaves nothing on the nodes either."""
    from core.run import RunFolderError
    from core.session import RunSession

    monkeypatch.setenv("HOME", str(lab["home"]))  # its known_hosts trusts the nodes
    config = write_job(tmp_path / "job", lab, "print('ran')\n")
    mine = tmp_path / "mine"
    session = RunSession(config, run_dir=mine)
    session.check()
    mine.mkdir()
    (mine / "notes.txt").write_text("another program's file, written meanwhile")
    with pytest.raises(RunFolderError):
        session.open(lambda event: None)
    for node_dir in ("node-a", "node-b"):
        assert not list((tmp_path / "job" / node_dir / "runs").iterdir()), node_dir
    assert (mine / "notes.txt").exists()
