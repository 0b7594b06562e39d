"""Preflight of LAN jobs against real OpenSSH servers on 127.0.0.6 and 127.0.0.7 (two "machines"
that are this one), with real listeners and real connection tests between them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.config import parse_config
from core.remote import preflight as preflight_module
from core.remote.preflight import Check, firewall_fix, run_preflight, talks_to
from tests.conftest import tensordeck
from tests.sshd import SshServer, sshd_missing_reason, start_lab, stop_lab

pytestmark = pytest.mark.skipif(
    sshd_missing_reason() is not None, reason=sshd_missing_reason() or ""
)

NO_TF_PYTHON = "/usr/bin/python3"  # the system Python here: no TensorFlow


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Nodes a and b with key login; a HOME whose known_hosts trusts both."""
    lab = start_lab(tmp_path_factory.mktemp("preflight-lab"), {"a": "127.0.0.6", "b": "127.0.0.7"})
    yield lab
    stop_lab(lab)


@pytest.fixture
def home(lab, monkeypatch) -> Path:
    monkeypatch.setenv("HOME", str(lab["home"]))
    return lab["home"]


def free_ports(count: int) -> list[int]:
    """Ports free on every interface now (the test then names them in the config)."""
    socks = []
    for _ in range(count):
        sock = socket.socket()
        sock.bind(("0.0.0.0", 0))
        socks.append(sock)
    ports = [s.getsockname()[1] for s in socks]
    for sock in socks:
        sock.close()
    return ports


def node(server: SshServer, key: Path, **extra) -> dict:
    return {
        "host": server.address,
        "port": server.port,
        "user": "root",
        "python": sys.executable,
        "key_file": str(key),
        **extra,
    }


