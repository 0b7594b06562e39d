"""Port checks by binding the wildcard address, as a TF server will."""

from __future__ import annotations

import socket

from core.ports import PortReservation, port_problem


def test_listening_port_is_in_use_on_either_family():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))  # even a loopback-only listener blocks the wildcard bind
        busy.listen()
        port = busy.getsockname()[1]
        assert port_problem(port) == f"port {port} is in use by another program"
    if socket.has_ipv6:
        with socket.socket(socket.AF_INET6) as busy6:
            busy6.bind(("::1", 0))
            busy6.listen()
            assert port_problem(busy6.getsockname()[1]) is not None


def test_connections_left_in_time_wait_do_not_block_the_port():
    """Back-to-back runs: the ps of the last run was killed with clients connected, leaving
    TIME_WAIT entries. gRPC binds anyway (SO_REUSEADDR), so the check must not refuse."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC's listeners do
    listener.bind(("0.0.0.0", 0))
    listener.listen()
    port = listener.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    server_side, _ = listener.accept()
    server_side.close()  # the server closes first: its end goes to TIME_WAIT
    client.close()
    listener.close()
    assert port_problem(port) is None


def test_reserved_ports_are_distinct_until_released():
    with PortReservation() as reservation:
        ports = [reservation.pick() for _ in range(20)]
        assert len(set(ports)) == 20
        assert all(port_problem(p) for p in ports)  # held while reserved
    assert all(port_problem(p) is None for p in ports)
