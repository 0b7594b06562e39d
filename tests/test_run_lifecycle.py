"""Runs of real processes (plain Python tasks, no TensorFlow): completion, failure, restarts,
signals, orphans, and complete logs. They run on POSIX and on Windows (the Windows lane), each
with its own expectations: see STOPPED and KILLED."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time

import psutil
import pytest

from core.events import RunStatus
from core.history import read_run
from core.wintree import IS_WINDOWS
from tests.conftest import (
    EXAMPLES,
    REPO,
    only_run_dir,
    read_summary,
    tensordeck,
    wait_no_leftovers,
)
from tests.launcher import Launcher

#: The exit code of a Python task stopped gracefully without a handler of its own: SIGTERM on
#: POSIX; on Windows TensorDeck's stop event raises KeyboardInterrupt, and Python exits with
#: STATUS_CONTROL_C_EXIT, as after a console Ctrl+C.
STOPPED = 0xC000013A if IS_WINDOWS else 143
#: A tree ended by force: SIGKILL on POSIX; TerminateJobObject with the same code on Windows.
KILLED = 137
#: The grace of runs whose tasks must stop by themselves (STOPPED): on Windows a task hears the
#: stop once its interpreter reaches TensorDeck's sitecustomize, and starting a process under
#: Wine on two busy cores can take seconds. A task that answers ends the wait at once. (A stop
#: during CPython's own start-up: tests/test_stop_at_start.py.)
PATIENT = {"stop_grace_seconds": 30}

# A task that behaves by role: ps serves forever (like server.join()), workers print and exit.
SERVERS_AND_WORKERS = """
import os, sys, time
role, index = os.environ["TENSORDECK_TASK"].split(":")
print(f"{role} {index} up", flush=True)
if role == "ps":
    time.sleep(600)
for step in range(3):
    print(f"step {step}/3", end="\\r" if step < 2 else "\\n")
    time.sleep(0.05)
code = int(os.environ.get("FAIL_" + role.upper() + index, "0"))
print("done", code)
sys.exit(code)
"""


def states(summary: dict) -> dict[str, tuple[str, int]]:
    return {t["task"]: (t["state"], t["exit_code"]) for t in summary["tasks"]}


def test_success_stops_the_ps_and_keeps_every_log(job):
    config = job(SERVERS_AND_WORKERS, **PATIENT)
    result = tensordeck("--run", str(config))
    assert result.returncode == 0, result.stderr
    run_dir = only_run_dir(config)
    summary = read_summary(run_dir)
    assert summary["status"] == "succeeded" and summary["exit_code"] == 0
    assert states(summary) == {
        "ps:0": ("stopped", STOPPED),
        "worker:0": ("succeeded", 0),
        "worker:1": ("succeeded", 0),
    }
    for task in summary["tasks"]:
        assert task["pid"] and task["port"] and task["started_at"] <= task["ended_at"]
    # Every byte as printed (Python writes \r\n for \n on Windows).
    assert (run_dir / "logs" / "worker-1.log").read_bytes() == (
        b"worker 1 up\nstep 0/3\rstep 1/3\rstep 2/3\ndone 0\n".replace(b"\n", os.linesep.encode())
    )
    # The ps was stopped as POSIX's default SIGTERM stops it: quietly (Windows too).
    assert "Traceback" not in (run_dir / "logs" / "ps-0.log").read_text()
    # The terminal shows the finished progress line once, prefixed; the \r states are dropped.
    assert "[worker-1] step 2/3\n" in result.stdout and "step 0/3" not in result.stdout
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "RunStarted" and kinds[-1] == "RunFinished"
    assert kinds.count("TaskStarted") == 3 and kinds.count("TaskExited") == 3
    resolved = json.loads((run_dir / "config.json").read_text())
    assert [t["task"] for t in resolved["tasks"]] == ["ps:0", "worker:0", "worker:1"]
    assert not wait_no_leftovers(run_dir)


def test_parameter_server_run_ends_with_the_chief_and_stops_its_servers(job):
    """TF2 ParameterServerStrategy: ps and workers only serve; the chief (the coordinator) is the
    one that finishes, and then the servers are stopped (gracefully: their finally runs)."""
    # The chief finishes once every server is in its try: a stop that reached a server still
    # starting up (slow under Wine) could not run its finally.
    script = """
