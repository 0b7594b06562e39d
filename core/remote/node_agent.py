"""The watchdog that runs one task on a node. Sent over SSH and run by the node's own Python
(3.7+, standard library only: the node needs nothing installed but its interpreter).

Protocol on stdin: the first line is the task as JSON ({"argv", "env", "cwd"}); later lines are
``stop`` (graceful: SIGTERM / CTRL_BREAK to the task's group) or ``kill``. End of stdin (the
SSH connection closed for any reason) kills the whole task tree. The task's output (stdout and
stderr merged) is relayed as it comes; the agent exits with the task's exit status (128+N for
a signal N, as a shell reports it).
"""

import json
import os
import signal
import subprocess
import sys
import threading

WINDOWS = sys.platform.startswith("win")


class _Tree:
    """The task and every process it starts: a process group (POSIX) or a Job Object."""

    def __init__(self, argv, env, cwd):
        kwargs = dict(
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=cwd or None,
            bufsize=0,
        )
        self.job = None
        if WINDOWS:
            self.proc = subprocess.Popen(
                argv, creationflags=subprocess.CREATE_NEW_PROCESS_GROUP, **kwargs
            )
            self.job = _windows_job(self.proc)
        else:
            self.proc = subprocess.Popen(argv, start_new_session=True, **kwargs)

    def stop(self):
        try:
            if WINDOWS:
                os.kill(self.proc.pid, signal.CTRL_BREAK_EVENT)
            else:
                os.killpg(self.proc.pid, signal.SIGTERM)
        except OSError:
            pass

    def kill(self):
        try:
            if self.job is not None:
                import ctypes

                ctypes.windll.kernel32.TerminateJobObject(self.job, 1)
            elif WINDOWS:
                self.proc.kill()
            else:
                os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass


def _windows_job(proc):
    """Put ``proc`` in a Job Object that kills its tree when this agent exits."""
    import ctypes

    k32 = ctypes.windll.kernel32
    job = k32.CreateJobObjectW(None, None)
    info = (ctypes.c_byte * 144)()  # JOBOBJECT_EXTENDED_LIMIT_INFORMATION (64-bit)
    ctypes.c_uint32.from_buffer(info, 16).value = 0x2000  # KILL_ON_JOB_CLOSE
    k32.SetInformationJobObject(job, 9, info, ctypes.sizeof(info))
    k32.AssignProcessToJobObject(job, int(proc._handle))
    return job


def _activation(env, python_prefix):
    """What ``conda activate`` adds, for a conda env's interpreter started without it."""
    if not os.path.isdir(os.path.join(python_prefix, "conda-meta")):
        return env
    if WINDOWS:
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
