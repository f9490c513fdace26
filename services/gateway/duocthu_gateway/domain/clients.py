"""Who a request comes from, for the rate limit: the peer address, unless a trusted proxy vouches for another.

``X-Forwarded-For`` is written by whoever sends the request, so it is believed
only hop by hop from the right: starting at the TCP peer, while the current
hop is a configured trusted proxy, the address that proxy appended (the
rightmost unread entry) becomes the client. A header from an untrusted peer is
ignored entirely, so a client cannot pick a fresh identity per request.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(entries: Sequence[str]) -> tuple[Network, ...]:
    """``TRUSTED_PROXIES`` entries (addresses or CIDR blocks) as networks; raises ValueError on a bad entry."""
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries if entry.strip())


def _trusted(address: str, proxies: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in proxies)


def client_address(peer: str, forwarded_for: str | None, proxies: Sequence[Network]) -> str:
    """The address the rate limit counts: ``peer`` unless trusted proxies forwarded for someone else."""
    client = peer
    hops = [hop.strip() for hop in (forwarded_for or "").split(",") if hop.strip()]
    while hops and _trusted(client, proxies):
        client = hops.pop()
    return client