import os, time
task = os.environ["TENSORDECK_TASK"]
run_dir = os.environ["TENSORDECK_RUN_DIR"]
print(task.split(":")[0], "up", flush=True)
if not task.startswith("chief"):
    try:
        open(os.path.join(run_dir, task.replace(":", "-") + ".serving"), "w").close()
        time.sleep(600)
    finally:
        print("server stopped", flush=True)
while len([n for n in os.listdir(run_dir) if n.endswith(".serving")]) < 3:
    time.sleep(0.05)
"""
    config = job(
        script,
        strategy="parameter_server",
        tasks=[{"role": "chief"}, {"role": "ps"}, {"role": "worker", "count": 2}],
        **PATIENT,
    )
    result = tensordeck("--run", str(config), "--no-doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = only_run_dir(config)
    assert states(read_summary(run_dir)) == {
        "chief:0": ("succeeded", 0),
        "ps:0": ("stopped", STOPPED),
        "worker:0": ("stopped", STOPPED),
        "worker:1": ("stopped", STOPPED),
    }
    for server in ("ps-0", "worker-0", "worker-1"):
        log = (run_dir / "logs" / f"{server}.log").read_text()
        assert "Traceback" not in log, log  # stopped quietly, as POSIX's default SIGTERM does
        if IS_WINDOWS:  # ... but there its finally runs (POSIX's SIGTERM ends it at once)
            assert "server stopped" in log, log
    assert not wait_no_leftovers(run_dir)


# A parameter_server job of plain tasks: worker 0's first attempt fails (the marker file says
# it was tried); the chief finishes once a worker has come back (its second attempt's marker).
RESTARTED_WORKER = """
import os, sys, time
from pathlib import Path
run = Path(os.environ["TENSORDECK_RUN_DIR"])
role = os.environ["TENSORDECK_TASK"].split(":")[0]
name = os.environ["TENSORDECK_TASK"].replace(":", "-")
if role == "chief":
    for _ in range(600):
        if (run / "worker-0.back").exists():
            print("chief: worker 0 is back, done", flush=True)
            sys.exit(0)
        time.sleep(0.1)
    sys.exit(2)
if name == "worker-0":
    if (run / "worker-0.tried").exists():
        (run / "worker-0.back").write_text("x")
    else:
        (run / "worker-0.tried").write_text("x")
        print("worker 0 crashes", flush=True)
        sys.exit(int(os.environ.get("CRASH_CODE", "1")))
print(name, "serving", flush=True)
time.sleep(600)
"""
PS_TASKS = [{"role": "chief"}, {"role": "ps"}, {"role": "worker", "count": 2}]


def test_a_parameter_server_worker_restarts_by_default_and_the_run_goes_on(job):
    """TF's ClusterCoordinator carries on without a failed worker and takes it back: so a
    worker failure restarts the worker (backoff 1 s), and the chief, never stopped, finishes."""
    config = job(RESTARTED_WORKER, strategy="parameter_server", tasks=PS_TASKS, **PATIENT)
    result = tensordeck("--run", str(config), "--no-doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = only_run_dir(config)
    summary = read_summary(run_dir)
    assert states(summary) == {
        "chief:0": ("succeeded", 0),
        "ps:0": ("stopped", STOPPED),
        "worker:0": ("stopped", STOPPED),
        "worker:1": ("stopped", STOPPED),
    }
    assert [t["restarts"] for t in summary["tasks"] if t["task"] == "worker:0"] == [1]
    assert "worker-0 restarts in 1 s (attempt 2)" in result.stdout
    assert "--- tensordeck: restart 1 of worker-0 ---" in (run_dir / "logs" / "worker-0.log"
                                                           ).read_text()
    assert "worker 0 is back" in (run_dir / "logs" / "chief-0.log").read_text()
    assert not wait_no_leftovers(run_dir)


def test_a_worker_entry_that_never_restarts_fails_the_parameter_server_run(job):
    tasks = [*PS_TASKS[:2], {"role": "worker", "count": 2, "restart": {"policy": "never"}}]
    config = job(RESTARTED_WORKER, strategy="parameter_server", tasks=tasks,
                 env={"CRASH_CODE": "6"}, **PATIENT)
    result = tensordeck("--run", str(config), "--no-doctor")
    assert result.returncode == 6, result.stdout + result.stderr
    summary = read_summary(only_run_dir(config))
    assert "worker-0 exited with code 6" in summary["reason"]
    assert states(summary)["worker:0"] == ("failed", 6)
    assert states(summary)["chief:0"] == ("stopped", STOPPED)


# The ps's own SIGTERM handler fails (on Windows the stop event runs it as well).
FAILS_WHEN_STOPPED = """
import os, signal, time
serving = os.path.join(os.environ["TENSORDECK_RUN_DIR"], "serving")
if os.environ["TENSORDECK_TASK"] == "ps:0":
    def flush(signum, frame):
        raise RuntimeError("could not flush the variables")
    signal.signal(signal.SIGTERM, flush)
    open(serving, "w").close()
    print("serving", flush=True)
    time.sleep(600)
