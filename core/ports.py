"""Port checks for TF servers.

A TF server binds its port on every interface (``[::]:PORT``), whatever host the cluster spec
names, so a port is free only if the wildcard address can be bound. Connecting is no test: on
Windows, ranges reserved by Hyper-V/WSL refuse connections yet cannot be bound (WSAEACCES).
TF cannot bind port 0 either, so a free port is reserved here, recorded, and released just
before the task starts (a small race no launcher can avoid).
"""

from __future__ import annotations

import errno
import socket
import sys
from contextlib import suppress

_IN_USE = {errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1)}
_DENIED = {errno.EACCES, getattr(errno, "WSAEACCES", -1)}


def _bind_error(family: socket.AddressFamily, port: int) -> OSError | None:
    """The error binding the wildcard address of ``family`` on ``port`` gives, if any."""
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError:
        return None  # no IPv6 stack: nothing can collide there
    try:
        if family == socket.AF_INET6:
            with suppress(OSError, AttributeError):
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        if not sys.platform.startswith("win"):
            # Like gRPC's own listener: connections of a finished run lingering in TIME_WAIT
            # do not block the port (on Windows this option would allow stealing a port).
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", port))
    except OSError as exc:
        return None if exc.errno == errno.EADDRNOTAVAIL else exc
    finally:
        sock.close()
    return None


def _families() -> list[socket.AddressFamily]:
    return [socket.AF_INET, socket.AF_INET6] if socket.has_ipv6 else [socket.AF_INET]


def port_problem(port: int) -> str | None:
    """Why ``port`` cannot be bound on this machine, or None when it is free."""
    for family in _families():
        exc = _bind_error(family, port)
        if exc is None:
            continue
        if exc.errno in _IN_USE:
            return f"port {port} is in use by another program"
        if exc.errno in _DENIED:
            return (
                f"port {port} cannot be bound (reserved or privileged; on Windows see "
                "'netsh interface ipv4 show excludedportrange protocol=tcp')"
            )
        return f"port {port} cannot be bound: {exc.strerror or exc}"
    return None


class PortReservation:
    """Free ports held open until :meth:`release`, so that several picks never collide."""

    def __init__(self) -> None:
        self._sockets: list[socket.socket] = []

    def pick(self) -> int:
        while True:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("0.0.0.0", 0))
            self._sockets.append(sock)  # held even if unusable, so the next pick differs
            port = sock.getsockname()[1]
            if not socket.has_ipv6 or _bind_error(socket.AF_INET6, port) is None:
                return port

    def release(self) -> None:
        for sock in self._sockets:
            sock.close()
        self._sockets.clear()

    def __enter__(self) -> PortReservation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
