"""Preflight: before anything starts, check every machine of a job and every path between them.

Per machine (each node that hosts tasks, over SSH; and this machine when tasks run here):
login (host key, authentication), the interpreter, TensorFlow (the doctor's two probe programs,
run on the node), the GPUs the tasks ask for (``nvidia-smi`` there, NVML here), and each task
port: free (the same bind test as :mod:`core.ports`, run there). Then, across machines: the same
TensorFlow version everywhere (exact version: gRPC peers of different releases are not a
supported mix), and every task port reachable from every other machine that talks to it. For
that, each machine listens on its task ports for a few seconds while the others connect.

Who talks to whom (TF's gRPC traffic): every cluster task talks to the ps tasks and the chief;
the chief talks to the workers; workers talk to each other only under multi_worker_mirrored
(collective all-reduce). The evaluator serves nothing. Tasks on one machine reach each other
there, so only pairs of different machines are tested.

Machines are checked in parallel; every step has a timeout. The result is a list of
:class:`Check`, each with the fix when it failed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import asyncssh

from core.config import SINGLE_PROCESS, ConfigError, JobConfig, Node
from core.gpu.info import GpuReport, GpuState
from core.interpreters.probe import MARK, TF_DISTRIBUTIONS
from core.job_paths import resolve_python
from core.plan import TaskPlan, expand_tasks
from core.ports import port_problem
from core.remote.connect import (
    HostKey,
    RemoteError,
    UnknownHostError,
    connect,
    detect_shell,
    node_user,
)
from core.remote.gpus import read_node_gpus
from core.remote.prepare import run_python
from core.remote.shell import Shell, bootstrap_line, python_command

#: The name of this machine in checks.
LOCAL = "this machine"
#: The group of checks that compare machines.
CLUSTER = "cluster"
#: Seconds for: reading an interpreter's packages; importing TensorFlow (a cold import on
#: Windows can take a minute); one connection test; the listeners' lifetime.
METADATA_TIMEOUT = 60.0
IMPORT_TIMEOUT = 180.0
CONNECT_TIMEOUT = 5.0
LISTEN_SECONDS = 60
#: The address listeners bind: every interface, as a TF server does.
LISTEN_ADDRESS = ""

_INTERPRETERS = Path(__file__).resolve().parent.parent / "interpreters"

_LISTEN_MAIN = """
import json, select, threading, time
request = json.loads(sys.stdin.readline())
answer, listeners = [], []
for port in request["ports"]:
    problem = port_problem(port) if port else None
    if problem is None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if not sys.platform.startswith("win"):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((request["bind"], port or 0))
            sock.listen(16)
            listeners.append(sock)
            port = sock.getsockname()[1]
        except OSError as exc:
            sock.close()
            problem = "port %s cannot be bound: %s" % (port, exc.strerror or exc)
    answer.append({"port": port, "problem": problem})
print(json.dumps(answer), flush=True)
done = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
deadline = time.monotonic() + request["seconds"]
while listeners and not done.is_set() and time.monotonic() < deadline:
    for sock in select.select(listeners, [], [], 0.2)[0]:
        sock.accept()[0].close()
"""

# Runs on a node (its own Python, 3.7+): connect to each (address, port) at once.
_CONNECT_PROGRAM = """
import json, socket, sys, threading
request = json.loads(sys.stdin.readline())
errors = [None] * len(request["targets"])
def attempt(i, address, port):
    try:
        socket.create_connection((address, port), request["timeout"]).close()
    except socket.timeout:
        errors[i] = "timed out"
    except OSError as exc:
        errors[i] = exc.strerror or str(exc)
threads = [threading.Thread(target=attempt, args=(i, a, p))
           for i, (a, p) in enumerate(request["targets"])]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(errors))
