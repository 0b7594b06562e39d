"""One stop for every phase of a run (core.session.RunSession.stop), as the command line's
signals and the window's Stop use it: before the run is open nothing starts and nothing is
left (ports, run folder); once open the tasks stop and the run ends with the stop's code."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from core.exitcodes import EXIT_STOPPED
from core.ports import port_problem
from core.session import RunCancelled, RunSession
from tests.conftest import read_summary

HANGS = "import time\nprint('serving', flush=True)\ntime.sleep(600)\n"


def write_job(folder: Path, script: str) -> Path:
    (folder / "task.py").write_text(script)
    path = folder / "job.json"
    path.write_text(json.dumps({"name": "t", "strategy": "between_graph", "script": "task.py",
                                "tasks": [{"role": "ps"}, {"role": "worker", "count": 2}],
                                "stop_grace_seconds": 3}))
    return path


def reserved_ports(session: RunSession) -> list[int]:
    assert session.plan is not None
    return [t.port for t in session.plan.tasks if t.port is not None]


@pytest.mark.parametrize("phase", ["before load", "after load", "after the doctor"])
def test_a_stop_before_the_run_is_open_starts_nothing_and_leaves_nothing(tmp_path, phase):
    session = RunSession(write_job(tmp_path, HANGS))
    if phase != "before load":
        session.load()
    if phase == "after the doctor":
        session.check()
    session.stop("stopped from the window", EXIT_STOPPED)
    with pytest.raises(RunCancelled):
        session.open(lambda event: None)
    assert session.run is None and session.stopped == ("stopped from the window", EXIT_STOPPED)
    assert not (tmp_path / "runs").exists()
    assert all(port_problem(port) is None for port in reserved_ports(session))  # released


def test_a_stop_after_open_stops_the_tasks_with_its_exit_code(tmp_path):
    session = RunSession(write_job(tmp_path, HANGS))
    run = session.open(lambda event: None)
    session.stop("stopped from the window", EXIT_STOPPED)  # before execute: kept, then done
    result = session.execute()
    assert (result.exit_code, result.reason) == (EXIT_STOPPED, "stopped from the window")
    summary = read_summary(run.dir)
    assert summary["exit_code"] == EXIT_STOPPED
    assert all(t["state"] == "stopped" for t in summary["tasks"]), summary["tasks"]
    # The reason by its message id too, and every event with the line the faces show.
    assert (summary["reason_id"], summary["reason_params"]) == ("run.stopped_from_window", {})
    events = [json.loads(line) for line in (run.dir / "events.jsonl").read_text().splitlines()]
    assert {e["event"] for e in events} >= {"RunStarted", "RunStopping", "RunFinished"}
    stopping = next(e for e in events if e["event"] == "RunStopping")
    assert stopping["shown"] == {"id": "event.run_stopping",
                                   "params": {"reason": "stopped from the window"},
                                   "text": "stopping: stopped from the window"}


def test_a_stop_from_another_thread_while_the_tasks_run(tmp_path):
    session = RunSession(write_job(tmp_path, HANGS))
    events = []
    run = session.open(events.append)

    def stop_when_serving() -> None:
        logs = [run.dir / "logs" / f"{name}.log" for name in ("ps-0", "worker-0", "worker-1")]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(
                log.exists() and "serving" in log.read_text(errors="replace") for log in logs):
            time.sleep(0.05)
        session.stop("interrupted", 130)

    stopper = threading.Thread(target=stop_when_serving)
    stopper.start()
    result = session.execute()
    stopper.join()
    assert (result.exit_code, result.reason) == (130, "interrupted")
    assert read_summary(run.dir)["status"] == "interrupted"


def test_a_session_in_a_with_block_releases_its_ports(tmp_path):
    with RunSession(write_job(tmp_path, HANGS)) as session:
        ports = reserved_ports(session) if session.load() else []
        assert ports and all(port_problem(p) for p in ports)  # held
    assert all(port_problem(p) is None for p in ports)
