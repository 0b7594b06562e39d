"""Past runs read back from real run folders made by the real CLI, and from summaries of older
TensorDeck versions and garbage."""

from __future__ import annotations

import json
import os
import shutil
import sys

import psutil
import pytest

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