"""


@dataclass
class Check:
    """One thing checked on one machine (``node``: a node's name, "this machine" or
    "cluster"): whether it is fine, what was found, and how to fix it when it is not.
    ``unknown_host``: the key a node presented that known_hosts lacks (the window offers to
    trust it)."""

    node: str
    check: str
    ok: bool
    detail: str
    fix: str | None = None
    unknown_host: HostKey | None = None


@dataclass
class PreflightReport:
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def to_json(self) -> dict:
        return {"ok": self.ok, "checks": [asdict(c) for c in self.checks]}


@dataclass
class _Machine:
    """A machine that hosts tasks, and what the checks learnt about it."""

    name: str
    address: str  # where the other machines reach its tasks
    tasks: list[tuple[TaskPlan, int]]  # (task, index of its config entry)
    node: Node | None = None
    python: str = ""
    shell: Shell = "posix"
    conn: asyncssh.SSHClientConnection | None = None
    runs: bool = False  # the interpreter runs: the port programs can run there
    tf_version: str | None = None
    listen_ports: list[int | None] = field(default_factory=list)

    @property
    def label(self) -> str:
        return "this machine" if self.node is None else f"node {self.name}"

    @property
    def windows(self) -> bool:
        return sys.platform.startswith("win") if self.node is None else self.shell != "posix"


def _payload(stdout: str) -> dict:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARK):
            return json.loads(line[len(MARK) :])
    raise RemoteError("the probe printed no result")


def _child(name: str) -> str:
    return (_INTERPRETERS / name).read_text(encoding="utf-8")


def _ports_program() -> str:
    from core import ports

    return Path(ports.__file__).read_text(encoding="utf-8") + _LISTEN_MAIN


# -- one machine ---------------------------------------------------------------------------


async def _inspect_node(m: _Machine, import_tf: bool, checks: list[Check]) -> None:
    node = m.node
    assert node is not None
    try:
        m.conn = await connect(node, m.name)
        m.shell = await asyncio.wait_for(detect_shell(m.conn, node.shell), CONNECT_TIMEOUT * 6)
    except RemoteError as exc:
        key = exc.key if isinstance(exc, UnknownHostError) else None
        checks.append(Check(m.name, "ssh", False, exc.message, exc.fix, key))
        return
    except (asyncssh.Error, OSError, asyncio.TimeoutError) as exc:
        checks.append(Check(m.name, "ssh", False, f"SSH failed: {exc or type(exc).__name__}"))
        return
    checks.append(
        Check(m.name, "ssh", True, f"{node_user(node)}@{node.host}:{node.port}, {m.shell} shell")
    )
    conn = m.conn

    async def probe(source: str, timeout: float) -> dict:
        return _payload(await run_python(conn, m.python, m.shell, source, timeout=timeout))

    # child_import exits 1 after printing its result when the import fails: keep the result.
    importer = f"try:\n    exec({_child('child_import.py')!r})\nexcept SystemExit:\n    pass\n"
    await _inspect_python(
        m,
        import_tf,
        checks,
        lambda: probe(_child("child_metadata.py"), METADATA_TIMEOUT),
        lambda: probe(importer, IMPORT_TIMEOUT),
    )
    try:
        report = await read_node_gpus(conn, m.shell, m.name)
    except (asyncssh.Error, OSError, asyncio.TimeoutError) as exc:
        report = GpuReport(GpuState.ERROR, f"nvidia-smi did not answer: {exc}")
    checks.append(_gpu_check(m, report))


async def _inspect_local(
    m: _Machine, cfg: JobConfig, base: Path, import_tf: bool, checks: list[Check]
) -> None:
    from core.gpu.nvml import read_gpus
    from core.interpreters.probe import cached_probe

    m.runs = True  # listens and connects in this process, whatever the interpreter does
    try:
        m.python = resolve_python(cfg.python, base)
    except ConfigError as exc:
        checks.append(
            Check(
                m.name,
                "python",
                False,
                str(exc.problems[0]),
                "set 'python' to the training interpreter's full path",
            )
        )
        return
    # The doctor's own probe (and its cache): the same two programs, run here.
    probed = await asyncio.to_thread(cached_probe, m.python, import_tf, timeout=IMPORT_TIMEOUT)

    async def metadata() -> dict:
        if not probed.python_version:
            raise RemoteError(probed.error or "the interpreter did not answer")
        return probed.to_json()

    async def imported() -> dict:
        return probed.to_json() if probed.import_ok else {"import_error": probed.error}

    await _inspect_python(m, import_tf, checks, metadata, imported)
    checks.append(_gpu_check(m, await asyncio.to_thread(read_gpus, None, processes=False)))


async def _inspect_python(
    m: _Machine,
    import_tf: bool,
    checks: list[Check],
    read_metadata: Callable[[], Awaitable[dict]],
    read_import: Callable[[], Awaitable[dict]],
) -> None:
    """The interpreter runs; TensorFlow is installed (and imports, when ``import_tf``): from the
    payloads of the doctor's probe programs, child_metadata.py and child_import.py."""
    where = "'python'" if m.node is None else f"nodes.{m.name}.python"
    try:
        meta = await read_metadata()
    except (RemoteError, asyncssh.Error, OSError, asyncio.TimeoutError, ValueError) as exc:
        detail = (
            exc.message  # the check gives its own fix
            if isinstance(exc, RemoteError)
            else (f"{m.python} did not answer: {exc or type(exc).__name__}")
        )
        checks.append(
            Check(
                m.name,
                "python",
                False,
                detail,
                f"set {where} to the training interpreter's full path there",
            )
        )
        return
    m.runs = True
    checks.append(
        Check(
            m.name,
            "python",
            True,
            f"Python {meta['python_version']} ({meta['bits']}-bit), {m.python}",
        )
    )
    installed = _installed_tf(meta)
    if installed is None:
        checks.append(
            Check(
                m.name,
                "tensorflow",
                False,
                f"TensorFlow not installed on {m.label} ({m.python})",
                f"{m.python} -m pip install tensorflow, or point {where} at the "
                "interpreter that has it",
            )
        )
        return
    if not import_tf:
        m.tf_version = installed
        checks.append(Check(m.name, "tensorflow", True, f"{installed} installed (not imported)"))
        return
    checks.append(await _import_check(m, read_import))


