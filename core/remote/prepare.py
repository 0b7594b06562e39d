"""Before a run: get every node ready, or say precisely why one is not.

Per node, over one SSH connection: the host key and the login are checked, the shell is
detected, the interpreter is proven to start (it runs the port check), the run folder is made,
the script is copied to the node's workdir unless an unchanged copy is there (by SHA-256), and
the task ports are checked by a bind on the node (named ports) or picked there (free ports).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from core.config import JobConfig, Node
from core.remote.connect import RemoteError, connect, detect_shell
from core.remote.shell import Shell, bootstrap_line, python_command

_PORTS_MAIN = """
import json
request = json.loads(sys.stdin.readline())
out, reservation = [], PortReservation()
for port in request:
    out.append({"port": port, "problem": port_problem(port)} if port else
               {"port": reservation.pick(), "problem": None})
reservation.release()
print(json.dumps(out))
"""


class NodesNotReady(Exception):
    """One or more nodes cannot run the job; ``errors`` says why, node by node."""

    def __init__(self, errors: list[RemoteError]) -> None:
        super().__init__("\n".join(map(str, errors)))
        self.errors = errors


@dataclass(frozen=True)
class NodePrep:
    """What a run needs to know about a node it starts tasks on."""

    shell: Shell
    script: str  # path on the node
    run_dir: str  # path on the node (TENSORDECK_RUN_DIR of its tasks)
    ports: list[int]


def _ports_program() -> str:
    """core.ports (standard library only) plus a main: the same check as for local tasks."""
    from core import ports

    return Path(ports.__file__).read_text(encoding="utf-8") + _PORTS_MAIN


async def run_python(
    conn: asyncssh.SSHClientConnection,
    python: str,
    shell: Shell,
    source: str,
    stdin: str = "",
    timeout: float = 60,
) -> str:
    """Run ``source`` with the node's interpreter; its stdout, or RemoteError."""
    result = await asyncio.wait_for(
        conn.run(
            python_command(python, shell),
            input=bootstrap_line(source).decode() + stdin,
            check=False,
        ),
        timeout,
    )
    if result.exit_status != 0:
        detail = (str(result.stderr or "") + str(result.stdout or "")).strip()[-600:]
        raise RemoteError(f"{python} failed on the node (exit {result.exit_status}): {detail}")
    return str(result.stdout)


async def _upload(sftp: asyncssh.SFTPClient, local: Path, remote_dir: str) -> str:
    remote = posixpath.join(remote_dir, local.name)
    data = local.read_bytes()
    if await sftp.exists(remote):
        async with sftp.open(remote, "rb") as f:
            if hashlib.sha256(await f.read()).digest() == hashlib.sha256(data).digest():
                return remote  # unchanged: not copied again
    async with sftp.open(remote, "wb") as f:
        await f.write(data)
    return remote


async def _prepare_node(
    name: str, node: Node, script: Path, run_name: str, ports: list[int | None]
) -> NodePrep:
    async with await connect(node, name) as conn:
        shell = await detect_shell(conn, node.shell)
        try:
            answer = await run_python(
                conn, node.python, shell, _ports_program(), json.dumps(ports) + "\n"
            )
        except RemoteError as exc:
            raise RemoteError(
                f"{exc}. Is 'python' in nodes.{name} the training interpreter's full path there?",
                name,
            ) from None
        checked = json.loads(answer.strip().splitlines()[-1])
        taken = [c["problem"] for c in checked if c["problem"]]
        if taken:
            raise RemoteError("; ".join(taken), name)
        try:
            remote_script, run_dir = await _place_files(conn, name, node, script, run_name)
        except asyncssh.SFTPError as exc:
            raise RemoteError(
                f"cannot use the folder {node.workdir!r} there ({exc.reason}); "
                f"choose a writable nodes.{name}.workdir",
                name,
            ) from None
    if shell != "posix":  # SFTP speaks /C:/Users/...; Windows programs want C:\\Users\\...
        run_dir, remote_script = (_windows_path(p) for p in (run_dir, remote_script))
    return NodePrep(shell, remote_script, run_dir, [c["port"] for c in checked])


async def _place_files(
    conn: asyncssh.SSHClientConnection, name: str, node: Node, script: Path, run_name: str
) -> tuple[str, str]:
    """Make the run folder on the node and put the script there; (script, run folder)."""
    async with conn.start_sftp_client() as sftp:
        workdir = await sftp.realpath(node.workdir.replace("\\", "/"))
        run_dir = posixpath.join(workdir, "runs", run_name)
        await sftp.makedirs(run_dir, exist_ok=True)
        if node.script:
            remote_script = node.script
            if not await sftp.exists(remote_script.replace("\\", "/")):
                raise RemoteError(f"script {remote_script} does not exist there", name)
        else:
            remote_script = await _upload(sftp, script, workdir)
    return remote_script, run_dir


def _windows_path(path: str) -> str:
    path = path[1:] if len(path) > 2 and path[0] == "/" and path[2] == ":" else path
    return path.replace("/", "\\")


def prepare_nodes(
    cfg: JobConfig, script: Path, run_name: str, ports: Mapping[str, list[int | None]]
) -> dict[str, NodePrep]:
    """Prepare every node in ``ports`` (node name -> the port of each of its tasks, None for
    "pick one"), all at once. Raises NodesNotReady naming every node that failed."""

    async def all_nodes() -> list[NodePrep | BaseException]:
        return await asyncio.gather(
            *(_prepare_node(n, cfg.nodes[n], script, run_name, p) for n, p in ports.items()),
            return_exceptions=True,
        )

    results = asyncio.run(all_nodes())
    errors = [
        r if isinstance(r, RemoteError) else RemoteError(f"unexpected failure: {r!r}", name)
        for name, r in zip(ports, results, strict=True)
        if isinstance(r, BaseException)
    ]
    if errors:
        raise NodesNotReady(errors)
    return dict(zip(ports, results, strict=True))  # type: ignore[arg-type]
