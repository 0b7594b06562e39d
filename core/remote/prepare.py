"""Nodes of a planned run: check them (read-only), or get them ready for the run.

Per node, over one SSH connection: the host key and the login are checked, the shell is
detected, the interpreter is proven to start (it runs the port check), and the task ports are
checked by a bind on the node (named ports) or picked there (free ports). That is all
:func:`check_nodes` does (``validate``, ``--dry-run``, ``export``): it changes nothing there.
:func:`prepare_nodes`, which only a run calls, also makes the run's own folder on the node
(``<workdir>/runs/<run name>``, never one another run made), copies the script into it and
gives each node task its placement there (``core.placements.node``: its local stand-in).
"""

from __future__ import annotations

import asyncio
import json
import posixpath
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from core.config import Node
from core.placements.node import NodePlace, OnNode
from core.plan import RunPlan
from core.remote.connect import NodesNotReady, RemoteError, connect, detect_shell
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


#: Names a node's run folder may take when another run has the planned one.
MAX_RUN_NAMES = 100


@dataclass(frozen=True)
class NodePrep:
    """What the node said: its shell, its tasks' ports and (prepared) where the run lives."""

    shell: Shell
    ports: list[int]
    place: NodePlace | None = None


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
    async with sftp.open(remote, "wb") as f:
        await f.write(local.read_bytes())
    return remote


async def _prepare_node(
    name: str, node: Node, script: Path, place: NodePlace, ports: list[int | None], act: bool
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
            async with conn.start_sftp_client() as sftp:
                if node.script and not await sftp.exists(node.script.replace("\\", "/")):
                    raise RemoteError(f"script {node.script} does not exist there", name)
                placed = await place_files(sftp, name, node, script, place) if act else None
        except asyncssh.SFTPError as exc:
            raise RemoteError(
                f"cannot use the folder {node.workdir!r} there ({exc.reason}); "
                f"choose a writable nodes.{name}.workdir",
                name,
            ) from None
    if placed is not None and shell != "posix":  # SFTP: /C:/Users/..., Windows: C:\Users\...
        placed = NodePlace(_windows_path(placed.run_dir), _windows_path(placed.script))
    return NodePrep(shell, [c["port"] for c in checked], placed)


async def place_files(
    sftp: asyncssh.SFTPClient, name: str, node: Node, script: Path, planned: NodePlace
) -> NodePlace:
    """Make this run's folder on the node (a new one: ``NAME-2`` ... when another run has the
    name) and put the script in it, unless the node names its own script."""
    runs = posixpath.join(await sftp.realpath(node.workdir.replace("\\", "/")), "runs")
    await sftp.makedirs(runs, exist_ok=True)
    run_name = posixpath.basename(planned.run_dir.replace("\\", "/"))
    for n in range(1, MAX_RUN_NAMES + 1):
        run_dir = posixpath.join(runs, run_name if n == 1 else f"{run_name}-{n}")
        try:
            await sftp.mkdir(run_dir)  # fails if it exists: two runs never share one
        except asyncssh.SFTPError:
            if await sftp.exists(run_dir):
                continue
            raise
        remote_script = node.script or await _upload(sftp, script, run_dir)
        return NodePlace(run_dir, remote_script)
    raise RemoteError(
        f"every run folder name up to {run_name}-{MAX_RUN_NAMES} is taken in {runs}; "
        f"remove old runs there, or choose another nodes.{name}.workdir",
        name,
    )


def _sftp_path(path: str) -> str:
    """A node's path as SFTP names it (the inverse of :func:`_windows_path`)."""
    path = path.replace("\\", "/")
    return f"/{path}" if len(path) > 1 and path[1] == ":" else path


def _windows_path(path: str) -> str:
    path = path[1:] if len(path) > 2 and path[0] == "/" and path[2] == ":" else path
    return path.replace("/", "\\")


def _ask_nodes(plan: RunPlan, act: bool) -> dict[str, NodePrep]:
    """Every node of ``plan`` at once; ConfigError naming every node that failed (its ports
    released: nothing starts)."""
    wanted = plan.node_ports()
    cfg = plan.config

    async def all_nodes() -> list[NodePrep | BaseException]:
        return await asyncio.gather(
            *(
                _prepare_node(n, cfg.nodes[n], plan.script, plan.node_places[n], p, act)
                for n, p in wanted.items()
            ),
            return_exceptions=True,
        )

    results = asyncio.run(all_nodes())
    errors = [
        r if isinstance(r, RemoteError) else RemoteError(f"unexpected failure: {r!r}", name)
        for name, r in zip(wanted, results, strict=True)
        if isinstance(r, BaseException)
    ]
    if errors:
        plan.release_ports()
        # A node that failed makes the run fail: what the others got ready for it goes.
        remove_node_folders(plan, {name: r.place for name, r in zip(wanted, results, strict=True)
                                   if isinstance(r, NodePrep) and r.place})
        raise NodesNotReady(str(plan.config_path), errors)
    return dict(zip(wanted, results, strict=True))  # type: ignore[arg-type]


def remove_node_folders(plan: RunPlan, places: Mapping[str, NodePlace]) -> list[RemoteError]:
    """Undo what :func:`prepare_nodes` made for a run that will not start: on each node of
    ``places``, the script it copied and the run folder it made (a folder that holds anything
    else keeps it). The nodes where that failed, as errors (a node gone meanwhile)."""
    if not places:
        return []

    async def all_nodes() -> list[BaseException | None]:
        return await asyncio.gather(
            *(_remove_place(name, plan.config.nodes[name], place)
              for name, place in places.items()),
            return_exceptions=True)

    return [r if isinstance(r, RemoteError) else RemoteError(f"cannot clean up: {r!r}", name)
            for name, r in zip(places, asyncio.run(all_nodes()), strict=True)
            if isinstance(r, BaseException)]


async def _remove_place(name: str, node: Node, place: NodePlace) -> None:
    run_dir, script = _sftp_path(place.run_dir), _sftp_path(place.script)
    async with await connect(node, name) as conn, conn.start_sftp_client() as sftp:
        if posixpath.dirname(script) == run_dir:  # copied there (not the node's own script)
            with suppress(asyncssh.SFTPNoSuchFile):
                await sftp.remove(script)
        await sftp.rmdir(run_dir)


def check_nodes(plan: RunPlan) -> RunPlan:
    """Log in to every node of ``plan``, prove its interpreter and check (or pick) its tasks'
    ports there, changing nothing on it: the plan with those ports. Raises ConfigError."""
    if not plan.node_tasks:
        return plan
    preps = _ask_nodes(plan, act=False)
    return plan.with_node_ports({name: prep.ports for name, prep in preps.items()})


def prepare_nodes(plan: RunPlan) -> RunPlan:
    """What :func:`check_nodes` does, then make the run's folder on each node and put the
    script there: the plan where every node task has its port, paths and local stand-in.
    Raises ConfigError."""
    if not plan.node_tasks:
        return plan
    preps = _ask_nodes(plan, act=True)
    placements = {task.key: OnNode(task.node, prep.place, prep.shell)
                  for task in plan.node_tasks
                  if task.node and (prep := preps[task.node]).place is not None}
    return plan.with_node_ports({name: prep.ports for name, prep in preps.items()}, placements)