def _installed_tf(meta: dict) -> str | None:
    """The version of the TensorFlow distribution the metadata probe found installed, None
    when there is none (or no package folder of it)."""
    packages = meta.get("packages") or {}
    installed = next((packages[d] for d in TF_DISTRIBUTIONS if d in packages), None)
    if not installed or not meta.get("tf_package_dir"):
        return None
    return installed


async def _import_check(m: _Machine, read_import: Callable[[], Awaitable[dict]]) -> Check:
    """Whether ``import tensorflow`` works on ``m`` (its version is kept when it does), and
    how many GPUs TensorFlow sees there."""
    try:
        result = await read_import()
    except (RemoteError, asyncssh.Error, OSError, asyncio.TimeoutError, ValueError) as exc:
        result = {"import_error": str(exc) or "did not finish in time"}
    if result.get("import_error") or not result.get("tf_version"):
        error = result.get("import_error") or result.get("error") or "failed"
        return Check(
            m.name,
            "tensorflow",
            False,
            f"import tensorflow failed: {error}",
            f"run 'tensordeck doctor --python {m.python}' on {m.label}",
        )
    m.tf_version = result["tf_version"]
    seen = len(result.get("gpus") or [])
    return Check(m.name, "tensorflow", True, f"{m.tf_version} imports; it sees {seen} GPU(s)")


def _gpu_check(m: _Machine, report: GpuReport) -> Check:
    """Enough GPUs for the GPU indexes the machine's tasks name."""
    count = len(report.gpus) if report.state is GpuState.OK else 0
    found = (
        report.message
        if report.state is not GpuState.OK
        else (f"{count} GPU(s): " + ", ".join(sorted({g.name or "?" for g in report.gpus})))
    )
    missing = [
        (task, entry, max(task.gpus))
        for task, entry in m.tasks
        if task.gpus and max(task.gpus) >= count
    ]
    if not missing:
        return Check(m.name, "gpus", report.state is not GpuState.ERROR, found)
    task, entry, wanted = missing[0]
    have = f"GPUs 0-{count - 1}" if count else "no GPU"
    return Check(
        m.name,
        "gpus",
        False,
        f"{task.name} wants GPU {wanted}; {m.label} has {have}. {found}",
        f"use GPU indexes below {count} in tasks[{entry}].gpus"
        if count
        else f"move tasks[{entry}] to a machine with a GPU, or remove its 'gpus'",
    )


