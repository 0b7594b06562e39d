"""Past runs read back from real run folders made by the real CLI, and from summaries of older
TensorDeck versions and garbage."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from pathlib import Path

import psutil
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.events import RunStatus
from core.history import list_runs, read_run
from core.summary import SCHEMA_VERSION, SummaryError, read_summary
from tests.conftest import tensordeck

#: Above Linux's pid_max and Windows' pid range: no such process.
NO_PID = 2**22 + 12345


def make_run(tmp_path, job, script: str) -> None:
    path = job(script, strategy="single", tasks=[{"role": "worker"}])
    tensordeck("--run", str(path), timeout=60)


def one_run_dir(tmp_path):
    (run_dir,) = (tmp_path / "runs").iterdir()
    return run_dir


def rewrite(run_dir, **changes) -> dict:
    summary = json.loads((run_dir / "summary.json").read_text())
    summary.update(changes)
    (run_dir / "summary.json").write_text(json.dumps(summary))
    return summary


def test_lists_runs_newest_first_with_status_duration_and_logs(tmp_path, job):
    make_run(tmp_path, job, "print('first run')")
    make_run(tmp_path, job, "import sys; print('second run'); sys.exit(3)")
    records = list_runs([tmp_path])
    assert [r.status for r in records] == [RunStatus.FAILED, RunStatus.SUCCEEDED]
    failed, ok = records
    assert failed.exit_code == 3 and ok.exit_code == 0
    assert ok.name == "t" and ok.strategy == "single"
    assert ok.duration is not None and ok.duration >= 0
    assert ok.config_path and ok.config_path.endswith("job.json")
    assert ok.summary.schema_version == SCHEMA_VERSION
    assert ok.summary.launcher.pid != os.getpid()  # the CLI's process, which has ended
    logs = failed.log_paths()
    assert list(logs) == ["worker:0"]
    assert "second run" in logs["worker:0"].read_text()
    # The same runs, found from the runs folder or one run folder; listed once each.
    assert len(list_runs([tmp_path / "runs", tmp_path])) == 2
    assert read_run(ok.run_dir) == ok


def test_a_running_summary_is_abandoned_once_its_launcher_is_gone(tmp_path, job):
    make_run(tmp_path, job, "print('x')")
    run_dir = one_run_dir(tmp_path)
    me = {"pid": os.getpid(), "started_at": psutil.Process().create_time(), "host": None}
    rewrite(run_dir, status="running", exit_code=None, launcher=me)
    assert read_run(run_dir).status is RunStatus.RUNNING  # this process is its launcher
    rewrite(run_dir, launcher={**me, "pid": NO_PID})
    assert read_run(run_dir).status is RunStatus.ABANDONED
    # The pid of a live process that started at another time: reused, not the launcher.
    rewrite(run_dir, launcher={**me, "started_at": me["started_at"] - 3600})
    assert read_run(run_dir).status is RunStatus.ABANDONED
    rewrite(run_dir, status="failed", exit_code=1)
    assert read_run(run_dir).status is RunStatus.FAILED  # an ended run's word stands


def test_a_version_0_summary_is_read_as_far_as_it_goes(tmp_path):
    """TensorDeck before schema_version: no launcher, and the first summary had no times."""
    run_dir = tmp_path / "old"
    (run_dir / "logs").mkdir(parents=True)
    (run_dir / "logs" / "worker-0.log").write_text("old log\n")
    task = {"task": "worker:0", "role": "worker", "index": 0, "host": "localhost",
            "port": None, "gpus": None, "state": "running", "pid": os.getpid(),
            "exit_code": None, "restarts": 0, "started_at": 100.0, "ended_at": None}
    old = {"name": "legacy", "strategy": "single", "run_dir": str(run_dir),
           "config_path": "job.json", "status": "running", "exit_code": None, "tasks": [task]}
    (run_dir / "summary.json").write_text(json.dumps(old))
    record = read_run(run_dir)
    assert record.summary.schema_version == 0 and record.summary.launcher is None
    assert (record.name, record.started_at, record.status) == ("legacy", 100.0, "running")
    assert list(record.log_paths()) == ["worker:0"]  # no "log" field: the folder's files
    task["pid"] = NO_PID
    (run_dir / "summary.json").write_text(json.dumps(old))
    assert read_run(run_dir).status is RunStatus.ABANDONED  # no task process left


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param("{half", "invalid JSON", id="half a file"),
        pytest.param(b"\xff\xfe{}", "is not JSON text", id="not UTF-8"),
        pytest.param("[1, 2]", "is not a run summary", id="a list"),
        pytest.param('{"mine": true}', "status: Field required", id="someone else's file"),
        pytest.param('{"status": "running", "tasks": "x"}', "tasks: Input should be a valid list",
                     id="tasks not a list"),
        pytest.param('{"status": "running", "tasks": [{"task": "w", "role": "worker", '
                     '"index": 0, "state": "dancing"}]}', "tasks[0].state: Input should be",
                     id="unknown task state"),
        pytest.param('{"schema_version": 99, "status": "running"}', "update TensorDeck",
                     id="newer schema"),
        pytest.param('{"schema_version": "1", "status": "running"}', "is not a version number",
                     id="version not a number"),
        pytest.param("[" * 100_000, "is not JSON text", id="deep nesting"),
    ],
)
def test_garbage_is_refused_with_one_line_and_history_shows_it_unreadable(tmp_path, text,
                                                                         problem):
    run_dir = tmp_path / "runs" / "garbage"
    run_dir.mkdir(parents=True)
    path = run_dir / "summary.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(SummaryError) as caught:
        read_summary(run_dir)
    message = str(caught.value)
    assert problem in message and "\n" not in message and str(path) in message
    (record,) = list_runs([tmp_path])
    assert record.status is RunStatus.UNREADABLE and record.reason == message
    assert record.name == "garbage" and record.tasks == () and record.duration is None


def test_folders_that_are_not_runs_are_skipped(tmp_path, job):
    make_run(tmp_path, job, "print('x')")
    run_dir = one_run_dir(tmp_path)
    copy = tmp_path / "runs" / "copy"
    shutil.copytree(run_dir, copy)
    (copy / "summary.json").unlink()
    (tmp_path / "runs" / "empty").mkdir()
    assert [r.run_dir for r in list_runs([tmp_path])] == [run_dir]
    assert read_run(tmp_path / "missing") is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="read from /proc on Linux only")
def test_the_launchers_start_time_from_proc_is_psutils():
    """Before its tasks start the launcher records its start time from /proc, not psutil (launch
    overhead); readers compare it with psutil's create_time(), so both must agree."""
    import psutil

    from core.summary import this_launcher

    launcher = this_launcher(with_start_time=False)
    assert launcher.started_at is not None
    assert abs(launcher.started_at - psutil.Process().create_time()) < 0.02  # 2 clock ticks


