"""Past runs read back from real run folders made by the real CLI."""

from __future__ import annotations

import json
import shutil

from core.history import ABANDONED, list_runs, read_run
from tests.conftest import tensordeck


def make_run(tmp_path, job, script: str) -> None:
    path = job(script, strategy="single", tasks=[{"role": "worker"}])
    tensordeck("--run", str(path), timeout=60)


def test_lists_runs_newest_first_with_status_duration_and_logs(tmp_path, job):
    make_run(tmp_path, job, "print('first run')")
    make_run(tmp_path, job, "import sys; print('second run'); sys.exit(3)")
    records = list_runs([tmp_path])
    assert [r.status for r in records] == ["failed", "succeeded"]
    failed, ok = records
    assert failed.exit_code != 0 and ok.exit_code == 0
    assert ok.name == "t" and ok.strategy == "single"
    assert ok.duration is not None and ok.duration >= 0
    assert ok.config_path and ok.config_path.endswith("job.json")
    logs = failed.log_paths()
    assert list(logs) == ["worker:0"]
    assert "second run" in logs["worker:0"].read_text()
    # The same runs, found from the runs folder or one run folder; listed once each.
    assert len(list_runs([tmp_path / "runs", tmp_path])) == 2
    assert read_run(ok.run_dir) == ok


def test_a_running_summary_without_processes_is_abandoned(tmp_path, job):
    make_run(tmp_path, job, "print('x')")
    (run_dir,) = (tmp_path / "runs").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    summary.update(status="running", exit_code=None)
    for task in summary["tasks"]:
        task["pid"] = 2**22 + 12345  # above Linux's pid_max: no such process
    (run_dir / "summary.json").write_text(json.dumps(summary))
    assert read_run(run_dir).status == ABANDONED


def test_folders_that_are_not_runs_are_skipped(tmp_path, job):
    make_run(tmp_path, job, "print('x')")
    (run_dir,) = (tmp_path / "runs").iterdir()
    broken = tmp_path / "runs" / "broken"
    shutil.copytree(run_dir, broken)
    (broken / "summary.json").write_text("{half")
    (tmp_path / "runs" / "empty").mkdir()
    assert [r.run_dir for r in list_runs([tmp_path])] == [run_dir]
    assert read_run(tmp_path / "missing") is None
