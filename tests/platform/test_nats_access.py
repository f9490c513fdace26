"""NATS access control against an adversary (issue 21): a real nats-server with the embedded identities.

Each non-operator identity tries every way we know to read the audit stream
(``RAG_AUDIT`` holds raw questions and patient context) or to inject an ingest
job; the server must refuse each one, and the operator must be able to do
both.  A refusal is observed, not assumed: the server reports a permissions
violation for that subject, or the JetStream API answers with an error.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import Error as NatsError

from duocthu_contracts import subjects as s
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.messages import (
    AnswerDrafted,
    EvidenceRetrieved,
    IngestJobRequested,
    IngestJobRequestedPayload,
    TurnCompleted,
    TurnCompletedPayload,
    TurnRequested,
    TurnRequestedPayload,
)
from duocthu_runtime import Bus
from duocthu_runtime.access.table import IDENTITIES, OPS, identity
from duocthu_runtime.bus.envelope import derive, new_message, new_turn, utcnow
from duocthu_runtime.bus.subjects import durable_name
from duocthu_runtime.devstack import NatsServer, embedded_authorization
from duocthu_runtime.seal import SigningKey, seal_completion
from duocthu_runtime.settings import RuntimeSettings, inbox_prefix_for

#: A guard against a hang only: every outcome below is an event (a reply or a violation), never a timeout.
GUARD_S = 20.0

NON_OPS = [entry.user for entry in IDENTITIES if entry.user != OPS]
STAGES = [entry.user for entry in IDENTITIES if entry.user not in (OPS, "gateway")]


@dataclass
class Secured:
    server: NatsServer
    passwords: dict[str, str]


@dataclass
class Probe:
    """A raw client acting as one identity, recording the permission violations the server reports."""

    nc: Client
    user: str
    violations: list[str] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def refused(self, subject: str) -> None:
        """Wait until the server reports a violation naming ``subject`` (lower-cased by the client)."""
        async def seen() -> None:
            while not any(f'"{subject.lower()}"' in v for v in self.violations):
                self.changed.clear()
                await self.changed.wait()
        await asyncio.wait_for(seen(), GUARD_S)

    async def api(self, subject: str, body: dict[str, object] | None = None) -> dict[str, object] | None:
        """A JetStream API call: its JSON answer, or None when the server refused the publish."""
        inbox = self.nc.new_inbox()
        sub = await self.nc.subscribe(inbox, max_msgs=1)
        await self.nc.publish(subject, json.dumps(body or {}).encode(), reply=inbox)
        answer = asyncio.ensure_future(sub.next_msg(timeout=GUARD_S))
        refusal = asyncio.ensure_future(self.refused(subject))
        done, pending = await asyncio.wait({answer, refusal}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        if answer in done:
            msg: Msg = answer.result()
            result: dict[str, object] = json.loads(msg.data)
            return result
        refusal.result()
        return None


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[Secured]:
    authorization, passwords = embedded_authorization(tmp_path / "nats")
    server = NatsServer(store_dir=tmp_path / "nats", log_file=tmp_path / "nats.log", authorization=authorization)
    server.start()
    yield Secured(server, passwords)
    server.stop()


async def _probe(secured: Secured, user: str) -> Probe:
    probe_ref: list[Probe] = []

    async def on_error(exc: Exception) -> None:
        probe_ref[0].violations.append(str(exc).lower())
        probe_ref[0].changed.set()

    nc = await nats.connect(secured.server.url, user=user, password=secured.passwords[user],
                            inbox_prefix=inbox_prefix_for(user), error_cb=on_error, allow_reconnect=False)
    probe_ref.append(Probe(nc, user))
    return probe_ref[0]


def _ops_settings(secured: Secured) -> RuntimeSettings:
    return RuntimeSettings(nats_url=secured.server.url, nats_user=OPS, nats_password=secured.passwords[OPS])


async def _record_a_turn(secured: Secured) -> None:
    """The operator declares the streams and records one turn with patient context in the audit stream."""
    bus = Bus(_ops_settings(secured), client_name="ops")
    await bus.connect()
    await bus.publish(new_turn(TurnRequested, TurnRequestedPayload(query="Bệnh nhân 70 tuổi suy thận: liều metformin?"),
                               origin="gw", deadline_s=60, llm_calls=8))
    await bus.stop()


def test_the_generated_passwords_and_the_server_config_are_private(secured: Secured) -> None:
    store = secured.server.store_dir
    for name in ("credentials.json", "nats-server.conf"):
        assert (store / name).stat().st_mode & 0o777 == 0o600, name
    assert set(secured.passwords) == {e.user for e in IDENTITIES}
    assert len(set(secured.passwords.values())) == len(IDENTITIES)


async def test_an_unauthenticated_client_is_refused(secured: Secured) -> None:
    with pytest.raises(NatsError, match="Authorization Violation"):
        await nats.connect(secured.server.url, allow_reconnect=False, max_reconnect_attempts=0)
    with pytest.raises(NatsError, match="Authorization Violation"):
        await nats.connect(secured.server.url, user="gateway", password="guessed", allow_reconnect=False,
                           max_reconnect_attempts=0)


@pytest.mark.parametrize("user", NON_OPS)
async def test_no_service_identity_can_read_the_audit_stream(secured: Secured, user: str) -> None:
    await _record_a_turn(secured)
    probe = await _probe(secured, user)
    own = [c for c in identity(user).consumers() if c.stream == s.AUDIT_STREAM]
    # another stage's durable consumer (the table's names: each stage reads its own messages only)
    other = durable_name("verifier", AnswerDrafted) if user != "verifier" else durable_name("generation",
                                                                                          EvidenceRetrieved)
    attempts: list[tuple[str, dict[str, object]]] = [
        (f"$JS.API.CONSUMER.CREATE.{s.AUDIT_STREAM}", {"stream_name": s.AUDIT_STREAM, "config": {}}),
        (f"$JS.API.CONSUMER.CREATE.{s.AUDIT_STREAM}.spy.rag.>",
         {"stream_name": s.AUDIT_STREAM, "config": {"name": "spy", "filter_subject": "rag.>"}}),
        (f"$JS.API.CONSUMER.DURABLE.CREATE.{s.AUDIT_STREAM}.spy",
         {"stream_name": s.AUDIT_STREAM, "config": {"durable_name": "spy"}}),
        (f"$JS.API.STREAM.MSG.GET.{s.AUDIT_STREAM}", {"seq": 1}),
        (f"$JS.API.DIRECT.GET.{s.AUDIT_STREAM}", {"seq": 1}),
        (f"$JS.API.CONSUMER.MSG.NEXT.{s.AUDIT_STREAM}.{other}", {"batch": 1}),
        (f"$JS.API.STREAM.PURGE.{s.AUDIT_STREAM}", {}),
        (f"$JS.API.STREAM.UPDATE.{s.AUDIT_STREAM}",  # shrinking the limits would erase the audit log
         {"name": s.AUDIT_STREAM, "subjects": list(s.AUDIT_SUBJECTS), "max_msgs": 1}),
        (f"$JS.API.STREAM.MSG.DELETE.{s.AUDIT_STREAM}", {"seq": 1}),
        (f"$JS.API.STREAM.DELETE.{s.AUDIT_STREAM}", {}),
        (f"$JS.API.CONSUMER.CREATE.{s.AUDIT_REDACTED_STREAM}", {"stream_name": s.AUDIT_REDACTED_STREAM}),
    ]
    attempts += [(f"$JS.API.CONSUMER.CREATE.{c.stream}.{c.durable}.rag.>",
                  {"stream_name": c.stream, "config": {"name": c.durable, "filter_subject": "rag.>"}}) for c in own]
    for subject, body in attempts:
        assert await probe.api(subject, body) is None, f"{user} was allowed {subject}"
    for consumer in own:  # its own consumer's create subject, with a wider filter in the body: refused by the server
        answer = await probe.api(
            f"$JS.API.CONSUMER.CREATE.{consumer.stream}.{consumer.durable}.{consumer.filter_subject}",
            {"stream_name": consumer.stream, "config": {"name": consumer.durable, "durable_name": consumer.durable,
                                                        "filter_subject": "rag.>", "ack_policy": "explicit"}})
        assert answer is not None and "error" in answer, answer
    # core subscriptions: to every turn subject, and to other identities' replies (the operator's audit reads)
    leaked: list[str] = []

    async def on_leak(msg: Msg) -> None:
        leaked.append(msg.subject)

    synced = asyncio.Event()

    async def on_sync(_: Msg) -> None:
        synced.set()

    for subject in ("rag.>", "_INBOX.>", f"{inbox_prefix_for(OPS)}.>", ">"):
        await probe.nc.subscribe(subject, cb=on_leak)
        await probe.refused(subject)
    await probe.nc.subscribe(f"{inbox_prefix_for(user)}.sync", cb=on_sync)
    await probe.nc.flush()
    ops = await _probe(secured, OPS)
    await ops.nc.publish("rag.v1.turn.requested", b"{}")
    await ops.nc.publish(f"{inbox_prefix_for(OPS)}.reply", b"{}")
    await ops.nc.publish(f"{inbox_prefix_for(user)}.sync", b"")  # delivered after the two above, if at all
    await asyncio.wait_for(synced.wait(), GUARD_S)
    assert leaked == []
    await ops.nc.close()
    await probe.nc.close()


@pytest.mark.parametrize("user", STAGES)
async def test_no_stage_can_publish_an_ingest_job(secured: Secured, user: str) -> None:
    await _record_a_turn(secured)  # declares the streams
    probe = await _probe(secured, user)
    job = new_message(IngestJobRequested, IngestJobRequestedPayload(job_id="x", release_id="r", pdf_uri="/etc/passwd"),
                      correlation_id="attack")
    await probe.nc.publish(IngestJobRequested.SUBJECT, job.model_dump_json(by_alias=True).encode())
    await probe.refused(IngestJobRequested.SUBJECT)
    ops = await _probe(secured, OPS)
    info = await ops.api(f"$JS.API.STREAM.INFO.{s.INGEST_STREAM}")
    assert info is not None and info["state"]["messages"] == 0  # type: ignore[index]
    await ops.nc.close()
    await probe.nc.close()


async def test_the_operator_reads_the_audit_stream_and_the_gateway_and_operator_publish_ingest_jobs(
        secured: Secured) -> None:
    await _record_a_turn(secured)
    ops = await _probe(secured, OPS)
    got = await ops.api(f"$JS.API.STREAM.MSG.GET.{s.AUDIT_STREAM}", {"seq": 1})
    assert got is not None and "message" in got, got
    for user in ("gateway", OPS):
        bus = Bus(RuntimeSettings(nats_url=secured.server.url, nats_user=user, nats_password=secured.passwords[user]),
                  client_name=user)
        await bus.connect()
        job = new_message(IngestJobRequested, IngestJobRequestedPayload(job_id=user, release_id="r", pdf_uri="/x.pdf"),
                          correlation_id=user)
        assert await bus.publish(job)
        await bus.stop()
    info = await ops.api(f"$JS.API.STREAM.INFO.{s.INGEST_STREAM}")
    assert info is not None and info["state"]["messages"] == 2  # type: ignore[index]
    await ops.nc.close()


async def test_the_gateway_reads_back_completions_only_and_cannot_touch_a_stage_durable(secured: Secured) -> None:
    """The catch-up grant (``catches_up``): a consumer pinned to completions, to the gateway's inbox, nothing more."""
    await _record_a_turn(secured)
    ops = await _probe(secured, OPS)
    stage_durable = durable_name("understanding", TurnRequested)
    made = await ops.api(  # the stage's durable as the stage creates it
        f"$JS.API.CONSUMER.CREATE.{s.AUDIT_STREAM}.{stage_durable}.{TurnRequested.SUBJECT}",
        {"stream_name": s.AUDIT_STREAM, "config": {"name": stage_durable, "durable_name": stage_durable,
                                                   "filter_subject": TurnRequested.SUBJECT, "ack_policy": "explicit"}})
    assert made is not None and "error" not in made, made
    gateway = await _probe(secured, "gateway")
    completed = "rag.v1.turn.completed.gw-a"

    def push(name: str, filter_subject: str, **extra: object) -> dict[str, object]:
        config = {"name": name, "filter_subject": filter_subject, "deliver_subject": gateway.nc.new_inbox(),
                  "ack_policy": "none", "deliver_policy": "all", "inactive_threshold": 5_000_000_000, **extra}
        return {"stream_name": s.AUDIT_STREAM, "config": config}

    ok = await gateway.api(f"$JS.API.CONSUMER.CREATE.{s.AUDIT_STREAM}.catchup.{completed}", push("catchup", completed))
    assert ok is not None and "error" not in ok, ok
    # the pinned create subject with another filter in the body, or several filters: refused by the server
    for body in (push("wide", "rag.>"), push("wide", TurnRequested.SUBJECT),
                 push("wide", completed, filter_subjects=[completed, TurnRequested.SUBJECT])):
        answer = await gateway.api(f"$JS.API.CONSUMER.CREATE.{s.AUDIT_STREAM}.wide.{completed}", body)
        assert answer is not None and "error" in answer, (body, answer)
    refused: list[tuple[str, dict[str, object]]] = [
        # the questions themselves, under any name
        (f"$JS.API.CONSUMER.CREATE.{s.AUDIT_STREAM}.spy.{TurnRequested.SUBJECT}", push("spy", TurnRequested.SUBJECT)),
        # a create of an existing consumer is an update: re-pointing the stage's durable to completions
        (f"$JS.API.CONSUMER.CREATE.{s.AUDIT_STREAM}.{stage_durable}.{completed}", push(stage_durable, completed)),
        (f"$JS.API.CONSUMER.MSG.NEXT.{s.AUDIT_STREAM}.catchup", {"batch": 1}),
        (f"$JS.API.CONSUMER.MSG.NEXT.{s.AUDIT_STREAM}.{stage_durable}", {"batch": 1}),
        (f"$JS.API.CONSUMER.DELETE.{s.AUDIT_STREAM}.{stage_durable}", {}),
        (f"$JS.API.CONSUMER.INFO.{s.AUDIT_STREAM}.{stage_durable}", {}),
        (f"$JS.API.CONSUMER.CREATE.{s.SHADOW_STREAM}.spy.shadow.{completed}", {"stream_name": s.SHADOW_STREAM}),
    ]
    for subject, body in refused:
        assert await gateway.api(subject, body) is None, f"the gateway was allowed {subject}"
    info = await ops.api(f"$JS.API.CONSUMER.INFO.{s.AUDIT_STREAM}.{stage_durable}")
    assert info is not None
    config = info["config"]
    assert isinstance(config, dict)
    assert config["filter_subject"] == TurnRequested.SUBJECT and config.get("deliver_subject") is None
    await gateway.nc.close()
    await ops.nc.close()


