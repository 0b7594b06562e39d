"""``tensordeck trust HOST`` and ``tensordeck login FILE NODE``."""

from __future__ import annotations

import asyncio
import getpass
import os
import sys

from core.remote.connect import KEYRING_SERVICE, RemoteError, keyring_account, trust_host


def trust_cli(args) -> int:
    """Add a node's host key to known_hosts after showing its fingerprint (compare it with
    the one the node shows: `ssh-keygen -lf` on its host key file)."""
    from core.remote.connect import read_host_key

    try:
        key = asyncio.run(read_host_key(args.host, args.port))
        print(f"{args.host}:{args.port} host key fingerprint: {key.fingerprint} ({key.key_type})")
        if not args.yes:
            answer = input("Trust this key? [y/N] ").strip().lower()
            if answer not in ("y", "yes"):
                print("Not trusted.")
                return 1
        _, line = asyncio.run(trust_host(args.host, args.port, key.fingerprint))
    except RemoteError as exc:
        print(f"tensordeck: {exc}", file=sys.stderr)
        return 1
    print("Added to known_hosts." if line else "Already trusted.")
    return 0


#: Set to 1 to let ``tensordeck login`` store a password with a backend that keeps it in the
#: clear (a throwaway test machine).
ALLOW_PLAINTEXT = "TENSORDECK_ALLOW_PLAINTEXT_KEYRING"
SECURE_BACKENDS_HINT = (
    "use the system's keyring (Windows Credential Manager and macOS Keychain are built in; on "
    "Linux the Secret Service of GNOME Keyring or KWallet, with a desktop session), and do not "
    "point PYTHON_KEYRING_BACKEND or keyring's keyringrc.cfg at a file backend "
    "(`keyring --list-backends` shows them)"
)


def store_problem(backend: object, allow_plaintext: bool = False) -> str | None:
    """Why ``tensordeck login`` must not give ``backend`` a password, with the fix; None when
    it may. A chain of backends stores in its first one."""
    chain = getattr(backend, "backends", None)
    if isinstance(chain, (list, tuple)) and chain:
        backend = chain[0]
    cls = type(backend)
    name = f"{cls.__module__}.{cls.__qualname__}"
    if "plaintext" in cls.__qualname__.lower() and not allow_plaintext:
        return (f"the keyring backend {name} writes passwords to a file in the clear. Fix: "
                f"{SECURE_BACKENDS_HINT}; or, knowing the password lands in that file, set "
                f"{ALLOW_PLAINTEXT}=1")
    if cls.__module__ in ("keyring.backends.null", "keyring.backends.fail"):
        return (f"the keyring backend {name} stores nothing (no usable keyring was found). "
                f"Fix: {SECURE_BACKENDS_HINT}")
    return None


def login_cli(args) -> int:
    """Store the SSH password of a node in the system keyring (never in a file in the clear:
    a plaintext backend is refused unless TENSORDECK_ALLOW_PLAINTEXT_KEYRING=1)."""
    import keyring
    from keyring.errors import KeyringError

    from core.config import ConfigError, load_config

    try:
        cfg = load_config(args.file)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    node = cfg.nodes.get(args.node)
    if node is None:
        print(
            f"{args.file}: no node {args.node!r} (nodes: {', '.join(cfg.nodes) or 'none'})",
            file=sys.stderr,
        )
        return 2
    account = keyring_account(node)
    problem = store_problem(keyring.get_keyring(), os.environ.get(ALLOW_PLAINTEXT) == "1")
    if problem:
        print(f"tensordeck: the password was not stored: {problem}.", file=sys.stderr)
        return 1
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = getpass.getpass(f"SSH password for {account}: ")
    try:
        keyring.set_password(KEYRING_SERVICE, account, password)
    except KeyringError as exc:
        print(f"tensordeck: the system keyring refused: {exc}", file=sys.stderr)
        return 1
    print(
        f"Stored in the system keyring ({keyring.get_keyring().name}) for {account}. "
        f'Set "password": true in nodes.{args.node} to use it.'
    )
    return 0
