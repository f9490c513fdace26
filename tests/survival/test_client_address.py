"""The rate limit counts the peer address; X-Forwarded-For counts only through configured trusted proxies."""

from __future__ import annotations

import httpx
import pytest

from duocthu_gateway.domain.clients import client_address, parse_networks
from tests.fixtures.gateway import fresh_rate_window
from tests.fixtures.stack import StackFactory

PROXIES = parse_networks(["10.0.0.0/8", "127.0.0.1"])


def test_forwarded_for_is_believed_only_hop_by_hop_from_trusted_proxies() -> None:
    assert client_address("203.0.113.9", "1.2.3.4", PROXIES) == "203.0.113.9"  # untrusted peer: header ignored
    assert client_address("203.0.113.9", "1.2.3.4", ()) == "203.0.113.9"
    assert client_address("10.1.2.3", "198.51.100.7", PROXIES) == "198.51.100.7"
    # a client that prepends a fake hop: only what the trusted proxies appended counts
    assert client_address("10.1.2.3", "6.6.6.6, 198.51.100.7", PROXIES) == "198.51.100.7"
    assert client_address("10.1.2.3", "6.6.6.6, 198.51.100.7, 10.9.9.9", PROXIES) == "198.51.100.7"
    assert client_address("10.1.2.3", "", PROXIES) == "10.1.2.3"
    assert client_address("10.1.2.3", "not-an-ip, 10.0.0.5", PROXIES) == "not-an-ip"  # counted, never trusted
    with pytest.raises(ValueError, match="does not appear"):
        parse_networks(["nonsense"])


@pytest.mark.e2e
def test_a_spoofed_forwarded_for_per_request_does_not_escape_the_limit(stack_factory: StackFactory) -> None:
    stack = stack_factory(services=("gateway",), ready_path="/healthz", env={"RATE_LIMIT_PER_MINUTE": "3"})
    fresh_rate_window(20)
    with httpx.Client(timeout=30) as client:
        codes = [client.post(f"{stack.url}/v1/rag/query", json={"query": "Xin chào"},
                             headers={"X-Forwarded-For": f"192.0.2.{i}"}).status_code for i in range(5)]
    assert codes == [200, 200, 200, 429, 429]


@pytest.mark.e2e
def test_a_trusted_proxy_forwards_distinct_clients(stack_factory: StackFactory) -> None:
    stack = stack_factory(services=("gateway",), ready_path="/healthz",
                          env={"RATE_LIMIT_PER_MINUTE": "2", "TRUSTED_PROXIES": '["127.0.0.1"]'})
    fresh_rate_window(20)
    with httpx.Client(timeout=30) as client:
        def ask(forwarded: str) -> int:
            return client.post(f"{stack.url}/v1/rag/query", json={"query": "Xin chào"},
                               headers={"X-Forwarded-For": forwarded}).status_code

        assert [ask("198.51.100.1") for _ in range(3)] == [200, 200, 429]
        assert [ask("198.51.100.2") for _ in range(2)] == [200, 200]  # another client behind the proxy
