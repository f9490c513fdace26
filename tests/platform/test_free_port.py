"""Ports handed to child processes must not be taken by outgoing connections first."""

from __future__ import annotations

import socket
from pathlib import Path

from duocthu_runtime.devstack import free_port


def test_ports_are_outside_the_ephemeral_range_distinct_and_bindable() -> None:
    low, high = (int(part) for part in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    ports = [free_port() for _ in range(50)]
    assert len(set(ports)) == len(ports)
    assert not [port for port in ports if low <= port <= high]
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", ports[-1]))


def test_a_port_in_use_is_not_handed_out() -> None:
    taken: list[socket.socket] = []
    try:
        for _ in range(20):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", free_port()))
            sock.listen()
            taken.append(sock)
        in_use = {sock.getsockname()[1] for sock in taken}
        assert not in_use & {free_port() for _ in range(50)}
    finally:
        for sock in taken:
            sock.close()
