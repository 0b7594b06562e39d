"""Runs whose interpreter is inside WSL (``"python": "wsl://DISTRO/path"``), through the real
launcher and the wsl.exe stand-in (tests/wsl: a real program that relays to a Linux server,
which runs each command as wsl.exe would). Every task runs in the distribution through the
node agent; the run folder, logs and summary are this machine's; a stop is the tasks' own
SIGTERM; a launcher killed outright leaves nothing running there."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.launcher import Launcher

IS_WINDOWS = sys.platform == "win32"
DISTRO = "Ubuntu-22.04"

SHOW = """
import json, os, sys
here = {k: os.environ.get(k) for k in ("WSL_DISTRO_NAME", "TENSORDECK_TASK", "TF_CONFIG",
                                        "TENSORDECK_RUN_DIR", "JOB_VAR", "WINDOWS_ONLY")}
here["cwd"] = os.getcwd()
here["argv"] = sys.argv[1:]
print("SEEN " + json.dumps(here), flush=True)
name = here["TENSORDECK_TASK"].replace(":", "-") + ".txt"
with open(os.path.join(os.environ["TENSORDECK_RUN_DIR"], name), "w") as f:
    f.write("written inside WSL")
"""

SERVE = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, lambda *_: (print("graceful stop", flush=True), sys.exit(0)))
print("serving", os.getpid(), flush=True)
time.sleep(600)
"""


def _job(folder: Path, standin, script: str, **extra) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "task.py").write_text(script)
    python = f"wsl://{DISTRO}{standin.homes[DISTRO]}/tf/bin/python"
    job = {"name": "wsl", "strategy": "single", "script": "task.py", "python": python, **extra}
    path = folder / "job.json"
    path.write_text(json.dumps(job))
    return path


