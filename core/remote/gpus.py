"""A node's GPUs over SSH, read with ``nvidia-smi`` (the node needs nothing but its driver).

:func:`read_node_gpus` takes one look (preflight); :func:`stream_node_gpus` keeps one
``nvidia-smi --query-gpu=... -lms N`` running over one connection and turns each sampling round
into a :class:`GpuReport`; :class:`NodeGpuMonitor` runs that stream in its own thread and event
loop for the window. A node without ``nvidia-smi`` on its PATH has no usable NVIDIA driver as far
as TensorDeck can tell (state ``no_driver``). On Windows, drivers since R418 put nvidia-smi in
System32; older ones kept it in ``C:\\Program Files\\NVIDIA Corporation\\NVSMI``, off the PATH.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable

import asyncssh

from core.config import Node
from core.gpu.info import GpuInfo, GpuReport, GpuState
from core.gpu.smi import FIELD_REFUSED, SmiParseError, parse_line, parse_output, smi_command
from core.messages import tr
from core.remote.connect import RemoteError, connect, detect_shell
from core.remote.shell import Shell, command_line

#: Seconds for one step that should take well under one (a shell probe, a one-shot nvidia-smi).
STEP_TIMEOUT = 30
#: Exit statuses of a command that does not exist: sh, cmd.exe.
_NOT_FOUND_STATUS = (127, 9009)

OnReport = Callable[[GpuReport], None]


def _not_found(exit_status: int | None, stderr: str) -> bool:
    return exit_status in _NOT_FOUND_STATUS or "not recognized" in stderr


def finished_report(name: str, exit_status: int | None, stdout: str, stderr: str) -> GpuReport:
    """What a finished ``nvidia-smi`` run on node ``name`` says about its GPUs."""
    if _not_found(exit_status, stderr):
        return GpuReport(
            GpuState.NO_DRIVER,
            tr("gpu.node_no_smi", "en", node=name),
            source="nvidia-smi",
        )
    try:
        return parse_output(stdout)
    except SmiParseError:
        text = (stdout + stderr).strip()[-300:] or f"exit status {exit_status}"
        return GpuReport(
            GpuState.ERROR, tr("gpu.node_smi_failed", "en", node=name, output=text),
            source="nvidia-smi",
        )


async def read_node_gpus(
    conn: asyncssh.SSHClientConnection, shell: Shell, name: str, timeout: float = STEP_TIMEOUT
) -> GpuReport:
    """One look at the node's GPUs over an open connection, with their compute capability
    when the node's nvidia-smi knows that field (an older driver refuses it: asked again
    without)."""

    async def look(capability: bool) -> tuple[int | None, str, str]:
        argv = smi_command(capability=capability)
        result = await asyncio.wait_for(conn.run(command_line(argv, shell), check=False), timeout)
        return result.exit_status, str(result.stdout or ""), str(result.stderr or "")

    status, out, err = await look(capability=True)
    if FIELD_REFUSED in out + err:
        status, out, err = await look(capability=False)
    return finished_report(name, status, out, err)


class _Rounds:
    """Groups GPU rows into sampling rounds: a round ends when the index goes back (the first
    round) or when it has as many rows as the previous one (so a sample is not held back a
    whole interval waiting for the next round to start)."""

    def __init__(self, name: str, on_report: OnReport) -> None:
        self._name = name
        self._on_report = on_report
        self._rows: list[GpuInfo] = []
        self._size: int | None = None
        self._driver: str | None = None
        self.sent = 0

    def add(self, gpu: GpuInfo, driver: str | None) -> None:
        if self._rows and gpu.index <= self._rows[-1].index:
            self._size = len(self._rows)
            self._flush()
        self._rows.append(gpu)
        self._driver = driver or self._driver
        if self._size is not None and len(self._rows) == self._size:
            self._flush()

    def _flush(self) -> None:
        gpus, self._rows = tuple(self._rows), []
        self.sent += 1
        self._on_report(
            GpuReport(
                GpuState.OK,
                tr("gpu.node_count", "en", n=len(gpus), node=self._name),
                driver_version=self._driver,
                gpus=gpus,
                source="nvidia-smi",
            )
        )


def _error(message: str) -> GpuReport:
    return GpuReport(GpuState.ERROR, message, source="nvidia-smi")


async def stream_node_gpus(
    node: Node,
    name: str,
    on_report: OnReport,
    stop_event: asyncio.Event,
    interval_ms: int = 1000,
) -> None:
    """Call ``on_report`` with every sample of the node's GPUs until ``stop_event`` is set.

    Ends by itself after one report when the node cannot be sampled: no nvidia-smi
    (``no_driver``), a driver failure, a login failure or a lost connection (``error``)."""
    try:
        conn = await connect(node, name)
    except RemoteError as exc:
        on_report(_error(str(exc)))
        return
    async with conn:
        try:
            await _stream(conn, node, name, on_report, stop_event, interval_ms)
        except (OSError, asyncssh.Error, asyncio.TimeoutError) as exc:
            on_report(_error(tr("gpu.node_lost", "en", node=name,
                                error=exc or type(exc).__name__)))


async def _stream(
    conn: asyncssh.SSHClientConnection,
    node: Node,
    name: str,
    on_report: OnReport,
    stop_event: asyncio.Event,
    interval_ms: int,
) -> None:
    shell = await asyncio.wait_for(detect_shell(conn, node.shell), STEP_TIMEOUT)
    process = await conn.create_process(command_line(smi_command(interval_ms), shell))
    rounds = _Rounds(name, on_report)
    pending, unparsed = "", ""
    stopped = asyncio.ensure_future(stop_event.wait())
    try:
        while True:
            read = asyncio.ensure_future(process.stdout.read(65536))
            await asyncio.wait({read, stopped}, return_when=asyncio.FIRST_COMPLETED)
            if stopped.done():
                read.cancel()
                return
            chunk = read.result()
            if not chunk:
                break
            *lines, pending = (pending + chunk).split("\n")
            for line in lines:
                try:
                    row = parse_line(line)
                except SmiParseError:
                    unparsed += line + "\n"
                    continue
                if row is not None:
                    rounds.add(*row)
        await asyncio.wait_for(process.wait_closed(), STEP_TIMEOUT)
        if process.exit_status is None and process.exit_signal is None:
            on_report(_error(f"lost the connection to node {name}"))
        elif rounds.sent == 0 or unparsed:
            stderr = await asyncio.wait_for(process.stderr.read(), STEP_TIMEOUT)
            on_report(finished_report(name, process.exit_status, unparsed + pending, stderr))
    finally:
        stopped.cancel()
        # nvidia-smi dies on its next write once the channel is gone (SIGPIPE); the signal,
        # where the server honours it, ends it at once.
        with contextlib.suppress(OSError, asyncssh.Error):
            process.send_signal("TERM")
        process.close()


class NodeGpuMonitor:
    """:func:`stream_node_gpus` in a thread with its own event loop. ``on_report`` is called in
    that thread (the window hands the report to its own thread with a signal)."""

    def __init__(self, node: Node, name: str, on_report: OnReport, interval_ms: int = 1000) -> None:
        self._args = (node, name, on_report)
        self._interval_ms = interval_ms
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("this monitor was already started")
        self._thread = threading.Thread(
            target=asyncio.run, args=(self._main(),), name=f"gpus-{self._args[1]}", daemon=True
        )
        self._thread.start()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._ready.set()
        await stream_node_gpus(*self._args, self._stop, self._interval_ms)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self, timeout: float = 10) -> None:
        """End the stream and wait (up to ``timeout`` s) for the thread to finish."""
        if self._thread is None:
            return
        self._ready.wait(timeout)
        if self._loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):  # the stream already ended: loop closed
                self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)
