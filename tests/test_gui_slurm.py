"""The window's "Run on": this machine or the LAN (as the config's tasks say), or a Slurm
cluster (``tensordeck --run FILE --slurm``) through a real one-machine cluster (tests/slurm.py),
and the Cluster view's editor of the config's ``slurm`` block. Plain Python tasks stand in for
TensorFlow."""

from __future__ import annotations

import json
import os
from pathlib import Path

import psutil
import pytest
from PySide6.QtCore import Qt

from tests.conftest import only_run_dir, read_summary, tensordeck, wait_no_leftovers
from tests.gui_fixtures import retype, wait_for_run

pytest_plugins = ["tests.gui_fixtures"]

TASK = """import os, sys, time
print("slurm", os.environ["SLURM_JOB_ID"], os.environ["SLURM_STEP_ID"], flush=True)
print("gpus", os.environ.get("SLURM_GPUS_ON_NODE", "none"), flush=True)
if os.environ.get("HANG"):
    print("serving", flush=True)
    time.sleep(600)
"""


@pytest.fixture
def slurm_file(tmp_path, monkeypatch):
    """``slurm_file(cluster, **config)`` writes task.py and job.json (two workers, the
    cluster's partition); the window's runs reach ``cluster``. Afterwards its queue must be
    empty and no salloc of the window left."""
    used = []

    def make(cluster, **config) -> str:
        used.append(cluster)
        monkeypatch.setenv("SLURM_CONF", str(cluster.conf))
        (tmp_path / "task.py").write_text(TASK)
        data = {"name": "gui-slurm", "strategy": "multi_worker_mirrored", "script": "task.py",
                "tasks": [{"role": "worker", "count": 2}], "stop_grace_seconds": 5,
                "slurm": {"partition": cluster.partition, "time_limit": "10"}, **config}
        path = tmp_path / "job.json"
        path.write_text(json.dumps(data, indent=2) + "\n")
        return str(path)

    yield make
    for cluster in used:
        assert cluster.wait_empty() == [], "a Slurm job or step was left behind"
    assert not salloc_children()


def salloc_children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if p.name() == "salloc"]


def choose_run_on(qtbot, view, text: str) -> None:
    """Pick ``text`` in "Run on" as from the keyboard (the arrows skip what is disabled)."""
    combo = view.run_on
    combo.setFocus()
    for key in (Qt.Key.Key_Home, *[Qt.Key.Key_Down] * combo.count()):
        if combo.currentText() == text:
            break
        qtbot.keyClick(combo, key)
    assert combo.currentText() == text


def start(qtbot, window, path: str, where: str = "a Slurm cluster") -> None:
    assert window.open_file(path)
    window.show_page("run")
    choose_run_on(qtbot, window.run_view, where)
    qtbot.mouseClick(window.run_view.start_button, Qt.MouseButton.LeftButton)


def test_a_run_on_slurm_shows_its_job_id_and_succeeds(qtbot, window, slurm, slurm_file):
    view = window.run_view
    path = slurm_file(slurm)
    jobs = []
    for _ in range(2):  # and again: a new job, nothing left of the first
        start(qtbot, window, path)
        assert not view.run_on.isEnabled() and view.slurm_job.isVisible()
        result = wait_for_run(qtbot, view)
        assert result.status.value == "succeeded", view.logs.combined.toPlainText()[-2000:]
        summary = read_summary(view.run_dir)
        job = summary["slurm_job"]
        assert view.slurm_job.text() == f"Slurm job {job}" and view.slurm_job.isVisible()
        combined = view.logs.combined.toPlainText()
        assert f"Slurm job {job}: every task runs as one of its steps" in combined
        assert f"[worker-0] slurm {job} " in combined and f"[worker-1] slurm {job} " in combined
        assert view.status.text() == "succeeded" and view.run_on.isEnabled()
        assert slurm.wait_empty() == []
        jobs.append(job)
    assert jobs[0] != jobs[1]