# --- hostile run folders: every read capped, bad content skipped, the logs always shown -----

LOG_TEXT = "step 1/2 loss=0.5\nthe task's own words\nstep 2/2 loss=0.25\n"


def hand_made_run(folder) -> None:
    """A run folder as TensorDeck writes it: summary, config, one log, one metrics file."""
    (folder / "logs").mkdir(parents=True)
    (folder / "metrics").mkdir()
    (folder / "logs" / "worker-0.log").write_bytes(LOG_TEXT.encode())  # bytes, as a task's
    (folder / "metrics" / "worker-0.jsonl").write_text(
        json.dumps({"step": 1, "metrics": {"loss": 0.5}}) + "\n")
    (folder / "config.json").write_text(json.dumps({
        "config": {"name": "h", "env": {"SEED": "1"}}, "script": "task.py",
        "python": sys.executable, "config_path": str(folder / "job.json")}))
    (folder / "summary.json").write_text(json.dumps({
        "schema_version": SCHEMA_VERSION, "name": "h", "status": "succeeded", "exit_code": 0,
        "started_at": 1.0, "ended_at": 2.0,
        "tasks": [{"task": "worker:0", "role": "worker", "index": 0, "state": "succeeded",
                   "log": str(folder / "logs" / "worker-0.log")}]}))