# -- ports and paths between machines ------------------------------------------------------


def talks_to(strategy: str, source_role: str, target_role: str) -> bool:
    """Whether a task of ``source_role`` connects to a task of ``target_role``."""
    if "evaluator" in (source_role, target_role):
        return False
    if target_role in ("ps", "chief"):
        return True
    return source_role == "chief" or strategy == "multi_worker_mirrored"


def firewall_fix(port: int, *, windows: bool, where: str) -> str:
    """The command that opens ``port`` to inbound TCP on the machine named ``where``."""
    if windows:
        return (
            f"in an administrator PowerShell on {where}: New-NetFirewallRule -DisplayName "
            f'"TensorDeck {port}" -Direction Inbound -Protocol TCP -LocalPort {port} '
            "-Action Allow"
        )
    return (
        f"on {where}: sudo ufw allow {port}/tcp (Ubuntu/Debian), or sudo firewall-cmd "
        f"--permanent --add-port={port}/tcp && sudo firewall-cmd --reload (Fedora/RHEL)"
    )


class _Listener:
    """Task ports held open on one machine while the others connect."""

    def __init__(self, m: _Machine) -> None:
        self.machine = m
        self.answer: list[dict] = []
        self._process: asyncssh.SSHClientProcess | None = None
        self._servers: list[asyncio.AbstractServer] = []

    async def open(self) -> None:
        m = self.machine
        if m.node is None:
            for port in m.listen_ports:
                await self._open_local(port)
            return
        assert m.conn is not None
        self._process = await m.conn.create_process(python_command(m.python, m.shell))
        request = {"ports": m.listen_ports, "bind": LISTEN_ADDRESS, "seconds": LISTEN_SECONDS}
        self._process.stdin.write(
            bootstrap_line(_ports_program()).decode() + json.dumps(request) + "\n"
        )
        line = await asyncio.wait_for(self._process.stdout.readline(), METADATA_TIMEOUT)
        if not line.strip():
            error = await asyncio.wait_for(self._process.stderr.read(), CONNECT_TIMEOUT)
            raise RemoteError(f"the port check failed there: {error.strip()[-300:]}")
        self.answer = json.loads(line)

    async def _open_local(self, port: int | None) -> None:
        problem = port_problem(port) if port else None
        if problem is None:
            try:
                server = await asyncio.start_server(
                    lambda _r, w: w.close(), LISTEN_ADDRESS or None, port or 0
                )
                self._servers.append(server)
                port = server.sockets[0].getsockname()[1]
            except OSError as exc:
                problem = f"port {port} cannot be bound: {exc.strerror or exc}"
        self.answer.append({"port": port, "problem": problem})

    async def close(self) -> None:
        for server in self._servers:
            server.close()
        if self._process is not None:
            self._process.stdin.write_eof()
            try:
                await asyncio.wait_for(self._process.wait_closed(), CONNECT_TIMEOUT)
            except asyncio.TimeoutError:
                self._process.close()


async def _connect_errors(m: _Machine, targets: list[tuple[str, int]]) -> list[str | None]:
    """From machine ``m``: the error of a TCP connection to each target, None when it works."""
    if m.node is None:

        async def attempt(address: str, port: int) -> str | None:
            try:
                _, writer = await asyncio.wait_for(
                    asyncio.open_connection(address, port), CONNECT_TIMEOUT
                )
            except asyncio.TimeoutError:
                return "timed out"
            except OSError as exc:
                return exc.strerror or str(exc)
            writer.close()
            return None

        return list(await asyncio.gather(*(attempt(a, p) for a, p in targets)))
    assert m.conn is not None
    request = {"targets": targets, "timeout": CONNECT_TIMEOUT}
    out = await run_python(
        m.conn,
        m.python,
        m.shell,
        _CONNECT_PROGRAM,
        json.dumps(request) + "\n",
        timeout=METADATA_TIMEOUT,
    )
    return json.loads(out.strip().splitlines()[-1])