while not os.path.exists(serving):  # as a worker waits for its ps: else the stop may come first
    time.sleep(0.05)
print("worker done")
"""


def test_a_task_that_fails_by_itself_during_the_stop_is_failed_not_stopped(job):
    """The run had succeeded (the workers finished): it stays succeeded, exit 0, while the ps
    that failed in its own stop handler is recorded failed with its code, and said so."""
    config = job(FAILS_WHEN_STOPPED, tasks=[{"role": "ps"}, {"role": "worker"}])
    result = tensordeck("--run", str(config))
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = only_run_dir(config)
    summary = read_summary(run_dir)
    assert (summary["status"], summary["exit_code"]) == ("succeeded", 0)
    assert states(summary) == {"ps:0": ("failed", 1), "worker:0": ("succeeded", 0)}
    assert "warning: ps-0 failed while the run was being stopped (exit code 1)" in result.stdout
    assert "RuntimeError: could not flush the variables" in (run_dir / "logs" / "ps-0.log"
                                                             ).read_text()


@pytest.mark.tf
def test_kill_9_of_a_tensorflow_worker_mid_run_restarts_it_and_the_run_succeeds(tmp_path):
    """TF's parameter-server quickstart (tensorflow-cpu): one worker is killed with kill -9
    while the chief trains; the worker is restarted at its address, the coordinator goes on
    (its steps are rescheduled) and finishes, the run succeeds with that worker's restarts 1."""
    config = json.loads((EXAMPLES / "quickstart.json").read_text())
    config.update(script=str(EXAMPLES / "train_ps.py"), args=["--steps", "2000"])
    config["tasks"] = [{"role": "chief"}, {"role": "worker", "count": 2},
                       {"role": "ps", "gpus": []}]  # a free port, not the example's 23100
    path = tmp_path / "quickstart.json"
    path.write_text(json.dumps(config))
    launcher = Launcher(path)
    run_dir = _wait_for_log(path, "chief-0", "step 100/2000")
    victim = next(t for t in read_summary(run_dir)["tasks"] if t["task"] == "worker:0")
    psutil.Process(victim["pid"]).kill()  # SIGKILL; TerminateProcess on Windows
    returncode, out = launcher.finish(timeout=240)
    assert returncode == 0, out[-4000:]
    assert "worker-0 exited with code 137 (killed: SIGKILL) (failed)" in out or IS_WINDOWS
    assert "worker-0 restarts in 1 s (attempt 2)" in out
    summary = read_summary(run_dir)
    assert summary["status"] == "succeeded"
    worker = next(t for t in summary["tasks"] if t["task"] == "worker:0")
    assert (worker["restarts"], worker["state"]) == (1, "stopped") and worker["pid"] != victim[
        "pid"]
    chief = (run_dir / "logs" / "chief-0.log").read_text(errors="replace")
    assert "step 2000/2000" in chief and "checkpoint saved" in chief
    assert not wait_no_leftovers(run_dir)


