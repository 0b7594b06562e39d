"""SSH connections to nodes: host keys checked against ``~/.ssh/known_hosts`` (an unknown host
is refused with its fingerprint and the way to trust it; a changed key is always refused),
and authentication by key file, the SSH agent, or a password from the system keyring."""

from __future__ import annotations

import asyncio
import getpass
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from core.config import ConfigError, ConfigProblem, Node
from core.remote.shell import ENABLE_WINDOWS_SSHD, PROBE, Shell, shell_from_probe

KEYRING_SERVICE = "TensorDeck"
CONNECT_TIMEOUT = 15


class RemoteError(Exception):
    """A node that cannot be used: ``message`` says why, ``fix`` is the command or step that
    fixes it (None when there is none to give), ``node`` names the node (None: no node of a
    config). ``str()`` is the line the CLI prints: ``node NAME: MESSAGE. Fix: FIX``."""

    def __init__(self, message: str, node: str | None = None, fix: str | None = None) -> None:
        self.message = message
        self.node = node
        self.fix = fix
        super().__init__(_with_fix(message, fix))

    def __str__(self) -> str:
        text = super().__str__()
        return f"node {self.node}: {text}" if self.node else text


def _with_fix(message: str, fix: str | None) -> str:
    if fix is None:
        return message
    return f"{message}{'' if message.endswith(('.', '?', '!')) else '.'} Fix: {fix}"


@dataclass(frozen=True)
class HostKey:
    """The SSH host key a server presented: what the user compares before trusting it."""

    host: str
    port: int
    key_type: str  # "ssh-ed25519", "ecdsa-sha2-nistp256", ...
    fingerprint: str  # "SHA256:..."


class UnknownHostError(RemoteError):
    """The host is not in known_hosts: ``key`` is what it presented; the fix trusts it."""

    def __init__(self, key: HostKey, node: str | None = None) -> None:
        super().__init__(
            f"{key.host}:{key.port} is not a known host (key fingerprint {key.fingerprint}, "
            f"{key.key_type}); compare it with the node's own before trusting it",
            node,
            "tensordeck trust " + key.host + (f" --port {key.port}" if key.port != 22 else ""),
        )
        self.key = key


class HostKeyChangedError(RemoteError):
    """known_hosts holds another key for the host: an attack or a reinstalled machine. Never
    offered for trust; the fix removes the old key by hand."""

    def __init__(self, key: HostKey, node: str | None = None) -> None:
        super().__init__(
            f"the host key of {key.host}:{key.port} CHANGED (now {key.fingerprint}); refusing "
            "to connect. If the machine was reinstalled, remove the old key",
            node,
            f"ssh-keygen -R {host_pattern(key.host, key.port)}",
        )
        self.key = key


class NodesNotReady(ConfigError):
    """Nodes that cannot run the job: a config error (one problem per node, as the CLI prints
    it) that keeps the typed errors (``errors``: an UnknownHostError has the host key).
    ``where``: what to fix when it is not the node's entry (``--slurm-login user@host``)."""

    def __init__(self, source: str, errors: list[RemoteError], where: str | None = None) -> None:
        problems = [ConfigProblem(where=where or f"nodes.{e.node}", message=e.args[0])
                    for e in errors]
        super().__init__(source, problems)
        self.errors = errors


def known_hosts_path() -> Path:
    return Path.home() / ".ssh" / "known_hosts"


def node_user(node: Node) -> str:
    return node.user or getpass.getuser()


def keyring_account(node: Node) -> str:
    return f"{node_user(node)}@{node.host}:{node.port}"


def host_pattern(host: str, port: int) -> str:
    """How known_hosts names a host (``[host]:port`` for a port other than 22)."""
    return host if port == 22 else f"[{host}]:{port}"


def _trusted_keys(host: str, port: int) -> list[asyncssh.SSHKey]:
    path = known_hosts_path()
    if not path.exists():
        return []
    trusted, *_ = asyncssh.read_known_hosts(str(path)).match(host, "", port)
    return list(trusted)


