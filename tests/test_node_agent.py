"""The node agent as a node runs it (the program ``agent_source()`` sends over SSH, fed on
stdin), without SSH: the task tree, the stop and kill words, and the end of stdin. On Windows
(the Windows lane) this is the Job Object path of core.wintree that Windows nodes use."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import psutil

from core.remote.agent import agent_source, agent_task
from core.remote.shell import BOOTSTRAP, bootstrap_line

HANGS = """
import signal, subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # a grandchild
print("serving", flush=True)
time.sleep(600)
"""
TRAPS_STOP = """
import signal, subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # a grandchild
def save(signum, frame):
    print("handler ran", flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, save)
print("serving", flush=True)
time.sleep(600)
"""


def _agent(tmp_path, script: str) -> subprocess.Popen:
    (tmp_path / "task.py").write_text(script)
    agent = subprocess.Popen(
        [sys.executable, "-u", "-c", BOOTSTRAP],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    task = agent_task([sys.executable, "task.py"], {}, str(tmp_path))
    assert agent.stdin and agent.stdout
    agent.stdin.write(bootstrap_line(agent_source()) + json.dumps(task).encode() + b"\n")
    agent.stdin.flush()
    assert agent.stdout.readline().strip() == b"serving"
    return agent


def _tree_gone(agent: subprocess.Popen, timeout: float = 10) -> bool:
    """True once the agent's task and its grandchild have exited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = [p for p in psutil.process_iter(["cmdline"]) if _is_ours(p, agent)]
        if not alive:
            return True
        time.sleep(0.2)
    return False


def _is_ours(proc: psutil.Process, agent: subprocess.Popen) -> bool:
    cmdline = " ".join(proc.info.get("cmdline") or [])
    return proc.pid != agent.pid and ("task.py" in cmdline or "time.sleep(600)" in cmdline)


def test_stop_reaches_the_tasks_handler_and_nothing_is_left(tmp_path):
    agent = _agent(tmp_path, TRAPS_STOP)
    assert agent.stdin
    agent.stdin.write(b"stop\n")
    agent.stdin.flush()
    assert agent.stdout
    out = agent.stdout.read()  # to the end of the task's output; the connection stays up
    assert agent.wait(timeout=30) == 0
    assert b"handler ran" in out
    assert _tree_gone(agent)


def test_end_of_stdin_kills_the_whole_tree(tmp_path):
    """The SSH connection closing, for whatever reason, leaves nothing on the node."""
    agent = _agent(tmp_path, HANGS)
    assert agent.stdin
    agent.stdin.close()
    agent.wait(timeout=30)
    assert _tree_gone(agent)