def test_worker_failure_fails_the_run_with_its_code(job):
    config = job(SERVERS_AND_WORKERS, env={"FAIL_WORKER1": "7"}, **PATIENT)
    result = tensordeck("--run", str(config))
    assert result.returncode == 7, result.stdout + result.stderr
    run_dir = only_run_dir(config)
    summary = read_summary(run_dir)
    assert summary["status"] == "failed" and summary["exit_code"] == 7
    assert states(summary)["worker:1"] == ("failed", 7)
    assert states(summary)["ps:0"] == ("stopped", STOPPED)
    assert "worker-1 exited with code 7" in summary["reason"]
    assert not wait_no_leftovers(run_dir)


def test_on_failure_restarts_then_succeeds(job, tmp_path):
    script = """
import os, sys, pathlib
marker = pathlib.Path(os.environ["TENSORDECK_RUN_DIR"]) / "tried"
if os.environ["TENSORDECK_TASK"] == "worker:0" and not marker.exists():
    marker.write_text("x")
    print("first attempt fails")
    sys.exit(3)
print("ok")
"""
    config = job(
        script,
        strategy="multi_worker_mirrored",
        tasks=[{"role": "worker", "count": 2}],
        restart={"policy": "on_failure", "max_restarts": 2, "backoff_seconds": 0.1},
    )
    result = tensordeck("--run", str(config))
    assert result.returncode == 0, result.stdout + result.stderr
    run_dir = only_run_dir(config)
    worker0 = read_summary(run_dir)["tasks"][0]
    assert (worker0["state"], worker0["restarts"], worker0["exit_code"]) == ("succeeded", 1, 0)
    log = (run_dir / "logs" / "worker-0.log").read_text()
    assert log.startswith("first attempt fails\n--- tensordeck: restart 1 of worker-0 ---\nok\n")
    kinds = [
        json.loads(line)["event"] for line in (run_dir / "events.jsonl").read_text().splitlines()
    ]
    assert kinds.count("TaskRestarting") == 1


def test_restarts_exhausted_fail_with_the_last_code(job):
    config = job(
        "import sys; print('boom'); sys.exit(5)",
        strategy="single",
        tasks=[{"role": "worker"}],
        restart={"policy": "on_failure", "max_restarts": 2, "backoff_seconds": 0},
    )
    result = tensordeck("--run", str(config))
    assert result.returncode == 5
    task = read_summary(only_run_dir(config))["tasks"][0]
    assert (task["state"], task["restarts"]) == ("failed", 2)
    assert (only_run_dir(config) / "logs" / "worker-0.log").read_text().count("boom") == 3


@pytest.mark.skipif(IS_WINDOWS, reason="POSIX signals; Windows crash codes: the test below")
def test_task_killed_by_signal_exits_128_plus_n(job):
    config = job(
        "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
        strategy="single",
        tasks=[{"role": "worker"}],
    )
    assert tensordeck("--run", str(config)).returncode == 137


@pytest.mark.skipif(not IS_WINDOWS, reason="Windows status codes; POSIX crashes: the test above")
def test_task_crash_shows_its_windows_status_and_exits_125(job):
    """An access violation ends a task with 0xC0000005 (3221225477): shown by name, kept whole
    in summary.json, and the launcher exits with 125, which fits an exit status."""
    config = job(
        "import faulthandler; print('crashing', flush=True); faulthandler._read_null()",
        strategy="single",
        tasks=[{"role": "worker"}],
    )
    result = tensordeck("--run", str(config))
    assert result.returncode == 125, result.stdout + result.stderr
    assert "worker-0 exited with code 0xC0000005 (access violation" in result.stdout
    summary = read_summary(only_run_dir(config))
    assert states(summary)["worker:0"] == ("failed", 0xC0000005)
    assert summary["exit_code"] == 0xC0000005
    assert summary["exit_description"].startswith("0xC0000005 (access violation")


def test_leftover_that_ignores_sigterm_is_killed_after_grace(job):
    script = """
import os, signal, time
if os.environ["TENSORDECK_TASK"] == "evaluator:0":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # what a Windows stop would raise
    print("evaluating forever", flush=True)
    time.sleep(600)
print("chief done")
"""
    config = job(
        script,
        strategy="multi_worker_mirrored",
        stop_grace_seconds=0.5,
        tasks=[{"role": "chief"}, {"role": "evaluator"}],
    )
    started = time.monotonic()
    result = tensordeck("--run", str(config))
    assert result.returncode == 0
    assert time.monotonic() - started < 30
    summary = read_summary(only_run_dir(config))
    assert states(summary)["evaluator:0"] == ("stopped", KILLED)
    assert not wait_no_leftovers(only_run_dir(config))