def test_stop_while_slurm_runs_the_tasks_leaves_no_job_and_no_process(
        qtbot, window, slurm, slurm_file):
    view = window.run_view
    start(qtbot, window, slurm_file(slurm, env={"HANG": "1"}))
    qtbot.waitUntil(lambda: view.logs.combined.toPlainText().count("serving") == 2,
                    timeout=60_000)
    assert slurm.queue(), "no Slurm job while the tasks run"
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    result = wait_for_run(qtbot, view)
    assert result.status.value == "interrupted"
    assert slurm.wait_empty() == []
    assert not wait_no_leftovers(view.run_dir)


def test_stop_while_the_job_waits_in_the_queue_withdraws_it(qtbot, window, slurm, slurm_file,
                                                            tmp_path):
    view = window.run_view
    # Slurm holds a job that may only begin in an hour: it waits in the queue.
    path = slurm_file(slurm, slurm={"partition": slurm.partition,
                                    "extra_sbatch": ["--begin=now+3600"]})
    for _ in range(2):  # and again
        start(qtbot, window, path)
        qtbot.waitUntil(lambda: any("PENDING" in line for line in slurm.client(
            "squeue", "-h", "-o", "%T").stdout.splitlines()), timeout=60_000)
        assert view.running and view.status.text() == "pending"
        # Said in the window as on the terminal: the job, and Slurm's reason.
        qtbot.waitUntil(lambda: "is queued (BeginTime)" in view.slurm_job.text())
        assert view.slurm_job.text() in view.logs.combined.toPlainText()
        assert salloc_children()
        qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
        assert wait_for_run(qtbot, view, timeout_ms=30_000) is None
        assert view.status.text() == "interrupted" and "withdrawn" in view.reason.text()
        assert slurm.queue() == [] and not salloc_children()
        assert not (tmp_path / "runs").exists()
        assert view.start_button.isEnabled() and not view.stop_button.isEnabled()


def test_an_unknown_partition_is_the_clis_message_and_starts_nothing(
        qtbot, window, slurm, slurm_file, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: shown.append(args[2]))
    path = slurm_file(slurm, slurm={"partition": "nosuch"})
    cli = tensordeck("--run", path, "--slurm")
    assert cli.returncode == 2
    said = cli.stderr.splitlines()[0].removeprefix(f"{path}: ")
    assert said.startswith("slurm.partition: no partition 'nosuch'")
    view = window.run_view
    for _ in range(2):
        start(qtbot, window, path)
        assert wait_for_run(qtbot, view) is None
        assert shown[-1] == f"Nothing was started:\n\n{said}"
        assert view.status.text() == "failed" and said in view.reason.text()
        assert not (tmp_path / "runs").exists() and slurm.queue() == []
    assert len(shown) == 2


def test_the_slurm_editor_saves_one_key_per_field(qtbot, window, tmp_path):
    (tmp_path / "task.py").write_text("")
    data = {"name": "t", "strategy": "single", "script": "task.py",
            "slurm": {"time_limit": "10", "partition": "gpu", "comment": "kept"}}
    path = tmp_path / "job.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert window.open_file(str(path))
    cluster = window.cluster
    fields = cluster.slurm_fields
    assert fields["partition"].text() == "gpu" and fields["time_limit"].text() == "10"
    assert fields["gpus_per_task"].value() == 0 and fields["gpus_per_task"].text() == "None"
    assert (fields["gpus_per_task"].minimum(), fields["gpus_per_task"].maximum()) == (0, 64)
    cluster.save()
    assert path.read_text() == json.dumps(data, indent=2) + "\n"  # unedited: as it was
    retype(qtbot, fields["account"], "lab")
    cluster.save()
    slurm = {"partition": "gpu", "account": "lab", "time_limit": "10", "comment": "kept"}
    assert json.loads(path.read_text()) == {**data, "slurm": slurm}
    # In core's order, as the file's other keys (what core does not know after them).
    assert list(json.loads(path.read_text())["slurm"]) == list(slurm)
    retype(qtbot, fields["partition"], "")  # empty: the cluster's default, left out
    fields["extra_sbatch"].setFocus()
    qtbot.keyClicks(fields["extra_sbatch"], "--qos=normal")
    cluster.save()
    saved = json.loads(path.read_text())["slurm"]
    assert saved == {"time_limit": "10", "comment": "kept", "account": "lab",
                     "extra_sbatch": ["--qos=normal"]}
    retype(qtbot, fields["time_limit"], "ten minutes")  # core's pattern, next to the field
    label = cluster.problem_labels["slurm"]
    qtbot.waitUntil(lambda: "time_limit: " in label.text())
    # Each problem of the block next to it, as the CLI names it (the key core does not know).
    assert sorted(line.split(":")[0] for line in label.text().splitlines()) == [
        "comment", "time_limit"]
    assert ("comment: unknown key (allowed: partition, account, time_limit, gpus_per_task, "
            "extra_sbatch)") in label.text().splitlines()


