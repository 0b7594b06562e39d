"""The local stand-in of a remote task: ``tensordeck _remote-task``, its spec (node, command,
environment) in the variable TENSORDECK_REMOTE_TASK, never on its command line.

The supervisor starts this like any local task, so remote tasks get the same log files,
prefixes, completion rules, restarts and orphan guards. It connects to the node, runs the node
agent there with the task, relays the output, and exits with the task's exit status.
SIGTERM (a graceful stop) is passed on as ``stop``; if this process dies, the SSH connection
closes and the agent on the node kills the task tree.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import asyncssh

from core.config import Node
from core.exitcodes import launcher_exit_code
from core.model import from_data
from core.placements import decode_spec
from core.placements.node import SPEC_VARIABLE
from core.proctree import listen_for_windows_stop
from core.remote.agent import EXIT_UNREACHABLE, agent_input
from core.remote.connect import RemoteError, connect
from core.remote.shell import python_command


async def run_remote(spec: dict) -> int:
    node = from_data(Node, spec["node"])  # written by this TensorDeck from a checked config
    conn = await connect(node, spec["node_name"])
    async with conn:
        process = await conn.create_process(
            python_command(node.python, spec["shell"]), encoding=None, stderr=asyncssh.STDOUT
        )
        process.stdin.write(agent_input(spec["argv"], spec["env"], spec["cwd"]))
        loop = asyncio.get_running_loop()
        stops = iter([b"stop\n", b"kill\n"])

        def on_signal() -> None:
            process.stdin.write(next(stops, b"kill\n"))

        for signum in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(signum, on_signal)
            except (NotImplementedError, RuntimeError):  # Windows event loops
                signal.signal(signum, lambda *_: loop.call_soon_threadsafe(on_signal))
        listen_for_windows_stop()  # the supervisor's graceful stop -> the handlers above
        out = sys.stdout.buffer
        while True:
            data = await process.stdout.read(65536)
            if not data:
                break
            out.write(data)
            out.flush()
        await process.wait_closed()
        status = process.exit_status
    if status is None:  # the agent itself was killed by a signal on the node
        return EXIT_UNREACHABLE
    # A Windows node's status code (0xC000013A after a stop) does not fit a POSIX exit
    # status: sys.exit would wrap it (to 58). Map it as the launcher maps its own.
    return status if os.name == "nt" else launcher_exit_code(status)


def run_task_cli(args) -> int:
    """``tensordeck _remote-task``: started by the supervisor, never by hand."""
    text = os.environ.pop(SPEC_VARIABLE, None)  # popped: nothing this process starts gets it
    if not text:
        print(f"tensordeck: _remote-task runs a node's task for a run; {SPEC_VARIABLE} is not "
              "set (it is not a command to type)", flush=True)
        return 2
    try:
        return asyncio.run(run_remote(decode_spec(text)))
    except RemoteError as exc:
        print(f"tensordeck: {exc}", flush=True)
    except (OSError, asyncssh.Error) as exc:
        print(f"tensordeck: connection to the node lost: {exc}", flush=True)
    return EXIT_UNREACHABLE