def _wait_for_tasks(config, count: int, timeout: float = 30) -> None:
    """Wait until ``count`` tasks of the run have printed something (reading their logs)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        runs = config.parent / "runs"
        if runs.exists():
            logs = list(runs.glob("*/logs/*.log"))
            if len([p for p in logs if p.stat().st_size]) >= count:
                return
        time.sleep(0.1)
    raise AssertionError("tasks did not start")


def _wait_for_log(config, task: str, text: str, timeout: float = 120):
    """The run folder, once ``task``'s log holds ``text``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for log in (config.parent / "runs").glob(f"*/logs/{task}.log"):
            if text in log.read_text(errors="replace"):
                return log.parent.parent
        time.sleep(0.2)
    raise AssertionError(f"{task} never printed {text!r}")


HANG = """
import os, subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # a grandchild
print("serving", flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize(
    ("sig", "code"),
    [
        pytest.param(
            signal.SIGINT, 130, id="ctrl-c",
            marks=pytest.mark.skipif(
                IS_WINDOWS, reason="a console Ctrl+C needs a console shared with the test"
            ),
        ),
        pytest.param(signal.SIGTERM, 143, id="stop"),
    ],
)
def test_ctrl_c_and_sigterm_stop_everything(job, sig, code):
    config = job(HANG)
    launcher = Launcher(config)
    _wait_for_tasks(config, 3)
    launcher.stop(sig)
    returncode, out = launcher.finish()
    assert returncode == code, out
    run_dir = only_run_dir(config)
    summary = read_summary(run_dir)
    assert summary["status"] == "interrupted" and summary["exit_code"] == code
    assert {s for s, _ in states(summary).values()} == {"stopped"}
    assert not wait_no_leftovers(run_dir)


@pytest.mark.skipif(IS_WINDOWS, reason="a console Ctrl+C needs a console shared with the test")
def test_ctrl_c_at_any_moment_of_the_start_is_no_traceback(job):
    """Ctrl+C while the launcher still imports and plans (0-0.5 s after it started), at 12
    moments spread over that time: one line, exit 130, never a traceback or a task left."""
    config = job(HANG)
    for delay in [n * 0.04 for n in range(12)]:
        launcher = subprocess.Popen([sys.executable, "-m", "core", "--run", str(config)],
                                    cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
        time.sleep(delay)
        launcher.send_signal(signal.SIGINT)
        out, err = launcher.communicate(timeout=60)
        if "Traceback" in err and "entry.py" not in err:
            continue  # Python's own start-up (site, runpy importing the entry: no .pyc yet in a
            # fresh clone), before TensorDeck's handler exists; only then
        # -SIGINT: the signal came before Python's own handler existed (no output at all).
        assert launcher.returncode in (130, -signal.SIGINT), (delay, launcher.returncode, err)
        assert "Traceback" not in err + out, (delay, err)
    for run_dir in (config.parent / "runs").glob("*"):
        assert read_summary(run_dir)["status"] == "interrupted", run_dir
        assert not wait_no_leftovers(run_dir)


BLOCKS_AN_ENTRY_IMPORT = """
import sys, time
class Blocks:  # holds the import of core.exitcodes, which core.entry does first, until Ctrl+C
    def find_spec(self, name, path=None, target=None):
        if name == "core.exitcodes":
            print("importing", flush=True)
            time.sleep(30)
