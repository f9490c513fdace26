"""A completion stored while the gateway's connection was away still reaches the waiting turn (issue 21).

In a cluster the gateway fails over to another node in 10-30 ms; a completion
published in that gap is stored in ``RAG_AUDIT`` but its core subscription
hears nothing, and the question used to wait out its whole budget. Here the
gap is made deterministic: the gateway talks to a real, secured nats-server
through a TCP relay the test cuts; the verifier's completion is stored while
the server has no connection of the gateway at all; the relay is restored.
The turn must end with that completion, read back through the gateway's own
(least-privilege) catch-up consumer, long before its deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.messages import TurnCompleted, TurnCompletedPayload, TurnRequested, TurnRequestedPayload
from duocthu_gateway.adapters.correlator import TurnCorrelator
from duocthu_runtime import Bus, RuntimeSettings, new_turn, utcnow
from duocthu_runtime.access import OPS
from duocthu_runtime.bus.envelope import derive
from duocthu_runtime.devstack import NatsServer, embedded_authorization

GUARD_S = 30.0
ORIGIN = "gw-catchup-test"


@dataclass
class Relay:
    """A TCP relay in front of the server whose links the test can cut (and refuse) at will."""

    upstream_port: int
    port: int = 0
    open: bool = True
    _links: list[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = field(default_factory=list)
    _server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.open:
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        self._links.append((writer, up_writer))
        await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer), return_exceptions=True)

    @staticmethod
    async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    def cut(self) -> None:
        self.open = False
        for client, upstream in self._links:
            client.close()
            upstream.close()
        self._links.clear()

    async def stop(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[tuple[NatsServer, dict[str, str]]]:
    authorization, passwords = embedded_authorization(tmp_path / "nats")
    server = NatsServer(store_dir=tmp_path / "nats", log_file=tmp_path / "nats.log", authorization=authorization)
    server.start()
    yield server, passwords
    server.stop()


@contextlib.asynccontextmanager
async def _bus(url: str, user: str, passwords: dict[str, str]) -> AsyncIterator[Bus]:
    bus = Bus(RuntimeSettings(nats_url=url, nats_user=user, nats_password=passwords[user]), client_name=user)
    await bus.connect()
    try:
        yield bus
    finally:
        await bus.stop()


async def _wait_gone(server: NatsServer, name: str) -> None:
    """Until the server itself has no connection named ``name`` (its subscriptions are gone with it)."""
    async with httpx.AsyncClient() as client:
        deadline = time.monotonic() + GUARD_S
        while time.monotonic() < deadline:
            connz = (await client.get(f"http://127.0.0.1:{server.http_port}/connz")).json()
            if not any(c.get("name") == name for c in connz.get("connections") or []):
                return
            await asyncio.sleep(0.05)
    raise AssertionError(f"the server still holds {name}'s connection")


def _completion_of(request: TurnRequested) -> TurnCompleted:
    return derive(request, TurnCompleted, TurnCompletedPayload(
        query=request.payload.query, decision=Decision.ABSTAIN, reason=Reason.NO_EVIDENCE, completed_by="verifier"),
        stage="verifier", started_at=utcnow())


async def test_a_completion_stored_while_the_gateway_was_disconnected_ends_its_turn(
        secured: tuple[NatsServer, dict[str, str]]) -> None:
    server, passwords = secured
    relay = Relay(server.port)
    await relay.start()
    async with (_bus(server.url, OPS, passwords) as ops, _bus(server.url, "verifier", passwords) as verifier,
                _bus(f"nats://127.0.0.1:{relay.port}", "gateway", passwords) as gateway):
        turns = TurnCorrelator(gateway, ORIGIN)
        await turns.start()
        request = new_turn(TurnRequested, TurnRequestedPayload(query="Liều amoxicilin cho trẻ em?"),
                           origin=ORIGIN, deadline_s=60, llm_calls=8)
        async with ops.follow(TurnRequested, since="all") as stored:
            waiting = asyncio.create_task(turns.submit(request, timeout_s=GUARD_S))
            assert (await asyncio.wait_for(stored.get(), GUARD_S)).turn_id == request.turn_id
        relay.cut()
        await _wait_gone(server, "gateway")
        assert not gateway.connected
        assert await verifier.publish(_completion_of(request))  # stored; no subscriber of the gateway exists
        relay.open = True
        began = time.monotonic()
        completed = await asyncio.wait_for(waiting, GUARD_S + 5)
        assert completed is not None, "the turn ran out its budget: the stored completion was never read back"
        assert completed.turn_id == request.turn_id and completed.payload.reason is Reason.NO_EVIDENCE
        assert turns.recovered == 1 and gateway.reconnects == 1
        assert time.monotonic() - began < 10  # a reconnection (1 s apart) and one read, not a deadline
        await turns.stop()
    await relay.stop()


async def test_no_catch_up_runs_when_no_turn_was_waiting(secured: tuple[NatsServer, dict[str, str]]) -> None:
    """A reconnection with nothing waiting creates no consumer on the audit stream."""
    server, passwords = secured
    relay = Relay(server.port)
    await relay.start()
    async with (_bus(server.url, OPS, passwords) as ops,
                _bus(f"nats://127.0.0.1:{relay.port}", "gateway", passwords) as gateway):
        turns = TurnCorrelator(gateway, ORIGIN)
        await turns.start()
        relay.cut()
        await _wait_gone(server, "gateway")
        relay.open = True
        assert await gateway.wait_connected(within_s=GUARD_S)
        await asyncio.wait_for(gateway.healed(), GUARD_S)  # every reconnection hook has run
        info = await ops.js.stream_info("RAG_AUDIT")
        assert info.state.consumer_count == 0 and turns.catch_ups == 0
        await turns.stop()
    await relay.stop()
