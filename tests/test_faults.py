"""Faults a run must survive, or end cleanly with a true summary: detached descendants, a
killed watchdog, a lost terminal, a full disk, endless restarts, TensorDeck's own errors."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from core.events import RunWarning, TaskOutput
from core.supervisor import MAX_BACKOFF_SECONDS, backoff_delay
from core.wintree import IS_WINDOWS
from tests.conftest import (
    REPO,
    leftovers,
    only_run_dir,
    read_summary,
    tensordeck,
    wait_no_leftovers,
)

posix_only = pytest.mark.skipif(IS_WINDOWS, reason="POSIX sessions and signals; on Windows "
                                "nothing leaves a Job Object (tests/test_run_lifecycle.py)")

# A task that starts a daemon the POSIX way (fork, setsid, fork) and exits at once. The daemon
# keeps the task's stdout (KEEP=1) or points it at /dev/null, and lives for 10 minutes.
DAEMONIZES = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        if os.environ.get("KEEP") != "1":
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
        time.sleep(600)
    os._exit(0)
print("daemon started", flush=True)
"""
# The Windows way: a detached process (no console, its own process group) that inherits the
# task's stdout or gets none. It is still in the task's Job Object, which TensorDeck ends.
DAEMONIZES_WINDOWS = """
import os, subprocess, sys
out = sys.stdout if os.environ.get("KEEP") == "1" else subprocess.DEVNULL
detached = 0x00000008 | 0x00000200  # DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], stdout=out,
                 stderr=out, creationflags=detached)
print("daemon started", flush=True)
"""


def _launch(config: Path, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "core", "--run", str(config)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs)


def _wait_for_log(config: Path, text: str, timeout: float = 30) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for log in (config.parent / "runs").glob("*/logs/*.log"):
            if text in log.read_text(errors="replace"):
                return log.parent.parent
        time.sleep(0.1)
    raise AssertionError(f"no task printed {text!r}")