sys.meta_path.insert(0, Blocks())
from core.entry import main
sys.exit(main(["--help"]))
"""


@pytest.mark.skipif(IS_WINDOWS, reason="a console Ctrl+C cannot be sent to one process here")
def test_ctrl_c_while_the_entry_itself_imports_is_one_line():
    """The moment CI once hit: Ctrl+C while ``core.entry`` imports its own modules, before
    ``main`` runs."""
    child = subprocess.Popen([sys.executable, "-c", BLOCKS_AN_ENTRY_IMPORT], cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "importing\n"
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert (child.returncode, err) == (130, "tensordeck: interrupted (Ctrl+C)\n"), out


TRAPS_THE_STOP = """
import atexit, os, signal, sys, time
name = os.environ["TENSORDECK_TASK"].replace(":", "-")
done = os.path.join(os.environ["TENSORDECK_RUN_DIR"], name + ".done")
if name == "ps-0":  # the checkpointing kind: its own handler
    def save(signum, frame):
        print("handler: checkpoint saved", flush=True)
        sys.exit(0)
    signal.signal(signal.SIGTERM, save)
else:  # the plain kind: finally and atexit
    atexit.register(lambda: open(done, "w").write("atexit"))
print("serving", flush=True)
try:
    time.sleep(600)
finally:
    print("finally ran", flush=True)
"""


def test_a_stop_runs_the_tasks_own_handlers(job):
    """A graceful stop lets a task save its work: its SIGTERM handler runs (on Windows too,
    where no signal can reach a task without a shared console), or its finally and atexit."""
    config = job(TRAPS_THE_STOP, stop_grace_seconds=20)
    launcher = Launcher(config)
    _wait_for_tasks(config, 3)
    launcher.stop(signal.SIGTERM)
    returncode, out = launcher.finish()
    assert returncode == 143, out
    run_dir = only_run_dir(config)
    logs = run_dir / "logs"
    assert "handler: checkpoint saved" in (logs / "ps-0.log").read_text()
    assert states(read_summary(run_dir))["ps:0"] == ("stopped", 0)
    if IS_WINDOWS:  # POSIX's default SIGTERM ends a process without running either
        for worker in ("worker-0", "worker-1"):
            assert "finally ran" in (logs / f"{worker}.log").read_text()
            assert (run_dir / f"{worker}.done").read_text() == "atexit"
    assert not wait_no_leftovers(run_dir)


def _wait_for_summary(run_dir, done) -> dict:
    """The live summary once ``done(summary)``; a read that meets the replace is retried."""
    deadline = time.monotonic() + 30
    summary: dict = {}
    while time.monotonic() < deadline:
        try:
            summary = read_summary(run_dir)
            if done(summary):
                return summary
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    raise AssertionError(summary)


def test_the_summary_says_what_runs_now_and_a_killed_launcher_is_abandoned(job):
    """summary.json is the live truth: every task running with its real pid, the launcher's
    pid; History says running while the launcher lives and abandoned after its kill -9, and
    the kill leaves no process behind."""
    config = job(HANG)
    launcher = Launcher(config)
    _wait_for_tasks(config, 3)
    run_dir = only_run_dir(config)
    summary = _wait_for_summary(run_dir, lambda s: s["launcher"]["started_at"])
    assert summary["status"] == "running" and summary["launcher"]["pid"] == launcher.proc.pid
    assert {t["state"] for t in summary["tasks"]} == {"running"}
    children = psutil.Process(launcher.proc.pid).children(recursive=True)
    assert {t["pid"] for t in summary["tasks"]} <= {p.pid for p in children}
    assert read_run(run_dir).status is RunStatus.RUNNING
    launcher.proc.kill()  # SIGKILL; TerminateProcess on Windows
    launcher.proc.wait(timeout=10)
    assert not wait_no_leftovers(run_dir, timeout=5)
    assert read_summary(run_dir)["status"] == "running"  # the launcher never finished it
    assert read_run(run_dir).status is RunStatus.ABANDONED


def test_the_summary_follows_a_restart_as_it_happens(job):
    """While worker 0 waits to restart, the summary says so (and the run still runs)."""
    script = """
import os, sys, time
from pathlib import Path
tried = Path(os.environ["TENSORDECK_RUN_DIR"]) / "tried"
if os.environ["TENSORDECK_TASK"] == "worker:0" and not tried.exists():
    tried.write_text("x")
    sys.exit(3)
