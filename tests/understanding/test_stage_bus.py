"""The understanding stage on a real NATS: the catalog arrives from the corpus stream, frames go out."""

from __future__ import annotations

import asyncio

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.messages import (
    CorpusReleaseCompleted,
    CorpusReleaseResultPayload,
    TurnCompleted,
    TurnRequested,
    TurnRequestedPayload,
    TurnUnderstood,
)
from duocthu_contracts.sections import SectionKey
from duocthu_runtime import Bus, RuntimeSettings, Stage, decode, new_message, new_turn
from duocthu_runtime.devstack import NatsServer
from duocthu_understanding.adapters.catalog import LiveCatalog
from duocthu_understanding.main import build_handler
from tests.fixtures.bus import listen
from tests.fixtures.understanding import sample_catalog


def turn(query: str) -> TurnRequested:
    return new_turn(TurnRequested, TurnRequestedPayload(query=query), origin="ut", deadline_s=30, llm_calls=8)


async def test_understanding_stage_over_nats(fresh_nats: NatsServer) -> None:
    settings = RuntimeSettings(nats_url=fresh_nats.url, bus_fetch_timeout_s=0.5)
    live = LiveCatalog()
    bus = Bus(settings, client_name="understanding-under-test")
    Stage("understanding", bus).consumes(TurnRequested, build_handler(live))
    await bus.start()
    client = Bus(settings, client_name="client")
    await client.connect()
    received = await listen(client, "rag.v1.turn.completed.ut", "rag.v1.turn.understood")

    # before any release: the stage abstains honestly and readiness says why
    assert (await live.ready())[0] is False
    await client.publish(turn("Chống chỉ định của metformin?"))
    _, data = await asyncio.wait_for(received.get(), 10)
    assert decode(data, TurnCompleted).payload.reason is Reason.CORPUS_NOT_READY

    await client.publish(new_message(CorpusReleaseCompleted, CorpusReleaseResultPayload(
        release_id="rel-u", status="live", catalog=sample_catalog()), correlation_id="test"))
    await live.watch(bus)
    for _ in range(100):
        if live.current() is not None:
            break
        await asyncio.sleep(0.05)
    assert live.release_id == "rel-u" and (await live.ready())[0]

    await client.publish(turn("Chống chỉ định của metformin?"))
    subject, data = await asyncio.wait_for(received.get(), 10)
    understood = decode(data, TurnUnderstood)
    assert subject == "rag.v1.turn.understood"
    assert [d.drug_id for d in understood.payload.frame.drugs] == ["metformin"]
    assert understood.payload.frame.section_key is SectionKey.CHONG_CHI_DINH

    await client.publish(turn("Zolmitrapin có tác dụng phụ gì?"))
    subject, data = await asyncio.wait_for(received.get(), 10)
    done = decode(data, TurnCompleted)
    assert (done.payload.decision, done.payload.reason) == (Decision.ABSTAIN, Reason.UNKNOWN_DRUG)
    assert done.payload.frame is not None and done.payload.frame.unknown_drugs == ["zolmitrapin"]
    await client.stop()
    await bus.stop()
