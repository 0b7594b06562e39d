"""The window's LAN parts: the Machines table and the tasks' Node column, preflight from the
window, trusting an unknown host, against real OpenSSH servers on loopback addresses."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt

from core.config import load_config
from core.remote.connect import HostKey
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
    from core.remote.connect import RemoteError

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
    assert trust.key == ssh.unknown_host
    assert f"{fingerprint(server)} (ssh-ed25519)" in trust.fingerprint_label.text()
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


def key_file_fingerprint(lab, name: str) -> str:
    """The fingerprint of node ``name``'s host key, as ssh-keygen reads it from the server's
    key file (what the user compares with on the machine itself)."""
    pub = lab["root"] / name / "host_ed25519.pub"
    listed = subprocess.run(["ssh-keygen", "-lf", str(pub)], capture_output=True, text=True,
                            check=True).stdout.split()
    assert listed[-1] == "(ED25519)"
    return listed[1]


def job_on_nodes(window, lab, tmp_path, names: list[str]) -> None:
    """Save a job with one worker on each node of ``names``, its folders under tmp_path."""
    (tmp_path / "task.py").write_text("import socket\nprint('hello from', socket.gethostname())\n")
    cluster = window.cluster
    cluster.strategy.setCurrentIndex(cluster.strategy.findData("multi_worker_mirrored"))
    cluster.script.setText("task.py")
    for name in names:
        row = add_node(cluster, name, lab["servers"][name], lab["key"])
        cluster.nodes.cell(row, 5).setText(str(tmp_path / f"node-{name}"))
    cluster.tasks.set_value([{"role": "worker", "node": name, "port": free_port()}
                             for name in names])
    cluster.save(tmp_path / "job.json")


def start_refused(qtbot, run_view, warnings: list[str]) -> list:
    """Press Start, expect the run refused with one message; the trust dialogs it opened."""
    said = len(warnings)
    with qtbot.waitSignal(run_view.session.finished, timeout=60_000) as blocker:
        run_view.start_button.click()
    assert blocker.args == [None] and len(warnings) == said + 1
    assert all(dialog.isVisible() for dialog in run_view.trust_dialogs)
    return run_view.trust_dialogs


def trust(qtbot, dialog) -> None:
    """Click the dialog's Trust button (enabled at once: the key is the refusal's)."""
    assert dialog.trust_button.isEnabled()
    with qtbot.waitSignal(dialog.trusted, timeout=20_000):
        qtbot.mouseClick(dialog.trust_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()


@pytest.fixture
def warnings(monkeypatch, tmp_path) -> list[str]:
    """The texts of the window's warning messages; a HOME whose known_hosts trusts nobody."""
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: said.append(args[2]))
    return said


@needs_sshd
def test_a_start_refused_for_an_unknown_host_shows_its_key_trusts_it_and_runs(
        qtbot, window, lab, tmp_path, warnings):
    server = lab["servers"]["b"]
    job_on_nodes(window, lab, tmp_path, ["b"])
    run_view = window.run_view
    [dialog] = start_refused(qtbot, run_view, warnings)
    real = key_file_fingerprint(lab, "b")
    assert f"key fingerprint {real}, ssh-ed25519" in warnings[0]
    assert f"tensordeck trust {server.address} --port {server.port}" in warnings[0]
    # The refusal's key, shown as the dialog opens: no second look at the node.
    assert dialog.key == HostKey(server.address, server.port, "ssh-ed25519", real)
    assert dialog.fingerprint_label.text() == f"Key fingerprint: {real} (ssh-ed25519)"
    trust(qtbot, dialog)
    key_type, key_data = server.host_key_pub.split()[:2]
    assert (tmp_path / "home" / ".ssh" / "known_hosts").read_text() == (
        f"[{server.address}]:{server.port} {key_type} {key_data}\n")
    with qtbot.waitSignal(run_view.session.finished, timeout=60_000) as blocker:
        run_view.start_button.click()
    assert blocker.args[0].status.value == "succeeded", warnings
    assert len(warnings) == 1 and run_view.trust_dialogs == [dialog]


@needs_sshd
def test_two_unknown_nodes_get_a_dialog_each_at_every_start_whatever_is_trusted_first(
        qtbot, window, lab, tmp_path, warnings):
    servers = lab["servers"]
    job_on_nodes(window, lab, tmp_path, ["a", "b"])
    run_view = window.run_view
    known_hosts = tmp_path / "home" / ".ssh" / "known_hosts"
    first = start_refused(qtbot, run_view, warnings)
    assert [d.key.fingerprint for d in first] == [key_file_fingerprint(lab, n) for n in "ab"]
    assert [(d.key.host, d.key.port) for d in first] == [
        (servers[n].address, servers[n].port) for n in "ab"]
    for dialog in first:  # closed unanswered: the next start asks again
        dialog.reject()
    again = start_refused(qtbot, run_view, warnings)
    assert [d.key for d in again] == [d.key for d in first]
    assert not set(again) & set(first) and not known_hosts.exists()
    trust(qtbot, again[1])  # b first, and a's dialog closed: only a is left unknown
    again[0].reject()
    [last] = start_refused(qtbot, run_view, warnings)
    assert last.key == first[0].key
    assert "nodes.b:" not in warnings[-1] and "nodes.a:" in warnings[-1]
    trust(qtbot, last)
    assert len(known_hosts.read_text().splitlines()) == 2
    with qtbot.waitSignal(run_view.session.finished, timeout=60_000) as blocker:
        run_view.start_button.click()
    assert blocker.args[0].status.value == "succeeded", warnings
    assert len(warnings) == 3


@needs_sshd
def test_trust_adds_only_the_key_the_refusal_showed(qtbot, lab, tmp_path, monkeypatch):
    from gui.trust_dialog import TrustDialog

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    server = lab["servers"]["a"]
    # The key a was refused with, and since then a presents another (b's here).
    shown = HostKey(server.address, server.port, "ssh-ed25519", key_file_fingerprint(lab, "b"))
    dialog = TrustDialog(shown)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.mouseClick(dialog.trust_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dialog.message.isVisible, timeout=20_000)
    assert "nothing was trusted" in dialog.message.text()
    assert key_file_fingerprint(lab, "a") in dialog.message.text()
    assert dialog.isVisible() and not dialog.trust_button.isEnabled()
    assert not (tmp_path / "home" / ".ssh" / "known_hosts").exists()


@needs_sshd
def test_a_start_refused_for_a_changed_host_key_offers_no_trust(qtbot, window, lab, tmp_path,
                                                                 warnings):
    server = lab["servers"]["b"]
    known = tmp_path / "home" / ".ssh" / "known_hosts"
    known.parent.mkdir(parents=True)
    known.write_text(f"[{server.address}]:{server.port} {lab['servers']['a'].host_key_pub}\n")
    job_on_nodes(window, lab, tmp_path, ["b"])
    assert start_refused(qtbot, window.run_view, warnings) == []
    assert "CHANGED" in warnings[0]
    assert f"ssh-keygen -R [{server.address}]:{server.port}" in warnings[0]
    assert known.read_text() == (
        f"[{server.address}]:{server.port} {lab['servers']['a'].host_key_pub}\n")


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