async def fetch_host_key(host: str, port: int, node: str | None = None) -> asyncssh.SSHKey:
    try:
        key = await asyncio.wait_for(asyncssh.get_server_host_key(host, port), CONNECT_TIMEOUT)
    except (OSError, asyncssh.Error, asyncio.TimeoutError) as exc:
        raise _unreachable(host, port, exc, node) from None
    if key is None:
        raise RemoteError(f"{host}:{port} sent no host key", node)
    return key


async def read_host_key(host: str, port: int, node: str | None = None) -> HostKey:
    """What ``host:port`` presents as its host key (RemoteError when it cannot be reached)."""
    key = await fetch_host_key(host, port, node)
    return HostKey(host, port, key.get_algorithm(), key.get_fingerprint())


def _unreachable(host: str, port: int, exc: BaseException, node: str | None) -> RemoteError:
    return RemoteError(
        f"cannot reach the SSH server at {host}:{port} ({exc}). Is it running and the "
        "firewall open?",
        node,
        f"start the SSH server there; on Windows 10/11, in an administrator PowerShell: "
        f"{ENABLE_WINDOWS_SSHD}",
    )


def _password(node: Node, name: str) -> str:
    import keyring

    password = keyring.get_password(KEYRING_SERVICE, keyring_account(node))
    if password is None:
        raise RemoteError(
            f"no password stored for {keyring_account(node)}",
            name,
            f"tensordeck login CONFIG {name}",
        )
    return password


def is_known_host(host: str, port: int) -> bool:
    """Whether known_hosts holds a key for ``host:port`` (no network: what connect() checks
    first; a host known with another key is known, and refused when it connects)."""
    return bool(_trusted_keys(host, port))


async def connect(node: Node, name: str) -> asyncssh.SSHClientConnection:
    """An authenticated connection to ``node``, or RemoteError saying exactly what is wrong:
    UnknownHostError, HostKeyChangedError, or a RemoteError with its fix."""
    if not is_known_host(node.host, node.port):
        raise UnknownHostError(await read_host_key(node.host, node.port, name), name)
    options = {
        "port": node.port,
        "username": node_user(node),
        "known_hosts": str(known_hosts_path()),
        "connect_timeout": CONNECT_TIMEOUT,
    }
    if node.key_file:
        options["client_keys"] = [str(Path(node.key_file).expanduser())]
    if node.password:
        options["password"] = _password(node, name)
    try:
        return await asyncssh.connect(node.host, **options)
    except asyncssh.HostKeyNotVerifiable:
        raise HostKeyChangedError(await read_host_key(node.host, node.port, name), name) from None
    except asyncssh.PermissionDenied:
        how = "the keyring password" if node.password else (node.key_file or "agent/~/.ssh keys")
        raise RemoteError(
            f"{keyring_account(node)} refused the login ({how})",
            name,
            "check the user, the key or the password",
        ) from None
    except (OSError, asyncssh.Error) as exc:
        raise _unreachable(node.host, node.port, exc, name) from None


async def detect_shell(conn: asyncssh.SSHClientConnection, configured: str) -> Shell:
    if configured != "auto":
        return configured  # type: ignore[return-value]
    result = await conn.run(PROBE, check=False)
    return shell_from_probe(str(result.stdout or ""))


async def trust_host(host: str, port: int, expected: str | None = None) -> tuple[str, str]:
    """Add the host key of ``host:port`` to known_hosts; returns (fingerprint, line). A host
    already known with another key is refused: that is what an attack looks like. With
    ``expected`` (the fingerprint the user approved), a different key is refused too."""
    key = await fetch_host_key(host, port)
    if expected is not None and key.get_fingerprint() != expected:
        raise RemoteError(f"{host}:{port} now presents another key ({key.get_fingerprint()}, "
                          f"not the approved {expected}); nothing was trusted")
    for known in _trusted_keys(host, port):
        if known.public_data == key.public_data:
            return key.get_fingerprint(), ""
    if _trusted_keys(host, port):
        raise RemoteError(
            f"{host}:{port} is known with another key; refusing. If the machine was "
            "reinstalled, remove the old key, then trust it again",
            fix=f"ssh-keygen -R {host_pattern(host, port)}",
        )
    line = f"{host_pattern(host, port)} {key.export_public_key('openssh').decode().strip()}\n"
    path = known_hosts_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as out:
        out.write(line)
    return key.get_fingerprint(), line
