"""A real OpenSSH server for the tests, on loopback addresses that stand in for LAN machines
(127.0.0.2, 127.0.0.3 ... are all this machine). Keys are generated per session."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"


def sshd_missing_reason() -> str | None:
    if sys.platform == "win32":
        return ("the test SSH server is Debian's OpenSSH sshd, a Linux program that the Windows "
                "lane cannot start")
    if not Path(SSHD).exists() or not shutil.which("ssh-keygen"):
        return "OpenSSH server not installed (apt-get install openssh-server)"
    if os.geteuid() != 0:
        return "sshd on loopback needs root here"
    return None


@dataclass
class SshServer:
    address: str
    port: int
    host_key_pub: str  # "ssh-ed25519 AAAA..."
    process: subprocess.Popen

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def keygen(path: Path) -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return path


def _free_port(address: str) -> int:
    with socket.socket() as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


def start_sshd(
    folder: Path,
    address: str,
    authorized_keys: Path,
    *,
    password_auth: bool = False,
    extra_config: str = "",
) -> SshServer:
    """Start sshd on ``address`` (foreground, its own host key) and wait until it accepts."""
    folder.mkdir(parents=True, exist_ok=True)
    Path("/run/sshd").mkdir(exist_ok=True)
    host_key = folder / "host_ed25519"
    if not host_key.exists():
        keygen(host_key)
    port = _free_port(address)
    config = folder / "sshd_config"
    config.write_text(
        f"ListenAddress {address}:{port}\n"
        f"HostKey {host_key}\n"
        f"AuthorizedKeysFile {authorized_keys}\n"
        "UsePAM no\nStrictModes no\nPermitRootLogin yes\n"
        f"PasswordAuthentication {'yes' if password_auth else 'no'}\n"
        "KbdInteractiveAuthentication no\n"
        f"PidFile {folder / 'sshd.pid'}\n"
        "Subsystem sftp internal-sftp\n"
        "LogLevel ERROR\n" + extra_config
    )
    process = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((address, port), timeout=0.5) as sock:
                if sock.recv(4).startswith(b"SSH-"):
                    break
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(f"sshd died: {process.stderr.read().decode()}") from None
            time.sleep(0.05)
    else:
        process.kill()
        raise RuntimeError("sshd did not start")
    return SshServer(address, port, (host_key.with_suffix(".pub")).read_text().strip(), process)


def start_lab(
    root: Path, addresses: dict[str, str], extra_config: dict[str, str] | None = None
) -> dict:
    """One sshd per ``name -> address``, key login with a fresh client key, and a HOME whose
    known_hosts trusts them all. Returns {"root", "key", "servers" (by name), "home"}."""
    key = keygen(root / "client_key")
    authorized = root / "authorized_keys"
    authorized.write_text((root / "client_key.pub").read_text())
    servers = {
        name: start_sshd(
            root / name, address, authorized, extra_config=(extra_config or {}).get(name, "")
        )
        for name, address in addresses.items()
    }
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "known_hosts").write_text(
        "".join(f"[{s.address}]:{s.port} {s.host_key_pub}\n" for s in servers.values())
    )
    return {"root": root, "key": key, "servers": servers, "home": home}


def stop_lab(lab: dict) -> None:
    for server in lab["servers"].values():
        server.stop()
