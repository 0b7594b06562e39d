"""The shipped examples, run for real with TensorFlow (tensorflow-cpu) on localhost."""

from __future__ import annotations

import json

import pytest

from tests.conftest import EXAMPLES, REPO, read_summary, tensordeck, wait_no_leftovers

pytestmark = pytest.mark.tf


def run_example(name: str, tmp_path) -> tuple[dict, object]:
    run_dir = tmp_path / name
    result = tensordeck(
        "--run", str(EXAMPLES / f"{name}.json"), "--run-dir", str(run_dir), timeout=300
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert not wait_no_leftovers(run_dir), "a task outlived the run"
    summary = read_summary(run_dir)
    assert summary["status"] == "succeeded" and summary["exit_code"] == 0
    return summary, run_dir


def states(summary: dict) -> dict[str, str]:
    return {t["task"]: t["state"] for t in summary["tasks"]}


def log(run_dir, task: str) -> str:
    return (run_dir / "logs" / f"{task}.log").read_text(encoding="utf-8", errors="replace")


def test_quickstart_parameter_server(tmp_path):
    summary, run_dir = run_example("quickstart", tmp_path)
    assert states(summary) == {
        "ps:0": "stopped",
        "worker:0": "stopped",
        "worker:1": "stopped",
        "chief:0": "succeeded",
    }
    chief = log(run_dir, "chief-0")
    assert "step 300/300" in chief
    resolved = json.loads((run_dir / "config.json").read_text())
    assert resolved["cluster"]["ps"] == ["localhost:23100"]


def test_between_graph_tf1_flags(tmp_path):
    summary, run_dir = run_example("between_graph", tmp_path)
    assert states(summary) == {"ps:0": "stopped", "worker:0": "succeeded", "worker:1": "succeeded"}
    assert "--job_name=worker" in " ".join(
        json.loads((run_dir / "config.json").read_text())["tasks"][1]["argv"]
    )
    assert "worker:0 done at global_step" in log(run_dir, "worker-0")


def test_multi_worker_mirrored_keras_fit(tmp_path):
    summary, run_dir = run_example("multi_worker", tmp_path)
    assert set(states(summary).values()) == {"succeeded"}
    assert "Epoch 2/2" in log(run_dir, "worker-0")


def test_mirrored_single_process(tmp_path):
    summary, run_dir = run_example("mirrored", tmp_path)
    assert states(summary) == {"worker:0": "succeeded"}
    # "auto" stays TF's own choice off Windows (hierarchical_copy on Windows).
    assert "1 replica(s), cross_device_ops=auto" in log(run_dir, "worker-0")


def test_the_readme_quick_start_is_the_two_commands_ci_and_a_newcomer_run():
    """README's Quick start: one command that installs and runs the example job, one that
    installs the test extras and runs the tests (the command .ci/run runs); nothing else."""
    import re

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", section, re.S)
    assert len(commands) == 2, commands
    setup_and_run, tests = (c.strip() for c in commands)
    assert "\n" not in setup_and_run and "\n" not in tests
    assert setup_and_run.endswith("tensordeck --run resources/examples/quickstart.json")
    assert tests.endswith("-m pytest")
    assert tests.split("&& ")[-1] in (REPO / ".ci" / "run").read_text()
