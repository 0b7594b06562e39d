"""Slurm through the cluster's login node (``tensordeck --run FILE --slurm --slurm-login NODE``):
the :class:`~core.slurm.where.SlurmHost` whose commands run there over SSH, with the nodes
machinery LAN runs use (core.remote.connect: known_hosts, keys, keyring passwords; the node
agent of core.remote.run_task for each task's ``srun``).

NODE is a name of the config's ``nodes`` (its host, user, port, key, password, python and
workdir are used), or ``[user@]host[:port]`` (with a ``@``, a ``:`` or a dot, so a typo of a
node's name is never taken for a host; the agent or ``~/.ssh`` keys, ``python3`` and the
folder ``tensordeck`` in the home). A bare word that names no node is refused.

The login and compute nodes are assumed to share a file system (as Slurm clusters do for the
home folders): the run's folder ``<workdir>/runs/<run name>`` is made on the login node with
the script and TensorDeck's runtime module in it, and the tasks use it on the compute nodes.

The launcher holds one SSH connection (the job's salloc, the client calls, the release); each
task's stand-in has its own, which runs the node agent with the task's srun: the task's
environment travels on the agent's stdin (never on a command line), and when the connection
drops the agent kills srun.
"""

from __future__ import annotations

import asyncio
import posixpath
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import suppress

import asyncssh

from core.config import ConfigError, ConfigProblem, Node
from core.model import from_data, validate, validation_error
from core.placements import decode_spec
from core.placements.node import planned_place
from core.placements.slurm import ClusterPlace
from core.plan import RunPlan
from core.remote.agent import EXIT_UNREACHABLE, agent_input, runtime_files
from core.remote.connect import NodesNotReady, RemoteError, connect
from core.remote.prepare import place_files
from core.remote.shell import command_line, python_command

_HOST_RE = re.compile(r"(?:(?P<user>[^@\s]+)@)?(?P<host>[^@:\s]+)(?::(?P<port>\d{1,5}))?")
#: Lists, on the login node, the commands of its arguments that its PATH lacks.
_MISSING = 'for t; do command -v "$t" >/dev/null 2>&1 || echo "$t"; done'


def login_node(plan: RunPlan, text: str) -> tuple[str | None, Node]:
    """The login node ``text`` names (see the module's docstring): (its name in ``nodes`` or
    None, the node). ConfigError naming the fix otherwise."""
    nodes = plan.config.nodes
    if text in nodes:
        return text, nodes[text]
    found = _HOST_RE.fullmatch(text)
    if found is None or not any(c in text for c in "@:."):
        raise ConfigError(str(plan.config_path), [ConfigProblem(
            where="--slurm-login",
            message=f"no node {text!r} in the config's nodes (nodes: {', '.join(nodes) or 'none'})"
                    "; name one of them, or give the login node as user@host[:port]")])
    try:
        return None, validate(Node, {"host": found["host"], "user": found["user"],
                                     "python": "python3", "port": int(found["port"] or 22)})
    except validation_error() as exc:
        reason = "; ".join(e["msg"] for e in exc.errors())
        raise ConfigError(str(plan.config_path), [ConfigProblem(
            where="--slurm-login", message=f"{text!r} is no [user@]host[:port] ({reason})")]
        ) from None


def connect_login(plan: RunPlan, text: str) -> LoginSlurm:
    """The login node ``text`` names, logged in to. ConfigError (NodesNotReady: an unknown
    host key keeps its typed error and its trust fix) when it cannot be used."""
    name, node = login_node(plan, text)
    try:
        return LoginSlurm(name, node)
    except RemoteError as exc:
        raise NodesNotReady(str(plan.config_path), [exc],
                            None if name else "--slurm-login") from None


class _Loop:
    """An event loop in a thread of its own: the SSH connection lives there, while the
    launcher and the stand-in call it synchronously (as they call subprocess)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="tensordeck-ssh")
        self.thread.start()

    def call(self, awaitable, timeout: float | None = None):
        """Await ``awaitable`` there and wait for its result (None once the loop is stopped)."""
        if self.loop.is_closed():
            if asyncio.iscoroutine(awaitable):
                awaitable.close()
            return None

        async def wait():
            return await awaitable

        future = asyncio.run_coroutine_threadsafe(wait(), self.loop)
        try:
            return future.result(timeout)
        except FutureTimeout:
            future.cancel()
            raise

    def soon(self, function, *args) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(function, *args)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        if not self.thread.is_alive():
            self.loop.close()


class _Remote:
    """A process on the login node, as much of ``subprocess.Popen`` as the launcher uses.
    ``relay``: its output (bytes) goes to this process's stdout as it comes."""

    def __init__(self, loop: _Loop, process: asyncssh.SSHClientProcess, relay: bool) -> None:
        self._loop = loop
        self._process = process
        self._stops = iter([b"stop\n", b"kill\n"])
        self._relayed = asyncio.run_coroutine_threadsafe(self._relay(), loop.loop) if relay \
            else None

    async def _relay(self) -> None:
        out = sys.stdout.buffer
        while data := await self._process.stdout.read(65536):
            out.write(data)
            out.flush()

    @property
    def stderr(self) -> Iterator[str]:
        """Its stderr, line by line (salloc's "Granted job allocation N")."""
        while line := self._loop.call(self._process.stderr.readline()):
            yield line

    @property
    def returncode(self) -> int | None:
        code = self._process.returncode
        if code is None and self._process.is_closing():
            return EXIT_UNREACHABLE  # the channel went without an exit status
        return None if code is None else (128 - code if code < 0 else code)

    def poll(self) -> int | None:
        return self.returncode

    def communicate(self, timeout: float | None = None) -> tuple[None, None]:
        """Close its stdin (salloc's cat ends, salloc gives the job up) and wait for its end."""
        self._loop.soon(self._process.stdin.write_eof)
        try:
            self._loop.call(self._process.wait_closed(), timeout)
        except FutureTimeout:
            raise subprocess.TimeoutExpired("ssh", timeout or 0) from None
        return None, None

    def wait(self) -> int:
        if self._relayed is not None:
            self._relayed.result()
        self._loop.call(self._process.wait_closed())
        return self.returncode if self.returncode is not None else EXIT_UNREACHABLE

    def terminate(self) -> None:
        """The node agent's stop (SIGTERM to srun, which ends its step), then its kill."""
        self._loop.soon(self._process.stdin.write, next(self._stops, b"kill\n"))

    def send_signal(self, signum: int) -> None:
        """Any signal, over SSH: the channel closes (sshd hangs salloc up, which withdraws a
        queued job as a Ctrl+C does)."""
        self.kill()

    def kill(self) -> None:
        """Close the channel: the agent kills srun, salloc's cat ends."""
        self._loop.soon(self._process.close)
        self._loop.call(self._process.wait_closed(), 10)


