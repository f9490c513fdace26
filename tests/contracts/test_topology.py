"""Every service's spec, the gateway's subscriptions and the tools agree with the one topology table.

The table (``contracts/duocthu_contracts/topology.py``) is the only place that
says who sends what to whom; the services' ``main.py`` wiring is built here for
real (the same ``build_spec`` a process runs, registered on a real, unconnected
bus) and compared with it, so a consumer added to a service without the table
(or the reverse) fails here, before the permissions refuse it in production.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from duocthu_cli.bench.inprocess import InProcessPipeline
from duocthu_contracts import topology as t
from duocthu_contracts.envelope import Lane, Message, TurnMessage
from duocthu_contracts.messages import ALL_MESSAGES, IngestJobProgress, TurnProgress, TurnRequested, TurnVerified
from duocthu_contracts.rpc import RpcRequest
from duocthu_contracts.topology import TOPOLOGY, Reading
from duocthu_gateway.adapters.correlator import ENDS
from duocthu_runtime import Bus
from duocthu_runtime.access.table import IDENTITIES
from duocthu_runtime.bus.stage import Stage
from duocthu_runtime.bus.topology import NotInTopology, durable_name, readers_of
from duocthu_runtime.seal import SigningKey
from duocthu_runtime.service import ServiceSpec
from duocthu_runtime.settings import RuntimeSettings


def _verifier_spec(tmp_path: Path) -> ServiceSpec:
    from duocthu_verifier import VerifierSettings, build_spec

    key = tmp_path / "verdict.pem"
    key.write_bytes(SigningKey.generate().pem())
    return build_spec(VerifierSettings(verdict_signing_key_file=key))


def _understanding_spec(_: Path) -> ServiceSpec:
    from duocthu_understanding.main import build_spec

    return build_spec()


def _retrieval_spec(_: Path) -> ServiceSpec:
    from duocthu_retrieval.main import build_spec

    return build_spec()


def _generation_spec(_: Path) -> ServiceSpec:
    from duocthu_generation.main import build_spec

    return build_spec()


def _ingest_spec(_: Path) -> ServiceSpec:
    from duocthu_ingest.main import build_spec

    return build_spec()


SPECS: dict[str, Callable[[Path], ServiceSpec]] = {
    "understanding": _understanding_spec,
    "retrieval": _retrieval_spec,
    "generation": _generation_spec,
    "verifier": _verifier_spec,
    "ingest-worker": _ingest_spec,
}


@pytest.mark.parametrize("service", sorted(SPECS))
def test_every_service_spec_consumes_exactly_what_the_table_gives_it(service: str, tmp_path: Path) -> None:
    spec = SPECS[service](tmp_path)
    assert spec.name == service
    bus = Bus(RuntimeSettings(), client_name=f"topology-{service}")  # never connected: wiring only
    stage = Stage(spec.name, bus)
    spec.register(stage)
    identity = t.SERVICE_IDENTITIES[service]
    wanted = {(flow.message, reader.durable) for flow, reader in readers_of(identity, Reading.DURABLE)}
    live = {(cls, durable) for cls, lane, durable in stage.consumed if lane is Lane.LIVE}
    assert live == wanted
    # a turn stage runs the shadow lane too, under the same names with the suffix
    shadow = {(cls, durable) for cls, lane, durable in stage.consumed if lane is Lane.SHADOW}
    assert shadow == {(cls, f"{durable}_shadow") for cls, durable in wanted if issubclass(cls, TurnMessage)}
    # requests it answers, one replica of its queue group each
    answered = {getattr(s, "subject").template for s in bus.broker.subscribers  # noqa: B009 - untyped in FastStream
                if getattr(s, "queue", None) == service}
    assert answered == {flow.message.SUBJECT for flow, _ in readers_of(identity, Reading.REQUEST)}


def test_the_gateway_subscribes_to_what_the_table_addresses_to_it() -> None:
    heard = {flow.message for flow, _ in readers_of(t.GATEWAY, Reading.SUBSCRIPTION)}
    # the correlator's turn ends and progress lines, the ingest job board's progress
    assert heard == {*ENDS, TurnProgress, IngestJobProgress}
    assert {flow.message for flow, reader in readers_of(t.GATEWAY, Reading.SUBSCRIPTION) if reader.catch_up} \
        == set(ENDS)


def test_a_table_stage_cannot_consume_what_the_table_does_not_give_it() -> None:
    with pytest.raises(NotInTopology, match="TurnRequested"):
        durable_name("verifier", TurnRequested)
    stage = Stage("verifier", Bus(RuntimeSettings(), client_name="topology-refused"))

    async def handler(message: TurnRequested, ctx: object) -> list[Message]:  # pragma: no cover - never called
        return []

    with pytest.raises(NotInTopology):
        stage.consumes(TurnRequested, handler)  # type: ignore[arg-type]
    # a probe outside the table (tests, benchmarks) is named by the table's own rule
    assert durable_name("probe", TurnRequested, Lane.SHADOW) == "probe__rag_turn_requested_shadow"


def test_the_table_is_complete_and_consistent() -> None:
    messages = [flow.message for flow in TOPOLOGY]
    assert len(messages) == len(set(messages)), "one row per message"
    assert set(ALL_MESSAGES) <= set(messages)
    assert all(issubclass(m, Message | RpcRequest) for m in messages)
    known = {*t.SERVICE_IDENTITIES.values(), t.OPS}
    assert {e.user for e in IDENTITIES} == known
    for flow in TOPOLOGY:
        assert flow.producers and set(flow.producers) <= known, flow
        assert flow.readers and {r.identity for r in flow.readers} <= known, flow
        assert not flow.addressed or issubclass(flow.message, TurnMessage), flow
        for reader in flow.readers:
            assert (reader.reading is Reading.DURABLE) == (reader.durable is not None), (flow, reader)
            assert not reader.catch_up or reader.reading is Reading.SUBSCRIPTION, (flow, reader)
            if reader.durable is not None:  # deployed names follow one rule: <service>__<schema name>
                assert issubclass(flow.message, Message)
                service = next(s for s, who in t.SERVICE_IDENTITIES.items() if who == reader.identity)
                assert reader.durable == f"{service}__{flow.message.SCHEMA.split('/')[0].replace('.', '_')}"
    durables = [r.durable for f in TOPOLOGY for r in f.readers if r.durable]
    assert len(durables) == len(set(durables))
    # the sealed turn end is the verifier's alone, and every turn stage may end a turn only on the open subject
    [sealed] = [f for f in TOPOLOGY if f.exclusive]
    assert sealed.message is TurnVerified and sealed.producers == (t.VERIFIER,)


def test_the_in_process_bench_follows_the_table() -> None:
    chain = [InProcessPipeline.reader_of(flow.message) for flow in TOPOLOGY
             if issubclass(flow.message, TurnMessage)]
    assert chain == ["understanding", "retrieval", "generation", "verifier", "generation", None, None, None]