def test_gpus_per_task_from_the_editor_reach_slurm(qtbot, window, slurm_gpus, slurm_file,
                                                    tmp_path):
    """The editor's GPUs per task: in the batch script (which ``sbatch --test-only`` accepts),
    and in a run from the window, where Slurm gives each worker's step one GPU."""
    path = slurm_file(slurm_gpus)
    assert window.open_file(path)
    spin = window.cluster.slurm_fields["gpus_per_task"]
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert spin.value() == 1
    window.cluster.save()
    assert json.loads(Path(path).read_text())["slurm"]["gpus_per_task"] == 1
    out = tmp_path / "job.sbatch"
    exported = tensordeck("export", path, "--slurm", str(out),
                          env={**os.environ, "SLURM_CONF": str(slurm_gpus.conf)})
    assert exported.returncode == 0, exported.stderr
    script = out.read_text()
    assert "#SBATCH --gpus=2" in script and "--gpus-per-task=1" in script
    checked = slurm_gpus.client("sbatch", "--test-only", str(out))
    assert checked.returncode == 0 and "to start at" in checked.stderr, checked.stderr
    window.show_page("run")
    choose_run_on(qtbot, window.run_view, "a Slurm cluster")
    qtbot.mouseClick(window.run_view.start_button, Qt.MouseButton.LeftButton)
    result = wait_for_run(qtbot, window.run_view)
    assert result.status.value == "succeeded"
    logs = {p.stem: p.read_text() for p in (only_run_dir(Path(path)) / "logs").glob("*.log")}
    assert all("gpus 1\n" in logs[f"worker-{i}"] for i in range(2)), logs


def test_run_on_offers_the_lan_when_a_task_runs_on_another_machine(qtbot, window, tmp_path):
    view = window.run_view
    model = view.run_on.model()
    (tmp_path / "task.py").write_text("")
    local = {"name": "t", "strategy": "single", "script": "task.py"}
    lan = {**local, "strategy": "multi_worker_mirrored", "address": "127.0.0.1",
           "nodes": {"lab2": {"host": "127.0.0.2", "python": "/usr/bin/python3"}},
           "tasks": [{"role": "worker"}, {"role": "worker", "node": "lab2"}]}
    for data in (local, lan, {**lan, "tasks": [{"role": "worker", "count": 2}]}, local):
        path = tmp_path / "job.json"
        path.write_text(json.dumps(data))
        assert window.open_file(str(path))
        on_nodes = any("node" in t for t in data.get("tasks", []))
        assert view.run_on.currentText() == ("the LAN" if on_nodes else "this machine")
        assert model.item(0).isEnabled() is not on_nodes
        assert model.item(1).isEnabled() is on_nodes and model.item(2).isEnabled()
        why = view.run_on.toolTip()
        if on_nodes:
            assert "run on other machines" in why
        elif "nodes" in data:
            assert "(lab2)" in why and "Node column" in why
        else:
            assert "Cluster > Machines" in why
    choose_run_on(qtbot, view, "a Slurm cluster")  # the choice stays with the next file
    assert window.open_file(str(path))
    assert view.run_on.currentText() == "a Slurm cluster"