class LoginSlurm:
    """Slurm's commands on the login node, over one SSH connection (see the module)."""

    option = "--slurm-login"

    def __init__(self, name: str | None, node: Node) -> None:
        self.name, self.node = name, node
        self.label = f"the login node {name or node.host}"
        self._loop = _Loop()
        try:
            self._conn = self._loop.call(connect(node, name))  # type: ignore[arg-type]
        except BaseException:
            self._loop.stop()
            raise

    def run(self, argv: list[str], timeout: float | None = 60.0
            ) -> subprocess.CompletedProcess:
        async def run() -> asyncssh.SSHCompletedProcess:
            process = await self._conn.create_process(command_line(argv, "posix"))
            try:
                process.stdin.write_eof()
                return await process.wait(timeout=timeout)
            finally:
                process.close()

        try:
            done = self._loop.call(run())
        except asyncssh.TimeoutError:
            raise subprocess.TimeoutExpired(argv, timeout or 0) from None
        except (OSError, asyncssh.Error) as exc:
            return subprocess.CompletedProcess(argv, EXIT_UNREACHABLE, "", f"ssh: {exc}")
        code = done.returncode if done.returncode is not None else EXIT_UNREACHABLE
        return subprocess.CompletedProcess(argv, code, str(done.stdout or ""),
                                           str(done.stderr or ""))

    def missing(self, tools: tuple[str, ...]) -> list[str]:
        result = self.run(["sh", "-c", _MISSING, "sh", *tools])
        return result.stdout.split() if result.returncode == 0 else list(tools)

    def missing_fix(self) -> str:
        return (f"on the PATH of {self.label}'s SSH sessions: name the cluster's login node, "
                "or put Slurm's commands on that PATH (~/.bashrc there)")

    def hold(self, argv: list[str]) -> _Remote:
        process = self._loop.call(self._conn.create_process(
            command_line(argv, "posix"), stdout=asyncssh.DEVNULL))
        return _Remote(self._loop, process, relay=False)

    def step(self, argv: list[str], env: dict[str, str] | None = None,
             cwd: str | None = None) -> _Remote:
        """srun run by the node agent there, with the task's environment and folder."""
        process = self._loop.call(self._conn.create_process(
            python_command(self.node.python, "posix"), encoding=None, stderr=asyncssh.STDOUT))
        first = agent_input(argv, env or {}, cwd or "", runtime=False)
        self._loop.soon(process.stdin.write, first)
        return _Remote(self._loop, process, relay=True)

    def srun(self) -> str:
        return "srun"

    def python(self, plan: RunPlan) -> str:
        return self.node.python

    def place_run(self, plan: RunPlan) -> ClusterPlace:
        """The run's folder on the login node, the script and the runtime module in it."""
        planned = planned_place(self.node, plan.script, plan.run_dir.name)

        async def place() -> ClusterPlace:
            async with self._conn.start_sftp_client() as sftp:
                made = await place_files(sftp, self.name or self.node.host, self.node,
                                         plan.script, planned)
                runtime = posixpath.join(made.run_dir, "runtime")
                await sftp.mkdir(runtime)
                for file_name, text in runtime_files().items():
                    async with sftp.open(posixpath.join(runtime, file_name), "w") as f:
                        await f.write(text)
            return ClusterPlace(made.run_dir, made.script, runtime, self.node.python,
                                self.name, self.node)

        try:
            return self._loop.call(place())
        except asyncssh.SFTPError as exc:
            where = f"nodes.{self.name}.workdir" if self.name else "the folder"
            raise ConfigError(str(plan.config_path), [ConfigProblem(
                where=self.option, message=f"cannot use the folder {self.node.workdir!r} on "
                f"{self.label} ({exc.reason}); choose a writable {where}")]) from None
        except RemoteError as exc:
            raise ConfigError(str(plan.config_path), [ConfigProblem(
                where=self.option, message=exc.args[0])]) from None

    def close(self) -> None:
        if self._loop.loop.is_closed():
            return
        self._loop.soon(self._conn.close)
        with suppress(FutureTimeout, OSError, asyncssh.Error):
            self._loop.call(self._conn.wait_closed(), 10)
        self._loop.stop()


def login_from_spec(text: str) -> tuple[LoginSlurm, dict[str, str], str]:
    """A task stand-in's login node (connected: RemoteError otherwise), the task's environment
    and folder there, from its spec (made by core.placements.slurm.InSlurmJob)."""
    spec = decode_spec(text)
    host = LoginSlurm(spec["node_name"], from_data(Node, spec["node"]))
    return host, spec["env"], spec["cwd"]
