"""The local stand-in of a task inside WSL: ``tensordeck _wsl-task``, its spec (distribution,
command, environment, folder) in the variable TENSORDECK_WSL_TASK, never on its command line.

The supervisor starts this like any local task (logs, prefixes, restarts, the task's Job Object
or process group). It runs the node agent (core.remote.node_agent, the LAN path's) with the
task's interpreter inside the distribution, through ``wsl.exe -e`` (no shell), writes the task
on the agent's stdin (Windows variables do not cross into WSL: the task's environment travels
in the spec), relays the output and exits with the task's status. A stop (SIGTERM, SIGINT, the
Windows stop event) goes in-band as ``stop``, a second one as ``kill``. Killing ``wsl.exe``
does not end the Linux process it started; the agent ends the task tree when its stdin closes,
so a stand-in killed with its tree (a closed window, ``kill -9`` of the launcher) leaves
nothing running in the distribution.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from typing import IO

from core.exitcodes import launcher_exit_code
from core.placements import decode_spec
from core.placements.wsl import WSL_SPEC_VARIABLE
from core.proctree import listen_for_windows_stop
from core.remote.agent import EXIT_UNREACHABLE, agent_input
from core.remote.shell import BOOTSTRAP
from core.wsl.command import own_group, wsl_argv
from core.wsl.distros import find_wsl_exe


def _stop_on_signals(stdin: IO[bytes]) -> None:
    """SIGTERM / SIGINT (and the Windows stop event, which raises SIGTERM's handler): ``stop``
    to the agent, then ``kill`` at the second."""
    words = iter([b"stop\n"])

    def on_signal(*_: object) -> None:
        try:
            stdin.write(next(words, b"kill\n"))
            stdin.flush()
        except OSError:  # the agent is gone already
            pass

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, on_signal)
    listen_for_windows_stop()


def _relay(source: IO[bytes], out: IO[bytes]) -> None:
    while data := source.read(65536):
        out.write(data)
        out.flush()


def _wait(proc: subprocess.Popen) -> int:
    """``proc``'s exit status, waited for in slices: Python runs a signal handler (a stop)
    only between two of the main thread's steps, and on Windows a blocking read or wait
    never returns for it; the output is relayed in a thread."""
    while True:
        try:
            return proc.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            continue


def run_in_wsl(spec: dict) -> int:
    """Run the task of ``spec`` in its distribution; its exit status."""
    wsl_exe = find_wsl_exe()
    if wsl_exe is None:
        print("tensordeck: wsl.exe is not on this machine any more; install WSL "
              "(wsl --install, as administrator) or choose another interpreter", flush=True)
        return EXIT_UNREACHABLE
    python = spec["argv"][0]
    argv = wsl_argv(wsl_exe, spec["distro"], python, ["-u", "-c", BOOTSTRAP], cwd=spec["cwd"])
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, bufsize=0, **own_group())
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(agent_input(spec["argv"], spec["env"], spec["cwd"]))
    proc.stdin.flush()
    _stop_on_signals(proc.stdin)
    relay = threading.Thread(target=_relay, args=(proc.stdout, sys.stdout.buffer), daemon=True)
    relay.start()
    status = _wait(proc)
    relay.join()
    # wsl.exe exits with the Linux process's status (0-255); a Windows status of its own (it
    # failed to start the distribution) is mapped as the launcher maps its tasks'.
    return status if os.name == "nt" else launcher_exit_code(status)


def run_task_cli(args: object) -> int:
    """``tensordeck _wsl-task``: started by the supervisor, never by hand."""
    text = os.environ.pop(WSL_SPEC_VARIABLE, None)  # popped: nothing started here gets it
    if not text:
        print(f"tensordeck: _wsl-task runs a task of a run inside WSL; {WSL_SPEC_VARIABLE} is "
              "not set (it is not a command to type)", flush=True)
        return 2
    try:
        return run_in_wsl(decode_spec(text))
    except OSError as exc:
        print(f"tensordeck: cannot run wsl.exe: {exc}", flush=True)
        return EXIT_UNREACHABLE