async def _check_paths(cfg: JobConfig, machines: list[_Machine], checks: list[Check]) -> None:
    """Each task port free on its machine and reachable from the machines that talk to it."""
    listeners = _listeners(cfg, machines)
    if not listeners:
        return
    opened = await asyncio.gather(*(lis.open() for lis in listeners), return_exceptions=True)
    try:
        wanted = _wanted_connections(cfg, machines, listeners, opened, checks)
        by_name = {m.name: m for m in machines}
        found: list[Check] = []
        await asyncio.gather(*(_connection_checks(by_name[name], pairs, found)
                               for name, pairs in wanted.items()))
        checks += sorted(found, key=lambda c: (c.node, c.check))
    finally:
        await asyncio.gather(
            *(lis.close() for lis, e in zip(listeners, opened, strict=True) if e is None),
            return_exceptions=True,
        )


def _listeners(cfg: JobConfig, machines: list[_Machine]) -> list[_Listener]:
    """One listener per machine whose interpreter runs and that runs a task serving on a port
    (each gets its ports to hold); none for a job of one process, which serves nothing."""
    if cfg.strategy in SINGLE_PROCESS:
        return []
    hosts = [m for m in machines if m.runs and any(t.role != "evaluator" for t, _ in m.tasks)]
    for m in hosts:
        m.listen_ports = [t.port for t, _ in m.tasks if t.role != "evaluator"]
    return [_Listener(m) for m in hosts]


def _wanted_connections(
    cfg: JobConfig,
    machines: list[_Machine],
    listeners: list[_Listener],
    opened: list[BaseException | None],
    checks: list[Check],
) -> dict[str, list[tuple[_Listener, int]]]:
    """Per source machine, the (listener, port slot) pairs it must connect to: each port held
    open for a task it talks to. The ports' own checks go to ``checks`` (a failed open too)."""
    wanted: dict[str, list[tuple[_Listener, int]]] = {}
    for lis, error in zip(listeners, opened, strict=True):
        if isinstance(error, BaseException):
            why = str(error) or type(error).__name__
            checks.append(Check(lis.machine.name, "ports", False, f"port test failed: {why}"))
            continue
        _port_checks(lis, checks)
        servers = [t for t, _ in lis.machine.tasks if t.role != "evaluator"]
        for slot, task in enumerate(servers):
            if lis.answer[slot]["problem"]:
                continue
            for source in _talkers(cfg, machines, lis.machine, task.role):
                wanted.setdefault(source.name, []).append((lis, slot))
    return wanted


def _talkers(cfg: JobConfig, machines: list[_Machine], target: _Machine,
             role: str) -> list[_Machine]:
    """The other machines (those whose interpreter runs) with a task that talks to a task of
    ``role`` on ``target``."""
    return [
        source for source in machines
        if source is not target and source.runs
        and any(talks_to(cfg.strategy, t.role, role) for t, _ in source.tasks)
    ]