def _bytes_of(kind: str, noise: bytes) -> bytes:
    return {
        "random bytes": noise,
        "deep nesting": b'{"config": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "huge numbers": b'{"status": "succeeded", "exit_code": 1' + b"0" * 400
                        + b', "started_at": 1e999, "config": {"env": {"A": 1' + b"0" * 5000
                        + b'}}, "step": 1, "metrics": {"loss": 1' + b"0" * 400 + b"}}",
        "bad lines": b"\n".join([noise, b"[" * 50_000, b'{"step": 1e999, "metrics": {}}']),
    }[kind]


def spoil(path, kind: str, noise: bytes) -> None:
    """Replace ``path`` by a hostile version of it."""
    path.unlink()
    if kind == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(_bytes_of(kind, noise))


KINDS = ["random bytes", "deep nesting", "huge numbers", "bad lines"]
if hasattr(os, "mkfifo"):  # POSIX: links, FIFOs and /dev/zero
    KINDS += ["link to /dev/zero", "fifo", "folder"]
SPOILED = ["summary.json", "config.json", "metrics/worker-0.jsonl"]


@given(spoiled=st.lists(st.sampled_from(SPOILED), min_size=1, max_size=3, unique=True),
       kinds=st.lists(st.sampled_from(KINDS), min_size=3, max_size=3),
       noise=st.binary(max_size=300))
@settings(max_examples=60, deadline=None)
def test_history_lists_a_hostile_run_and_its_logs_are_readable(spoiled, kinds, noise):
    """Random bytes, nesting 100,000 deep, 400- and 5,000-digit numbers, a link to /dev/zero,
    a FIFO, a folder in place of the run's summary, config or metrics: History still lists
    the run (unreadable at worst), shows its log, and its other readers end with what they
    could read, never an exception, a block or an endless read."""
    import tempfile

    from core.bounded import read_file
    from core.history import RerunError, config_changed, run_env, run_metrics, stored_config

    with tempfile.TemporaryDirectory() as root:
        run_dir = Path(root) / "runs" / "hostile"
        hand_made_run(run_dir)
        for name, kind in zip(spoiled, kinds, strict=False):
            spoil(run_dir / name, kind, noise)
        (record,) = list_runs([root])
        assert record.run_dir == run_dir
        logs = record.log_paths()
        assert read_file(logs["worker:0"], 1 << 20).data.decode() == LOG_TEXT
        metrics = run_metrics(run_dir)
        assert all(p.task == "worker:0" for p in metrics.points)
        assert isinstance(run_env(run_dir), dict) and isinstance(config_changed(run_dir), bool)
        with contextlib.suppress(RerunError):
            stored_config(run_dir)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs or /dev/zero (Windows)")
def test_the_history_view_shows_the_logs_of_a_run_whose_other_files_are_hostile(qtbot,
                                                                               tmp_path):
    pytest.importorskip("PySide6")
    from gui.views.history import HistoryView

    run_dir = tmp_path / "runs" / "hostile"
    hand_made_run(run_dir)
    spoil(run_dir / "config.json", "deep nesting", b"")
    spoil(run_dir / "metrics" / "worker-0.jsonl", "huge numbers", b"")
    (run_dir / "metrics" / "worker-1.jsonl").symlink_to("/dev/zero")
    view = HistoryView()
    qtbot.addWidget(view)
    view.show()
    view.set_folders([str(tmp_path)])
    view.refresh()
    qtbot.waitUntil(lambda: view.table.rowCount() == 1, timeout=10_000)
    qtbot.waitUntil(lambda: view.logs.count() == 1, timeout=10_000)
    qtbot.waitUntil(lambda: view.logs.widget(0).toPlainText().splitlines()
                    == LOG_TEXT.splitlines(), timeout=10_000)