@pytest.mark.parametrize("user", [entry.user for entry in IDENTITIES if entry.user != "verifier"])
async def test_only_the_verifier_may_publish_a_sealed_turn_end(secured: Secured, user: str) -> None:
    """``rag.v1.turn.verified.*`` is the verifier's alone (``exclusive`` in the topology): the operator included."""
    await _record_a_turn(secured)  # declares the streams
    subject = "rag.v1.turn.verified.gw-a"
    probe = await _probe(secured, user)
    await probe.nc.publish(subject, b"{}")
    await probe.refused(subject)
    await probe.nc.publish(f"shadow.{subject}", b"{}")  # the shadow twin is the verifier's only too
    if user != OPS:  # (the operator replays into the shadow lane; the live subject is what a user sees)
        await probe.refused(f"shadow.{subject}")
    await probe.nc.close()
    verifier = Bus(RuntimeSettings(nats_url=secured.server.url, nats_user="verifier",
                                   nats_password=secured.passwords["verifier"]), client_name="verifier")
    await verifier.connect()
    request = new_turn(TurnRequested, TurnRequestedPayload(query="q"), origin="gw-a", deadline_s=60, llm_calls=8)
    sealed = seal_completion(derive(request, TurnCompleted, TurnCompletedPayload(
        query="q", decision=Decision.ABSTAIN, reason=Reason.NO_EVIDENCE, completed_by="verifier"),
        stage="verifier", started_at=utcnow()), SigningKey.generate())
    assert await verifier.publish(sealed)  # stored: the verifier's own subject
    await verifier.stop()