async def _connection_checks(source: _Machine, pairs: list[tuple[_Listener, int]],
                             found: list[Check]) -> None:
    """From ``source``, a connection to each port of ``pairs``: one check each in ``found``,
    with the firewall fix when it fails."""
    name = source.name
    targets = [(lis.machine.address, lis.answer[slot]["port"]) for lis, slot in pairs]
    try:
        errors = await _connect_errors(source, targets)
    except (RemoteError, asyncssh.Error, OSError, asyncio.TimeoutError) as exc:
        errors = [f"the connection test did not run: {exc}"] * len(targets)
    for (lis, slot), (address, port), error in zip(pairs, targets, errors, strict=True):
        named = lis.machine.listen_ports[slot] is not None
        check = f"port {port} from {name}" if named else f"test port {port} from {name}"
        detail = f"{name} -> {address}:{port}: " + (error or "connects")
        fix = None
        if error:
            fix = firewall_fix(port, windows=lis.machine.windows, where=lis.machine.label)
            if not named:
                fix = (
                    "name the task ports in the config (tasks[].port) so that they "
                    "can be opened, then " + fix
                )
        found.append(Check(lis.machine.name, check, error is None, detail, fix))


def _port_checks(lis: _Listener, checks: list[Check]) -> None:
    m = lis.machine
    servers = [(t, e) for t, e in m.tasks if t.role != "evaluator"]
    for (task, entry), answer in zip(servers, lis.answer, strict=True):
        if task.port is None:
            continue  # picked at launch: free by construction
        problem = answer["problem"]
        checks.append(
            Check(
                m.name,
                f"port {task.port}",
                problem is None,
                f"{task.name}: {problem or 'free'}",
                f"stop the program using it on {m.label}, or choose another tasks[{entry}].port"
                if problem
                else None,
            )
        )


def _version_check(machines: list[_Machine]) -> Check | None:
    versions = {m.name: m.tf_version for m in machines if m.tf_version}
    if len(versions) < 2:
        return None
    listed = ", ".join(f"{name} {v}" for name, v in versions.items())
    if len(set(versions.values())) == 1:
        return Check(CLUSTER, "tensorflow versions", True, f"all {next(iter(versions.values()))}")
    counts = sorted(versions.values(), key=list(versions.values()).count, reverse=True)
    return Check(
        CLUSTER,
        "tensorflow versions",
        False,
        f"TensorFlow versions differ: {listed}",
        f"install the same version everywhere, e.g. pip install tensorflow=={counts[0]}",
    )


# -- the whole job ---------------------------------------------------------------------------


def _machines(cfg: JobConfig) -> list[_Machine]:
    machines: dict[str | None, _Machine] = {}
    for task, entry in expand_tasks(cfg):
        if task.node not in machines:
            node = cfg.nodes[task.node] if task.node else None
            machines[task.node] = _Machine(
                name=task.node or LOCAL,
                address=task.host,
                tasks=[],
                node=node,
                python=node.python if node else "",
            )
        machines[task.node].tasks.append((task, entry))
    return list(machines.values())


async def preflight(
    cfg: JobConfig, config_path: Path, *, import_tf: bool = True
) -> PreflightReport:
    """Check every machine of ``cfg`` and the paths between them (see the module's doc)."""
    machines = _machines(cfg)
    per_machine: list[list[Check]] = [[] for _ in machines]
    base = Path(config_path).resolve().parent

    async def inspect(m: _Machine, checks: list[Check]) -> None:
        if m.node is None:
            await _inspect_local(m, cfg, base, import_tf, checks)
        else:
            await _inspect_node(m, import_tf, checks)

    try:
        results = await asyncio.gather(
            *(inspect(m, c) for m, c in zip(machines, per_machine, strict=True)),
            return_exceptions=True,
        )
        for m, checks, error in zip(machines, per_machine, results, strict=True):
            if isinstance(error, BaseException):
                m.runs = False
                checks.append(Check(m.name, "unexpected failure", False, repr(error)))
        paths: list[Check] = []
        await _check_paths(cfg, machines, paths)
    finally:
        for m in machines:
            if m.conn is not None:
                m.conn.close()
    report = PreflightReport([c for checks in per_machine for c in checks] + paths)
    version = _version_check(machines)
    if version:
        report.checks.append(version)
    return report


def run_preflight(cfg: JobConfig, config_path: Path, *, import_tf: bool = True) -> PreflightReport:
    """:func:`preflight` for callers without an event loop (the CLI, the window's thread)."""
    return asyncio.run(preflight(cfg, config_path, import_tf=import_tf))
