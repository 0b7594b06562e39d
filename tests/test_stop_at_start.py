"""A stop that reaches a Windows task before its own code runs (resources/runtime): CPython's
start-up loses an interrupt (site ends in a fatal error; while sys.path[0]'s importer is looked
up it prints "Failed checking if argv[0] is an import path entry" and runs the script anyway),
so the runtime exits as Ctrl+C there instead. A path hook of the test holds the interpreter in
that window: Python calls it for the script's own path just before the script runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.proctree import TaskProcess
from core.wintree import IS_WINDOWS

RUNTIME = Path(__file__).resolve().parent.parent / "resources" / "runtime"

#: A sitecustomize beside the runtime's (which chains to it): a path hook that, for the
#: script's own path, says whether the task's code has started, then waits as long as HOLD says.
HOOK = """
import os, sys, time
import tensordeck_runtime as rt
print("site", rt._task_code_started(), flush=True)
def hook(path):
    if path.endswith("task.py"):
        print("start-up", rt._task_code_started(), flush=True)
        open(os.environ["HELD"], "w").close()
        time.sleep(float(os.environ.get("HOLD", "0")))
    raise ImportError(path)
sys.path_hooks.insert(0, hook)
"""


def _layout(tmp_path: Path, task: str) -> tuple[Path, dict[str, str]]:
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(HOOK)
    script = tmp_path / "task.py"
    script.write_text(task)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(RUNTIME), str(hooks)]),
           "HELD": str(tmp_path / "held"), "PYTHONUNBUFFERED": "1"}
    return script, env


def test_the_task_has_not_started_in_pythons_start_up_and_has_in_its_code(tmp_path):
    script, env = _layout(tmp_path, "import atexit, tensordeck_runtime as rt\n"
                                    "started = rt._task_code_started\n"
                                    "atexit.register(lambda: print('atexit', started()))\n"
                                    "print('script', started())\n")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n") == ["site False", "start-up False", "script True",
                                      "atexit True", ""]


@pytest.mark.parametrize("how", ["-c", "-m"])
def test_code_that_binds_no_name_has_started_by_its_frame(tmp_path, how):
    code = "print(__import__('tensordeck_runtime')._task_code_started())\n"
    (tmp_path / "probe.py").write_text(code)
    argv = [sys.executable, "-c", code] if how == "-c" else [sys.executable, "-m", "probe"]
    out = subprocess.run(argv, env={**os.environ, "PYTHONPATH": str(RUNTIME)}, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout) == (0, "True\n"), out.stderr


@pytest.mark.skipif(not IS_WINDOWS, reason="the stop event is Windows'; POSIX gets SIGTERM")
def test_a_stop_while_python_looks_up_the_scripts_importer_ends_the_task(tmp_path):
    script, env = _layout(tmp_path, "print('the task ran', flush=True)\n")
    env["HOLD"] = "60"
    task = TaskProcess([sys.executable, str(script)], env)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "held").exists():
            assert task.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        task.terminate_tree()
        started = time.monotonic()
        while task.poll() is None and time.monotonic() - started < 30:
            time.sleep(0.05)
        code = task.poll()
        if code is None:
            task.kill_tree()
        output = task.stdout.read().decode(errors="replace")
        assert code == 0xC000013A, output  # STATUS_CONTROL_C_EXIT, at once
        assert "the task ran" not in output and "Failed checking" not in output, output
    finally:
        task.release()