def _tensordeck(*args: str, env: dict[str, str], timeout: float = 300
                ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def _seen(log: Path) -> dict:
    lines = [ln for ln in log.read_text().splitlines() if ln.startswith("SEEN ")]
    assert lines, log.read_text()
    return json.loads(lines[-1][5:])


def test_every_task_runs_inside_the_distribution_and_writes_this_machines_run_folder(
        tmp_path, wsl_standin):
    """A two-worker MultiWorkerMirrored job: each task runs in the distribution (WSL's own
    variables), with its TF_CONFIG, the job's env (this machine's other variables do not cross),
    its arguments' {run_dir} as the distribution reaches it, and its files land in the run
    folder this machine keeps."""
    job = _job(tmp_path / "job", wsl_standin, SHOW, strategy="multi_worker_mirrored",
               args=["--out={run_dir}/x"], env={"JOB_VAR": "a b"},
               tasks=[{"role": "worker", "count": 2}])
    run_dir = tmp_path / "run"
    env = {**os.environ, **wsl_standin.environ(), "WINDOWS_ONLY": "never crosses"}
    done = _tensordeck("--run", str(job), "--run-dir", str(run_dir), "--no-doctor", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "succeeded"
    for index in (0, 1):
        seen = _seen(run_dir / "logs" / f"worker-{index}.log")
        assert seen["WSL_DISTRO_NAME"] == DISTRO
        assert seen["TENSORDECK_TASK"] == f"worker:{index}"
        assert seen["JOB_VAR"] == "a b" and seen["WINDOWS_ONLY"] is None
        assert json.loads(seen["TF_CONFIG"])["task"] == {"type": "worker", "index": index}
        linux_run_dir = seen["TENSORDECK_RUN_DIR"]
        assert seen["argv"] == [f"--out={linux_run_dir}/x"]
        assert wsl_standin.local(linux_run_dir).samefile(run_dir)
        assert (run_dir / f"worker-{index}.txt").read_text() == "written inside WSL"
    resolved = json.loads((run_dir / "config.json").read_text())
    assert [t["argv"][0] for t in resolved["tasks"]] == [
        f"{wsl_standin.homes[DISTRO]}/tf/bin/python"] * 2


def test_dry_run_shows_the_commands_inside_the_distribution(tmp_path, wsl_standin):
    job = _job(tmp_path / "job", wsl_standin, SHOW)
    env = {**os.environ, **wsl_standin.environ()}
    done = _tensordeck("--run", str(job), "--dry-run", "--no-doctor", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{wsl_standin.homes[DISTRO]}/tf/bin/python" in done.stdout
    assert not (tmp_path / "job" / "runs").exists()


#: Run inside the distribution: the pids whose environment holds TD_MARKER=argv[1].
MARKED = """
import os, sys
want = ("TD_MARKER=" + sys.argv[1]).encode()
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            if want in f.read().split(b"\\0"):
                print(pid)
    except OSError:
        pass
"""


def _running_inside(standin, marker: str) -> list[str]:
    """The processes of the distribution with ``marker``, asked there as a user would ask WSL
    (``wsl.exe -d DISTRO -e python3 ...``): Windows' own process list does not hold them."""
    done = standin.run("-d", DISTRO, "-e", "python3", "-c", MARKED, marker)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().split()


def test_a_launcher_killed_outright_leaves_nothing_running_in_the_distribution(
        tmp_path, wsl_standin):
    """The launcher killed outright (kill -9; TerminateProcess on Windows): its watchdog (its
    job object on Windows) ends the stand-in's tree, wsl.exe with it; real wsl.exe leaves the
    Linux process running, so the agent ends the task tree when its stdin closes (the
    stand-in's server does exactly what WSL does: it closes stdin, kills nothing)."""
    marker = uuid.uuid4().hex
    job = _job(tmp_path / "job", wsl_standin, SERVE, env={"TD_MARKER": marker})
    env = {**os.environ, **wsl_standin.environ()}
    launcher = subprocess.Popen([sys.executable, "-m", "core", "--run", str(job), "--no-doctor"],
                                cwd=REPO, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while not _running_inside(wsl_standin, marker):
            assert time.monotonic() < deadline, "the task never started in the distribution"
            assert launcher.poll() is None, launcher.communicate()[0]
            time.sleep(0.5)
        launcher.kill()
        launcher.wait(30)
        deadline = time.monotonic() + 60
        while (left := _running_inside(wsl_standin, marker)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not left
    finally:
        if launcher.poll() is None:
            launcher.kill()
        launcher.communicate()


def test_a_stop_is_the_tasks_own_sigterm(tmp_path, wsl_standin):
    """A stop of the launcher (SIGTERM; the stop event on Windows: a window's Stop): the
    task's SIGTERM handler runs inside the distribution, the run ends as stopped (143), the
    log keeps the task's last words."""
    job = _job(tmp_path / "job", wsl_standin, SERVE)
    run_dir = tmp_path / "run"
    env = {**os.environ, **wsl_standin.environ()}
    launcher = Launcher(job, "--run-dir", str(run_dir), "--no-doctor", env=env)
    log = run_dir / "logs" / "worker-0.log"
    deadline = time.monotonic() + 120
    while not (log.exists() and "serving" in log.read_text()):
        assert time.monotonic() < deadline and launcher.proc.poll() is None, launcher.finish()
        time.sleep(0.2)
    launcher.stop(signal.SIGTERM)
    returncode, out = launcher.finish(timeout=60)
    assert returncode == 143, out
    assert "graceful stop" in log.read_text()


@pytest.mark.parametrize(("python", "scenario", "said"), [
    ("wsl://Nope/usr/bin/python3", "wsl", "Nope"),
    ("wsl://Legacy/usr/bin/python3", "wsl", "WSL 1"),
    ("wsl:///usr/bin/python3", "not-installed", "wsl --install"),
    ("wsl:///usr/bin/python3", "no-distro", "distribution"),
    ("wsl://Ubuntu-22.04/usr/bin/../x", "wsl", "python"),
])
def test_a_wsl_interpreter_that_cannot_run_is_refused_at_the_door(
        tmp_path, wsl_standin, python, scenario, said):
    folder = tmp_path / "job"
    folder.mkdir()
    (folder / "task.py").write_text("print('never')\n")
    job = folder / "job.json"
    job.write_text(json.dumps({"name": "w", "strategy": "single", "script": "task.py",
                               "python": python}))
    env = {**os.environ, **wsl_standin.environ(scenario)}
    for args in (["validate", str(job)], ["--run", str(job), "--no-doctor"]):
        done = _tensordeck(*args, env=env)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "python" in done.stdout + done.stderr and said in done.stdout + done.stderr
        assert "Traceback" not in done.stdout + done.stderr
    assert not (folder / "runs").exists()


def test_a_job_mixing_wsl_with_lan_nodes_is_refused(tmp_path):
    folder = tmp_path / "job"
    folder.mkdir()
    (folder / "task.py").write_text("print('never')\n")
    job = folder / "job.json"
    job.write_text(json.dumps({
        "name": "w", "script": "task.py", "python": "wsl://Ubuntu/usr/bin/python3",
        "strategy": "multi_worker_mirrored", "address": "192.0.2.5",
        "nodes": {"far": {"host": "192.0.2.1", "python": "/usr/bin/python3",
                          "workdir": "/srv/td"}},
        "tasks": [{"role": "worker"}, {"role": "worker", "node": "far"}]}))
    done = _tensordeck("validate", str(job), env=dict(os.environ))
    assert done.returncode == 2
    assert "python: a WSL interpreter" in done.stdout + done.stderr


def test_the_quickstart_trains_inside_the_distribution(tmp_path, wsl_standin):
    """The shipped parameter-server quickstart with its interpreter inside WSL, doctor and all:
    real TensorFlow trains there, the chief finishes, the servers are stopped, nothing is
    left running. Not marked ``tf``: TensorFlow runs on the Linux side, so the Windows lane
    (which leaves out multi-process TF under Wine) runs this one too."""
    from tests.conftest import EXAMPLES, wait_no_leftovers

    job = json.loads((EXAMPLES / "quickstart.json").read_text())
    (tmp_path / "train.py").write_text((EXAMPLES / job["script"]).read_text())
    job.update(script="train.py", python=f"wsl://{DISTRO}{wsl_standin.homes[DISTRO]}/tf/bin/python")
    # A free port for its ps, not the example's 23100: CI runs the Linux suite's quickstarts on
    # this machine at the same time, and the stand-in's distribution is this machine.
    job["tasks"] = [{k: v for k, v in t.items() if k != "port"} for t in job["tasks"]]
    path = tmp_path / "job.json"
    path.write_text(json.dumps(job))
    run_dir = tmp_path / "run"
    done = _tensordeck("--run", str(path), "--run-dir", str(run_dir),
                       env={**os.environ, **wsl_standin.environ()}, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert {t["task"]: t["state"] for t in summary["tasks"]} == {
        "ps:0": "stopped", "worker:0": "stopped", "worker:1": "stopped", "chief:0": "succeeded"}
    assert "step 300/300" in (run_dir / "logs" / "chief-0.log").read_text()
    assert not wait_no_leftovers(run_dir)
