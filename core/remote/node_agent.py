"""The watchdog that runs one task on a node. Sent over SSH and run by the node's own Python
(3.7+, standard library only: the node needs nothing installed but its interpreter).

Protocol on stdin: the first line is the task as JSON ({"argv", "env", "cwd", "runtime"}: the
last maps file names to the sources of TensorDeck's runtime module); later lines are
``stop`` (graceful: SIGTERM to the task's group; on Windows its stop event) or ``kill``. End
of stdin (the SSH connection closed for any reason) kills the whole task tree. The task's
output (stdout and stderr merged) is relayed as it comes; the agent exits with the task's exit
status (128+N for a signal N, as a shell reports it).
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

if "WindowsTree" not in globals():  # imported from the package; on a node the source of
    from core.wintree import IS_WINDOWS, WindowsTree  # core/wintree.py runs just before this


class _Tree:
    """The task and every process it starts: a process group (POSIX) or a Job Object (Windows,
    core.wintree: the same as for local tasks)."""

    def __init__(self, argv, env, cwd):
        kwargs = dict(
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd or None,
            bufsize=0,
        )
        self.windows = None
        if IS_WINDOWS:
            self.windows = WindowsTree(argv, env, **kwargs)
            self.proc = self.windows.popen
        else:
            self.proc = subprocess.Popen(argv, env=env, start_new_session=True, **kwargs)

    def stop(self):
        if self.windows is not None:
            self.windows.stop()
            return
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGTERM)

    def kill(self):
        if self.windows is not None:
            self.windows.kill()
            return
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)


def _activation(env, python_prefix):
    """What ``conda activate`` adds, for a conda env's interpreter started without it."""
    if not os.path.isdir(os.path.join(python_prefix, "conda-meta")):
        return env
    if IS_WINDOWS:
        dirs = [python_prefix] + [
            os.path.join(python_prefix, *p)
            for p in (
                ("Library", "mingw-w64", "bin"),
                ("Library", "usr", "bin"),
                ("Library", "bin"),
                ("Scripts",),
                ("bin",),
            )
        ]
        key = next((k for k in env if k.upper() == "PATH"), "PATH")
    else:
        dirs = [os.path.join(python_prefix, "bin")]
        key = "PATH"
        lib = os.path.join(python_prefix, "lib")
        env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [lib, env.get("LD_LIBRARY_PATH")]))
    env[key] = os.pathsep.join([*dirs, env.get(key, "")])
    env["CONDA_PREFIX"] = python_prefix
    return env


def main():
    spec = json.loads(sys.stdin.readline())
    env = dict(os.environ)
    env.update(spec["env"])
    env = _activation(env, spec.get("prefix") or sys.prefix)
    if not spec.get("runtime"):  # the task's environment names it (a Slurm run's shared copy)
        return _run(spec, env)
    runtime = tempfile.mkdtemp(prefix="tensordeck-runtime-")
    try:
        return _run(spec, _with_runtime(env, runtime, spec["runtime"]))
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def _with_runtime(env, folder, files):
    """TensorDeck's runtime module (metrics; on Windows the graceful stop) on the task's
    PYTHONPATH, as local tasks have it: its files come with the task."""
    for name, text in files.items():
        with open(os.path.join(folder, os.path.basename(name)), "w", encoding="utf-8") as f:
            f.write(text)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [folder, env.get("PYTHONPATH")]))
    return env


def _run(spec, env):
    try:
        tree = _Tree(spec["argv"], env, spec.get("cwd"))
    except OSError as exc:
        sys.stdout.write(f"tensordeck node agent: cannot start {spec['argv'][0]}: {exc}\n")
        sys.stdout.flush()
        return 127

    def control():
        for line in sys.stdin:
            word = line.strip()
            if word == "stop":
                tree.stop()
            elif word == "kill":
                tree.kill()
        tree.kill()  # the connection is gone: nothing may outlive it

    threading.Thread(target=control, daemon=True).start()
    out = sys.stdout.buffer
    fd = tree.proc.stdout.fileno()
    while True:
        data = os.read(fd, 65536)
        if not data:
            break
        try:
            out.write(data)
            out.flush()
        except OSError:  # nobody listens any more
            tree.kill()
    code = tree.proc.wait()
    tree.kill()  # leftovers of the tree
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