@pytest.mark.parametrize("keep", ["1", "0"], ids=["holds-stdout", "to-dev-null"])
def test_a_detached_daemon_neither_holds_the_run_nor_outlives_it(job, keep):
    script = DAEMONIZES_WINDOWS if IS_WINDOWS else DAEMONIZES
    config = job(script, strategy="single", tasks=[{"role": "worker"}], env={"KEEP": keep})
    started = time.monotonic()
    result = tensordeck("--run", str(config), timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert time.monotonic() - started < 20  # bounded wait for the pipe, not the daemon's 600 s
    run_dir = only_run_dir(config)
    assert read_summary(run_dir)["status"] == "succeeded"
    assert not wait_no_leftovers(run_dir)


@posix_only
def test_kill_9_of_the_launcher_also_ends_detached_daemons(job):
    config = job(DAEMONIZES + "time.sleep(600)\n", strategy="single", tasks=[{"role": "worker"}])
    launcher = _launch(config)
    run_dir = _wait_for_log(config, "daemon started")
    time.sleep(0.3)
    assert len(leftovers(run_dir)) == 2  # the task and its daemon
    launcher.kill()
    launcher.wait(timeout=10)
    assert not wait_no_leftovers(run_dir, timeout=10)


@posix_only
def test_a_killed_watchdog_is_replaced_and_kill_9_still_leaves_nothing(job):
    config = job("import time\nprint('up', flush=True)\ntime.sleep(600)\n",
                 strategy="single", tasks=[{"role": "worker"}])
    launcher = _launch(config)
    run_dir = _wait_for_log(config, "up")
    watchdogs = [p for p in psutil.Process(launcher.pid).children()
                 if "groups" in " ".join(p.cmdline())]
    assert len(watchdogs) == 1
    watchdogs[0].kill()
    deadline = time.monotonic() + 10
    events_file = run_dir / "events.jsonl"
    while time.monotonic() < deadline and "RunWarning" not in events_file.read_text():
        time.sleep(0.1)
    launcher.kill()
    launcher.wait(timeout=10)
    assert not wait_no_leftovers(run_dir, timeout=10)
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    assert any(e["event"] == "RunWarning" and "watchdog" in e["message"] for e in events)


def test_a_lost_reader_does_not_stop_the_training(job):
    """`tensordeck --run job.json | head -3`: the terminal copy stops, the run does not."""
    config = job("import time\nfor i in range(300):\n    print('line', i, flush=True)\n"
                 "    time.sleep(0.002)\n", strategy="single", tasks=[{"role": "worker"}])
    launcher = _launch(config)
    assert launcher.stdout
    for _ in range(3):
        launcher.stdout.readline()
    launcher.stdout.close()  # as head does
    assert launcher.wait(timeout=60) == 0
    run_dir = only_run_dir(config)
    assert read_summary(run_dir)["status"] == "succeeded"
    log = (run_dir / "logs" / "worker-0.log").read_text().splitlines()
    assert log[-1] == "line 299"


@posix_only
def test_a_closed_terminal_stops_the_run_gracefully(job):
    """SIGHUP (the terminal went away): a graceful stop, the tasks' handlers run, exit 129."""
    script = """
import signal, sys, time
def save(signum, frame):
    print("handler: checkpoint saved", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, save)
print("up", flush=True)
time.sleep(600)
"""
    config = job(script, strategy="single", tasks=[{"role": "worker"}], stop_grace_seconds=20)
    launcher = _launch(config)
    run_dir = _wait_for_log(config, "up")
    launcher.send_signal(signal.SIGHUP)
    assert launcher.wait(timeout=30) == 129
    summary = read_summary(run_dir)
    assert (summary["status"], summary["exit_code"]) == ("interrupted", 129)
    assert "checkpoint saved" in (run_dir / "logs" / "worker-0.log").read_text()


@pytest.mark.skipif(sys.platform != "linux",
                    reason="RLIMIT_FSIZE stands in for a full disk on Linux")
def test_a_full_disk_stops_the_log_not_the_task(job):
    """Writes beyond RLIMIT_FSIZE fail with EFBIG, as they would with ENOSPC on a full disk:
    the log stops (and says where), the task runs to its end, the run succeeds."""
    import resource

    limit = 64 * 1024

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed launcher
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    config = job("for i in range(20000):\n    print('x' * 20, i)\nprint('the end')\n",
                 strategy="single", tasks=[{"role": "worker"}])
    launcher = _launch(config, preexec_fn=small_files)
    out, _ = launcher.communicate(timeout=120)
    text = out.decode()
    assert launcher.returncode == 0, text[-2000:]
    assert "[worker-0] the end" in text
    assert "warning:" in text and "stopped at byte" in text
    run_dir = only_run_dir(config)
    assert read_summary(run_dir)["status"] == "succeeded"
    assert (run_dir / "logs" / "worker-0.log").stat().st_size <= limit
    assert "RunWarning" in (run_dir / "events.jsonl").read_text()


def test_backoff_never_overflows():
    assert backoff_delay(1.0, 0) == 1.0 and backoff_delay(1.0, 3) == 8.0
    for restarts in (1024, 1025, 10**6):
        assert backoff_delay(1.0, restarts) == MAX_BACKOFF_SECONDS


def test_a_failing_sink_ends_the_run_with_a_true_summary(job, tmp_path):
    """TensorDeck's own error (here: a consumer of its events raises) stops the tasks and
    leaves a summary that says failed, never running."""
    from core.config import load_config
    from core.run import Run
    from core.topology import plan_run

    config = job("import time\nprint('up', flush=True)\ntime.sleep(600)\n")

    def sink(event) -> None:
        if isinstance(event, TaskOutput):
            raise RuntimeError("the window went away")
        assert not isinstance(event, RunWarning) or event.message

    plan = plan_run(load_config(config), config, run_dir=str(tmp_path / "run"))
    result = Run(plan, sink).execute()
    assert result.status.value == "failed" and "TensorDeck error" in result.reason
    summary = read_summary(tmp_path / "run")
    assert summary["status"] == "failed" and "the window went away" in summary["reason"]
    assert {t["state"] for t in summary["tasks"]} == {"stopped"}
    assert not wait_no_leftovers(tmp_path / "run")


class _FullDisk:
    """A file on a full disk: every write fails with ENOSPC (the disk is the boundary)."""

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")

    def close(self) -> None:
        raise OSError(28, "No space left on device")


def test_a_full_disk_under_events_jsonl_is_a_warning_not_the_end(job, tmp_path):
    from core.config import load_config
    from core.run import Run
    from core.topology import plan_run

    config = job("print('trained')", strategy="single", tasks=[{"role": "worker"}])
    seen = []
    plan = plan_run(load_config(config), config, run_dir=str(tmp_path / "run"))
    run = Run(plan, seen.append)
    run._events._file = _FullDisk()
    result = run.execute()
    assert result.status.value == "succeeded"
    warnings = [e.message for e in seen if isinstance(e, RunWarning)]
    assert warnings == [f"{tmp_path / 'run' / 'events.jsonl'} stopped: No space left on "
                        "device; the run goes on"]
    assert read_summary(tmp_path / "run")["status"] == "succeeded"
    assert (tmp_path / "run" / "logs" / "worker-0.log").read_text() == "trained\n"

