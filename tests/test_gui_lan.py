"""The window's LAN parts: the Machines table and the tasks' Node column, preflight from the
window, trusting an unknown host, against real OpenSSH servers on loopback addresses."""

from __future__ import annotations

import json
import socket
import sys

import pytest

from core.config import load_config
from tests.sshd import sshd_missing_reason, start_lab, stop_lab

pytest_plugins = ["tests.gui_fixtures"]

needs_sshd = pytest.mark.skipif(sshd_missing_reason() is not None,
                                reason=sshd_missing_reason() or "")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Nodes a and b with key login; a HOME whose known_hosts trusts both."""
    if sshd_missing_reason():
        pytest.skip(sshd_missing_reason())
    lab = start_lab(tmp_path_factory.mktemp("gui-lab"), {"a": "127.0.0.8", "b": "127.0.0.9"})
    yield lab
    stop_lab(lab)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        return sock.getsockname()[1]


def add_node(cluster, name: str, server, key) -> int:
    """Fill a new Machines row the way a user does; returns the row."""
    cluster.nodes.add_button.click()
    row = cluster.nodes.table.rowCount() - 1
    for col, text in ((0, name), (1, server.address), (2, "root"), (4, sys.executable),
                      (7, str(key))):
        cluster.nodes.cell(row, col).setText(text)
    cluster.nodes.cell(row, 3).setValue(server.port)
    return row


def test_machines_table_and_node_column_are_saved_as_the_cli_reads_them(qtbot, window,
                                                                        tmp_path):
    (tmp_path / "train.py").write_text("print('hi')\n")
    cluster = window.cluster
    assert not cluster.preflight_button.isEnabled()
    cluster.strategy.setCurrentIndex(cluster.strategy.findData("between_graph"))
    cluster.script.setText("train.py")
    cluster.tasks.set_value([{"role": "ps"}, {"role": "worker"}])
    cluster.nodes.add_button.click()
    nodes = cluster.nodes
    nodes.cell(0, 0).setText("lab2")
    nodes.cell(0, 1).setText("192.168.1.20")
    nodes.cell(0, 4).setText("C:\\Python310\\python.exe")
    nodes.cell(0, 3).setValue(2200)
    nodes.password_box(0).setChecked(True)
    cluster.address.setText("192.168.1.10")
    node_combo = cluster.tasks.cell(1, 5)
    assert [node_combo.itemText(i) for i in range(node_combo.count())] == ["this machine",
                                                                           "lab2"]
    node_combo.setCurrentIndex(1)
    assert cluster.preflight_button.isEnabled()
    path = cluster.save(tmp_path / "lan.json")
    saved = json.loads(path.read_text())
    assert saved["nodes"] == {"lab2": {"host": "192.168.1.20", "port": 2200, "password": True,
                                       "python": "C:\\Python310\\python.exe"}}
    assert saved["address"] == "192.168.1.10"
    assert saved["tasks"] == [{"role": "ps"}, {"role": "worker", "node": "lab2"}]
    config = load_config(path)  # what the CLI reads
    assert config.nodes["lab2"].port == 2200 and config.tasks[1].node == "lab2"
    cluster.load_file(path)  # and back into the forms, unchanged
    assert cluster.to_dict() == saved


def test_a_node_without_python_shows_a_message_that_clears_when_fixed(qtbot, window):
    cluster = window.cluster
    cluster.nodes.add_row("lab2", {"host": "192.168.1.20", "python": "/usr/bin/python3"})
    label = cluster.problem_labels["nodes"]
    qtbot.waitUntil(lambda: cluster.problems == [])
    assert label.isHidden()
    cluster.nodes.cell(0, 4).clear()
    qtbot.waitUntil(lambda: not label.isHidden())
    assert label.text() == "lab2 (python): is required"
    assert [p.where for p in cluster.problems] == ["nodes.lab2.python"]
    cluster.nodes.cell(0, 4).setText("/usr/bin/python3")
    qtbot.waitUntil(lambda: label.isHidden())
    cluster.nodes.add_row("lab2", {"host": "h", "python": "p"})  # two rows, one name
    qtbot.waitUntil(lambda: not label.isHidden())
    assert "two machines are named 'lab2'" in label.text()


@needs_sshd
def test_preflight_button_shows_every_check_passing_on_two_healthy_nodes(
        qtbot, window, lab, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(lab["home"]))
    (tmp_path / "task.py").write_text("print('hello')\n")
    cluster = window.cluster
    cluster.strategy.setCurrentIndex(cluster.strategy.findData("between_graph"))
    cluster.script.setText("task.py")
    for name in ("a", "b"):
        add_node(cluster, name, lab["servers"][name], lab["key"])
    cluster.tasks.set_value([{"role": "ps", "node": "a", "port": free_port()},
                             {"role": "worker", "node": "b", "port": free_port()}])
    cluster.save(tmp_path / "job.json")
    window.preflight_import_tf = False
    cluster.preflight_button.click()
    qtbot.waitUntil(lambda: window.preflight_dialog is not None, timeout=60_000)
    dialog = window.preflight_dialog
    assert dialog.isVisible()
    assert dialog.report.ok, dialog.report.to_json()
    groups = [dialog.tree.topLevelItem(i) for i in range(dialog.tree.topLevelItemCount())]
    assert {g.text(0) for g in groups} >= {"a", "b"}
    rows = [g.child(i).text(0) for g in groups for i in range(g.childCount())]
    assert rows and all(row.startswith("✓") for row in rows)
    assert dialog.fixes.isHidden() and dialog.trust_buttons == []
    assert cluster.preflight_button.isEnabled()
    dialog.close()


def preflight_one_node(qtbot, window, tmp_path, lab, name: str):
    """Save a job with one worker on node ``name``, press Preflight, return the report dialog."""
    (tmp_path / "task.py").write_text("print('hello')\n")
    cluster = window.cluster
    cluster.script.setText("task.py")
    add_node(cluster, name, lab["servers"][name], lab["key"])
    cluster.tasks.set_value([{"role": "worker", "node": name}])
    cluster.save(tmp_path / "job.json")
    window.preflight_import_tf = False
    cluster.preflight_button.click()
    qtbot.waitUntil(lambda: window.preflight_dialog is not None, timeout=60_000)
    return window.preflight_dialog


def fingerprint(server) -> str:
    import asyncssh

    return asyncssh.import_public_key(server.host_key_pub).get_fingerprint()


@needs_sshd
def test_unknown_host_is_trusted_from_the_preflight_dialog_whatever_the_wording(
        qtbot, window, lab, tmp_path, monkeypatch):
    from core.remote.connect import HostKey, RemoteError

    # The dialog works from the check's fields, not its text: reword every remote message.
    plain_init = RemoteError.__init__
    monkeypatch.setattr(RemoteError, "__init__", lambda self, message, node=None, fix=None:
                        plain_init(self, "reworded", node, fix))
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))  # no known_hosts yet
    server = lab["servers"]["a"]
    dialog = preflight_one_node(qtbot, window, tmp_path, lab, "a")
    [ssh] = [c for c in dialog.report.checks if c.check == "ssh"]
    assert not ssh.ok and ssh.detail == "reworded"
    assert ssh.unknown_host == HostKey(server.address, server.port, "ssh-ed25519",
                                       fingerprint(server))
    assert ssh.fix == f"tensordeck trust {server.address} --port {server.port}"
    assert [b.text() for b in dialog.trust_buttons] == [f"Trust {server.address}…"]
    dialog.trust_buttons[0].click()
    trust = dialog.trust_dialog
    qtbot.waitUntil(lambda: trust.trust_button.isEnabled(), timeout=20_000)
    assert trust.fingerprint == fingerprint(server)
    assert f"{trust.fingerprint} (ssh-ed25519)" in trust.fingerprint_label.text()
    with qtbot.waitSignal(dialog.host_trusted, timeout=20_000):
        trust.trust_button.click()
    known = (home / ".ssh" / "known_hosts").read_text()
    key_type, key_data = server.host_key_pub.split()[:2]  # the .pub file's comment is not kept
    assert known == f"[{server.address}]:{server.port} {key_type} {key_data}\n"
    dialog.close()
    window.preflight_dialog = None
    qtbot.waitUntil(window.cluster.preflight_button.isEnabled)
    window.cluster.preflight_button.click()  # and now the node passes
    qtbot.waitUntil(lambda: window.preflight_dialog is not None, timeout=60_000)
    assert window.preflight_dialog.report.ok, window.preflight_dialog.report.to_json()
    assert window.preflight_dialog.trust_buttons == []
    window.preflight_dialog.close()


@needs_sshd
def test_a_changed_host_key_is_explained_and_never_offered_for_trust(qtbot, window, lab,
                                                                     tmp_path, monkeypatch):
    server = lab["servers"]["b"]
    other_key = lab["servers"]["a"].host_key_pub
    (tmp_path / "home" / ".ssh").mkdir(parents=True)
    known = tmp_path / "home" / ".ssh" / "known_hosts"
    known.write_text(f"[{server.address}]:{server.port} {other_key}\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    dialog = preflight_one_node(qtbot, window, tmp_path, lab, "b")
    assert "CHANGED" in dialog.fixes.toPlainText()
    assert f"ssh-keygen -R [{server.address}]:{server.port}" in dialog.fixes.toPlainText()
    assert dialog.trust_buttons == []
    assert known.read_text() == f"[{server.address}]:{server.port} {other_key}\n"
    dialog.close()


@needs_sshd
def test_a_start_that_fails_on_an_unknown_host_offers_to_trust_it_then_runs(
        qtbot, window, lab, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # trusts nobody
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: warnings.append(args[2]))
    server = lab["servers"]["b"]
    (tmp_path / "task.py").write_text("print('hello from b')\n")
    cluster = window.cluster
    cluster.script.setText("task.py")
    row = add_node(cluster, "b", server, lab["key"])
    cluster.nodes.cell(row, 5).setText(str(tmp_path / "node-b"))
    cluster.tasks.cell(0, 5).setCurrentIndex(cluster.tasks.cell(0, 5).findData("b"))
    cluster.save(tmp_path / "job.json")
    run_view = window.run_view
    with qtbot.waitSignal(run_view.session.finished, timeout=60_000) as blocker:
        run_view.start_button.click()
    assert blocker.args == [None] and len(warnings) == 1
    assert f"tensordeck trust {server.address} --port {server.port}" in warnings[0]
    [trust] = run_view.trust_dialogs
    assert (trust.host, trust.port) == (server.address, server.port)
    qtbot.waitUntil(lambda: trust.trust_button.isEnabled(), timeout=20_000)
    with qtbot.waitSignal(trust.trusted, timeout=20_000):
        trust.trust_button.click()
    assert (tmp_path / "home" / ".ssh" / "known_hosts").read_text().startswith(
        f"[{server.address}]:{server.port} ssh-ed25519 ")
    with qtbot.waitSignal(run_view.session.finished, timeout=60_000) as blocker:
        run_view.start_button.click()
    assert blocker.args[0].status.value == "succeeded", warnings
    assert len(warnings) == 1 and run_view.trust_dialogs == [trust]


@needs_sshd
def test_node_gpu_charts_are_named_after_the_node_and_stop(qtbot, window, lab, monkeypatch):
    from core.config import Node

    monkeypatch.setenv("HOME", str(lab["home"]))
    server = lab["servers"]["a"]
    panel = window.run_view.node_gpus
    panel.start({"a": Node(host=server.address, port=server.port, user="root",
                           python=sys.executable, key_file=str(lab["key"]))})
    assert panel.charts["a"].parentWidget().title() == "Node a"
    # This machine has no nvidia-smi: the node's report says so next to its charts.
    qtbot.waitUntil(lambda: not panel.messages["a"].isHidden(), timeout=20_000)
    assert "nvidia-smi" in panel.messages["a"].text()
    panel.stop()
    assert not panel.running