print("up", flush=True)
time.sleep(600)
"""
    config = job(script, strategy="multi_worker_mirrored", tasks=[{"role": "worker", "count": 2}],
                 restart={"policy": "on_failure", "max_restarts": 1, "backoff_seconds": 600})
    launcher = Launcher(config)
    _wait_for_tasks(config, 1)
    run_dir = only_run_dir(config)

    def worker0(summary: dict) -> dict:
        return next(t for t in summary["tasks"] if t["task"] == "worker:0")

    summary = _wait_for_summary(run_dir, lambda s: worker0(s)["state"] == "restarting")
    assert (worker0(summary)["exit_code"], worker0(summary)["restarts"]) == (3, 0)
    assert summary["status"] == "running"
    launcher.stop(signal.SIGTERM)
    returncode, out = launcher.finish()
    assert returncode == 143, out
    final = read_summary(run_dir)
    assert final["status"] == "interrupted"
    assert (worker0(final)["state"], worker0(final)["exit_code"]) == ("failed", 3)
    assert not wait_no_leftovers(run_dir)


def test_flood_every_line_reaches_log_and_terminal(job):
    lines = 200_000
    config = job(
        f"import sys\nw = sys.stdout.write\nfor i in range({lines}): w(f'line {{i}}\\n')\n",
        strategy="single",
        tasks=[{"role": "worker"}],
    )
    result = tensordeck("--run", str(config))
    assert result.returncode == 0
    log = (only_run_dir(config) / "logs" / "worker-0.log").read_text().splitlines()
    assert log == [f"line {i}" for i in range(lines)]
    shown = [line for line in result.stdout.splitlines() if line.startswith("[worker-0]")]
    assert shown == [f"[worker-0] line {i}" for i in range(lines)]


@pytest.mark.skipif(IS_WINDOWS, reason="the vanishing interpreter is a POSIX shell script")
def test_missing_interpreter_at_start_is_a_failed_task_not_a_crash(job, tmp_path):
    """A config whose interpreter vanishes between validation and start: the run fails cleanly."""
    fake = tmp_path / "python-gone"
    # A real Python when validation runs it, gone when the task starts.
    fake.write_text(f'#!/bin/sh\nrm -f "$0"\nexec {shlex.quote(sys.executable)} "$@"\n')
    fake.chmod(0o755)
    config = job("print('x')", strategy="single", tasks=[{"role": "worker"}], python=str(fake))
    result = tensordeck("--run", str(config))
    assert result.returncode == 127
    summary = read_summary(only_run_dir(config))
    assert states(summary)["worker:0"] == ("failed", 127)
    assert "cannot start" in (only_run_dir(config) / "logs" / "worker-0.log").read_text()


def test_dry_run_prints_commands_and_starts_nothing(job):
    config = job(SERVERS_AND_WORKERS)
    result = tensordeck("--run", str(config), "--dry-run")
    assert result.returncode == 0
    assert "[worker-1] listens on localhost:" in result.stdout
    assert "--job_name=worker --task_index=1 --ps_hosts=localhost:" in result.stdout
    assert (
        "TENSORDECK_TASK=worker:1" in result.stdout and "CUDA_VISIBLE_DEVICES=-1" in result.stdout
    )
    assert result.stdout.count("  restart: never\n") == 3  # the ps and both workers
    assert not (config.parent / "runs").exists()


def test_dry_run_shows_each_tasks_restart_policy(job):
    config = job("pass", strategy="parameter_server", tasks=[
        {"role": "chief"}, {"role": "worker", "count": 2}, {"role": "ps"}])
    out = tensordeck("--run", str(config), "--dry-run", "--no-doctor").stdout
    blocks = {b.split("]")[0]: b for b in out.split("\n[")[1:]}
    assert "restart: never" in blocks["chief-0"] and "restart: never" in blocks["ps-0"]
    assert "restart: on failure, up to 3 times (1 s back-off, doubling)" in blocks["worker-1"]


def test_run_dir_option(job, tmp_path):
    config = job("print('hi')", strategy="single", tasks=[{"role": "worker"}])
    out = tmp_path / "elsewhere"
    assert tensordeck("--run", str(config), "--run-dir", str(out)).returncode == 0
    assert read_summary(out)["status"] == "succeeded"
    assert (out / "logs" / "worker-0.log").read_text() == "hi\n"