def job(
    folder: Path,
    lab: dict,
    tasks: list[dict],
    *,
    strategy: str = "between_graph",
    a: dict | None = None,
    b: dict | None = None,
    **config,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    sa, sb = lab["servers"]["a"], lab["servers"]["b"]
    (folder / "task.py").write_text("print('hello')\n")
    data = {
        "name": "lan",
        "strategy": strategy,
        "script": "task.py",
        "nodes": {"a": node(sa, lab["key"], **(a or {})), "b": node(sb, lab["key"], **(b or {}))},
        "tasks": tasks,
        **config,
    }
    path = folder / "job.json"
    path.write_text(json.dumps(data))
    return path


def preflight(path: Path, import_tf: bool = False):
    cfg = parse_config(json.loads(path.read_text()), str(path))
    return run_preflight(cfg, path, import_tf=import_tf)


def checks_of(report, node: str) -> dict[str, Check]:
    return {c.check: c for c in report.checks if c.node == node}


def ps_and_workers(p: list[int]) -> list[dict]:
    return [
        {"role": "ps", "node": "a", "port": p[0]},
        {"role": "worker", "count": 2, "node": "b", "port": p[1]},
    ]


@pytest.mark.tf
def test_healthy_two_node_job_passes_every_check(lab, tmp_path):
    p = free_ports(2)
    config = job(tmp_path, lab, ps_and_workers(p))
    started = time.monotonic()
    result = tensordeck(
        "preflight", str(config), "--json", env={**os.environ, "HOME": str(lab["home"])}
    )
    seconds = time.monotonic() - started
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True
    got = {(c["node"], c["check"]) for c in report["checks"]}
    for name in ("a", "b"):
        assert {(name, "ssh"), (name, "python"), (name, "tensorflow"), (name, "gpus")} <= got
    assert {("a", f"port {p[0]}"), ("b", f"port {p[1]}"), ("b", f"port {p[1] + 1}")} <= got
    # The workers (b) talk to the ps (a); the ps talks to nobody.
    assert ("a", f"port {p[0]} from b") in got
    assert not any(c["check"].endswith("from a") for c in report["checks"])
    tf = {c["node"]: c["detail"] for c in report["checks"] if c["check"] == "tensorflow"}
    assert "imports" in tf["a"] and "imports" in tf["b"]
    version = [c for c in report["checks"] if c["check"] == "tensorflow versions"]
    assert version and version[0]["ok"] and version[0]["node"] == "cluster"
    print(f"\npreflight wall time, healthy two-node job with TF import: {seconds:.1f} s")


def test_cluster_with_a_local_chief_checks_every_path(lab, tmp_path, home, capsys):
    p = free_ports(3)
    tasks = [
        {"role": "chief", "port": p[0]},
        {"role": "ps", "node": "a", "port": p[1]},
        {"role": "worker", "node": "b", "port": p[2]},
    ]
    report = preflight(job(tmp_path, lab, tasks, strategy="parameter_server", address="127.0.0.8"))
    assert report.ok, [c for c in report.checks if not c.ok]
    paths = {(c.node, c.check) for c in report.checks if " from " in c.check}
    local = "this machine"
    assert paths == {
        ("a", f"port {p[1]} from this machine"),
        ("a", f"port {p[1]} from b"),
        ("b", f"port {p[2]} from this machine"),  # the chief drives the workers
        (local, f"port {p[0]} from a"),
        (local, f"port {p[0]} from b"),
    }
    assert checks_of(report, local)["tensorflow"].detail.endswith("installed (not imported)")


def test_port_taken_on_a_node_is_reported_for_that_node_and_port(lab, tmp_path, home):
    p = free_ports(2)
    with socket.socket() as held:
        held.bind(("0.0.0.0", p[0]))
        held.listen()
        report = preflight(job(tmp_path, lab, ps_and_workers(p)))
    assert not report.ok
    taken = checks_of(report, "a")[f"port {p[0]}"]
    assert not taken.ok and f"port {p[0]} is in use by another program" in taken.detail
    assert "tasks[0].port" in taken.fix
    assert checks_of(report, "b")[f"port {p[1]}"].ok
    assert [c for c in report.checks if not c.ok] == [taken]  # nothing tested against it


def test_port_nobody_listens_on_is_unreachable_with_the_firewall_fix(
    lab, tmp_path, home, monkeypatch
):
    # The listeners bind an address the others do not connect to: what a firewall that
    # rejects connections looks like from outside.
    monkeypatch.setattr(preflight_module, "LISTEN_ADDRESS", "127.0.0.9")
    p = free_ports(2)
    report = preflight(job(tmp_path, lab, ps_and_workers(p)))
    blocked = [c for c in report.checks if not c.ok]
    assert [(c.node, c.check) for c in blocked] == [("a", f"port {p[0]} from b")]
    assert f"b -> 127.0.0.6:{p[0]}: Connection refused" == blocked[0].detail
    assert f"sudo ufw allow {p[0]}/tcp" in blocked[0].fix
    assert f"--add-port={p[0]}/tcp" in blocked[0].fix


def test_unknown_host_is_reported_with_the_trust_command(lab, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # no known_hosts
    config = job(tmp_path / "job", lab, ps_and_workers(free_ports(2)))
    result = tensordeck("preflight", str(config), env={**os.environ, "HOME": str(tmp_path)})
    assert result.returncode == 1
    a, b = lab["servers"]["a"], lab["servers"]["b"]
    lines = result.stdout.splitlines()
    assert lines[0] == "node a" and "✗ ssh" in lines[1] and "is not a known host" in lines[1]
    assert lines[2].strip() == f"fix: tensordeck trust 127.0.0.6 --port {a.port}"
    assert f"fix: tensordeck trust 127.0.0.7 --port {b.port}" in result.stdout
    assert lines[-1] == "2 problems found."
    as_json = tensordeck("preflight", "--json", str(config),
                         env={**os.environ, "HOME": str(tmp_path)})
    ssh = [c for c in json.loads(as_json.stdout)["checks"] if c["check"] == "ssh"]
    assert [(c["node"], c["unknown_host"]["host"], c["unknown_host"]["port"],
             c["unknown_host"]["key_type"]) for c in ssh] == [
        ("a", "127.0.0.6", a.port, "ssh-ed25519"), ("b", "127.0.0.7", b.port, "ssh-ed25519")]
    assert all(c["unknown_host"]["fingerprint"] in c["detail"] for c in ssh)


def test_a_changed_host_key_is_never_an_unknown_host(lab, tmp_path, monkeypatch):
    a, b = lab["servers"]["a"], lab["servers"]["b"]
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "known_hosts").write_text(
        f"[{a.address}]:{a.port} {b.host_key_pub}\n[{b.address}]:{b.port} {b.host_key_pub}\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    report = preflight(job(tmp_path / "job", lab, ps_and_workers(free_ports(2))))
    ssh = checks_of(report, "a")["ssh"]
    assert not ssh.ok and "CHANGED" in ssh.detail and ssh.unknown_host is None
    assert ssh.fix == f"ssh-keygen -R [{a.address}]:{a.port}"
    assert checks_of(report, "b")["ssh"].ok


def test_connect_raises_typed_host_key_errors_with_the_key_presented(lab, tmp_path, monkeypatch):
    import asyncio

    import asyncssh

    from core.config import Node
    from core.model import validate
    from core.remote.connect import HostKey, HostKeyChangedError, UnknownHostError, connect

    a, b = lab["servers"]["a"], lab["servers"]["b"]
    monkeypatch.setenv("HOME", str(tmp_path))
    node_a = validate(Node, node(a, lab["key"]))
    presented = HostKey(a.address, a.port, "ssh-ed25519",
                        asyncssh.import_public_key(a.host_key_pub).get_fingerprint())
    with pytest.raises(UnknownHostError) as unknown:
        asyncio.run(connect(node_a, "a"))
    assert (unknown.value.key, unknown.value.node) == (presented, "a")
    assert unknown.value.fix == f"tensordeck trust {a.address} --port {a.port}"
    assert str(unknown.value) == f"node a: {unknown.value.message}. Fix: {unknown.value.fix}"
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "known_hosts").write_text(f"[{a.address}]:{a.port} {b.host_key_pub}\n")
    with pytest.raises(HostKeyChangedError) as changed:
        asyncio.run(connect(node_a, "a"))
    assert changed.value.key == presented
    assert changed.value.fix == f"ssh-keygen -R [{a.address}]:{a.port}"


def test_a_run_refused_by_its_nodes_keeps_the_typed_errors(lab, tmp_path, monkeypatch):
    """The run path (core.session) refuses an unknown host before anything starts, as a config
    error the CLI prints, with the typed error (its host key) kept for the window."""
    from core.remote.connect import NodesNotReady, UnknownHostError
    from core.session import RunSession

    monkeypatch.setenv("HOME", str(tmp_path))  # no known_hosts
    session = RunSession(job(tmp_path / "job", lab, ps_and_workers(free_ports(2))), doctor=False)
    with pytest.raises(NodesNotReady) as refused:
        session.check_nodes()
    a = lab["servers"]["a"]
    unknown = {e.node: e for e in refused.value.errors}
    assert isinstance(unknown["a"], UnknownHostError) and unknown["a"].key.port == a.port
    assert [p.where for p in refused.value.problems] == ["nodes.a", "nodes.b"]
    assert unknown["a"].fix in str(refused.value)
    assert not (tmp_path / "job" / "runs").exists()


def test_node_without_tensorflow(lab, tmp_path, home):
    report = preflight(
        job(tmp_path, lab, ps_and_workers(free_ports(2)), b={"python": NO_TF_PYTHON})
    )
    bad = [c for c in report.checks if not c.ok]
    assert [(c.node, c.check) for c in bad] == [("b", "tensorflow")]
    assert bad[0].detail == f"TensorFlow not installed on node b ({NO_TF_PYTHON})"
    assert f"{NO_TF_PYTHON} -m pip install tensorflow" in bad[0].fix
    assert checks_of(report, "b")["python"].ok


def tf_env(folder: Path, version: str, init: str = "") -> str:
    """A real environment whose installed files say TensorFlow ``version``; importing it runs
    ``init``. Its interpreter."""
    subprocess.run([NO_TF_PYTHON, "-m", "venv", "--without-pip", str(folder)], check=True)
    site = next(folder.glob("lib/python3*/site-packages"))
    (site / "tensorflow").mkdir()
    (site / "tensorflow" / "__init__.py").write_text(init)
    (site / f"tensorflow-{version}.dist-info").mkdir()
    return str(folder / "bin" / "python")


def test_different_tensorflow_versions_are_an_error(lab, tmp_path, home):
    # The version is read from the installed files, without importing (--no-import).
    old = tf_env(tmp_path / "old-env", "2.10.0")
    report = preflight(job(tmp_path / "job", lab, ps_and_workers(free_ports(2)), b={"python": old}))
    bad = [c for c in report.checks if not c.ok]
    assert [(c.node, c.check) for c in bad] == [("cluster", "tensorflow versions")]
    assert "a 2.21" in bad[0].detail and "b 2.10.0" in bad[0].detail


def test_gpu_indexes_beyond_the_node_gpus(lab, tmp_path, home):
    tasks = [{"role": "ps", "node": "a"}, {"role": "worker", "node": "b", "gpus": [0]}]
    report = preflight(job(tmp_path, lab, tasks))
    gpus = checks_of(report, "b")["gpus"]
    assert not gpus.ok
    assert gpus.detail.startswith("worker-0 wants GPU 0; node b has no GPU. nvidia-smi not found")
    assert "tasks[1]" in gpus.fix
    assert checks_of(report, "a")["gpus"].ok  # no GPU, none asked for: tasks run on CPU
    # Ports picked at launch are still tested for reachability, on a test port.
    assert any(c.check.startswith("test port ") and c.ok for c in report.checks)


def test_bad_config_exits_2(tmp_path):
    path = tmp_path / "job.json"
    path.write_text(
        json.dumps(
            {
                "name": "x",
                "strategy": "between_graph",
                "script": "t.py",
                "tasks": [{"role": "ps", "node": "nowhere"}],
            }
        )
    )
    result = tensordeck("preflight", str(path))
    assert result.returncode == 2 and "no node 'nowhere'" in result.stderr


def test_who_talks_to_whom_and_the_windows_fix():
    assert talks_to("between_graph", "worker", "ps")
    assert not talks_to("between_graph", "ps", "worker")
    assert not talks_to("between_graph", "worker", "worker")
    assert talks_to("multi_worker_mirrored", "worker", "worker")
    assert talks_to("parameter_server", "chief", "worker")
    assert not talks_to("parameter_server", "evaluator", "ps")
    assert firewall_fix(23100, windows=True, where="node a") == (
        "in an administrator PowerShell on node a: New-NetFirewallRule -DisplayName "
        '"TensorDeck 23100" -Direction Inbound -Protocol TCP -LocalPort 23100 -Action Allow'
    )


def test_tensorflow_that_fails_to_import_and_a_wrong_interpreter(lab, tmp_path, home):
    broken = tf_env(
        tmp_path / "broken-env",
        "2.10.0",
        init="raise ImportError('DLL load failed while importing _pywrap_tensorflow_internal')\n",
    )
    report = preflight(
        job(
            tmp_path / "job",
            lab,
            ps_and_workers(free_ports(2)),
            a={"python": "/nope/python"},
            b={"python": broken},
        ),
        import_tf=True,
    )
    python_a = checks_of(report, "a")["python"]
    assert not python_a.ok and "/nope/python: No such file or directory" in python_a.detail
    assert "nodes.a.python" in python_a.fix
    tf_b = checks_of(report, "b")["tensorflow"]
    assert not tf_b.ok
    assert tf_b.detail == (
        "import tensorflow failed: ImportError: "
        "DLL load failed while importing _pywrap_tensorflow_internal"
    )
