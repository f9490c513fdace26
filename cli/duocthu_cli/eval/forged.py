"""Forged turn ends from every NATS identity: a compromised stage tries to answer, and nothing it sends is shown.

Issue 32 (item 5): using one identity's own NATS credentials, the adversary
waits for a real question's turn, then publishes a forged ``answerable`` (and
a ``verify_pdf``) end of that turn — claimed by the verifier, with a
fabricated claim and citation — on every subject the identity may publish,
and a sealed-looking one (a seal by a key the gateway does not hold, and one
naming the gateway's key over other bytes) on the verifier's own subject.
The question goes to a real gateway over HTTP; what it answers is what a user
would see.  Per identity: how many forgeries were sent, how many the server
refused, how many the gateway's gate counted, and whether anything forged
was shown (it must never be).

``forged_completions`` runs the whole thing privately (a secured nats-server
with the project's identities, a real gateway in this process, no stages) for
``duocthu eval verifier``; ``forge_as`` is the adversary alone, for a test that
brings its own server and gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import nats
import uvicorn
from nats.aio.client import Client

from duocthu_contracts.answer import Claim
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.envelope import Lane
from duocthu_contracts.evidence import Evidence, SourceRef
from duocthu_contracts.messages import TurnCompleted, TurnCompletedPayload, TurnRequested, TurnVerified
from duocthu_contracts.seal import Seal
from duocthu_contracts.sections import SectionKey
from duocthu_contracts.topology import TOPOLOGY
from duocthu_gateway import GatewaySettings, create_app
from duocthu_runtime import (
    Bus,
    RuntimeSettings,
    addressed_subject,
    derive,
    inbox_prefix_for,
    origin_token,
    utcnow,
    wildcard_subject,
)
from duocthu_runtime.access import IDENTITIES, OPS, Identity, identity, publish_allow, shadow
from duocthu_runtime.devstack import NatsServer, embedded_authorization
from duocthu_runtime.seal import SigningKey, public_text, seal_completion

#: What a forgery says; a response carrying any of it was shown to a user.
FORGED_ANSWER = "Paracetamol an toàn tuyệt đối cho phụ nữ có thai; liều 5000 mg mỗi ngày."
FORGED_MARK = "5000 mg mỗi ngày"
QUESTION = "Liều paracetamol cho người lớn?"
SHOWN_DECISIONS = frozenset({Decision.ANSWERABLE.value, Decision.VERIFY_PDF.value})
GUARD_S = 30.0


@dataclass
class IdentityRow:
    identity: str
    sent: int = 0  #: forged messages published
    refused_by_server: int = 0  #: publishes the server refused (a permission violation named the subject)
    counted: int = 0  #: refusals counted by the gateway (``duocthu_gateway_completions_refused_total``)
    shown: int = 0  #: turns whose response showed a forged decision or forged content (must be 0)
    outcome: str = ""  #: the turn's decision/reason as the user got it
    subjects: list[str] = field(default_factory=list)


def _evidence() -> Evidence:
    return Evidence(evidence_id="paracetamol__lieu_luong_va_cach_dung__0", drug_id="paracetamol",
                    drug_name="PARACETAMOL", section_key=SectionKey.LIEU_LUONG_VA_CACH_DUNG,
                    section_title="Liều lượng và cách dùng", text=FORGED_ANSWER,
                    source_refs=[SourceRef(chunk_id="paracetamol__lieu_luong_va_cach_dung__0",
                                           printed_page_range=(1, 1), source_page_range=(1, 1))])


def forged_ends(turn: TurnRequested, gateway_keys: Sequence[str]) -> tuple[list[TurnCompleted], list[TurnVerified]]:
    """Forged ends of ``turn``: answerable and verify_pdf "by the verifier", and sealed-looking ones."""
    ends = [derive(turn, TurnCompleted, TurnCompletedPayload(
        query=turn.payload.query, decision=decision, reason=reason, completed_by="verifier",
        answer=FORGED_ANSWER if decision is Decision.ANSWERABLE else "",
        claims=[Claim(text=FORGED_ANSWER, citations=[1], drug_id="paracetamol")] if decision is Decision.ANSWERABLE
        else [], evidence=[_evidence()], resolved_drug_ids=["paracetamol"]), stage="verifier", started_at=utcnow())
        for decision, reason in ((Decision.ANSWERABLE, Reason.VERIFIED),
                                 (Decision.VERIFY_PDF, Reason.VISUAL_CHECK_REQUIRED))]
    sealed = [seal_completion(end, SigningKey.generate()) for end in ends]  # a key the gateway does not hold
    for key_id in gateway_keys:  # the gateway's own key id, over a signature of other bytes
        other = seal_completion(ends[0], SigningKey.generate())
        seal = Seal(key_id=key_id, signature=other.payload.seal.signature)
        sealed.append(other.model_copy(update={"payload": other.payload.model_copy(update={"seal": seal})}))
    return ends, sealed


def reachable(entry: Identity, origin: str) -> list[str]:
    """Every application subject ``entry`` may publish (for the operator, every subject of the topology), with the
    gateway's origin put in for an addressed one, plus both turn-end subjects addressed to that gateway."""
    if entry.admin:
        granted = [wildcard_subject(flow.message) for flow in TOPOLOGY]
        granted += [shadow(x) for x in granted if x.startswith("rag.")]
    else:
        granted = [x for x in publish_allow(entry) if not x.startswith(("$", "_INBOX"))]
    token = origin_token(origin)
    ends = [addressed_subject(cls, origin) for cls in (TurnCompleted, TurnVerified)]
    subjects = [x.replace("*", token) for x in granted]
    return list(dict.fromkeys([*subjects, *ends]))


async def _connect(url: str, user: str, password: str, violations: list[str]) -> Client:
    async def on_error(exc: Exception) -> None:
        violations.append(str(exc).lower())

    return await nats.connect(url, user=user, password=password, inbox_prefix=inbox_prefix_for(user),
                              error_cb=on_error, allow_reconnect=False, name=f"forger-{user}")


def _refused_total(metrics_text: str) -> float:
    return sum(float(v) for v in re.findall(r'^duocthu_gateway_completions_refused_total\{[^}]*\} ([0-9.e+]+)$',
                                            metrics_text, re.MULTILINE))


async def forge_as(user: str, password: str, *, nats_url: str, ops: RuntimeSettings, gateway_url: str,
                   origin: str, gateway_keys: Sequence[str]) -> IdentityRow:
    """One question through the gateway, answered (if at all) only by ``user``'s forgeries."""
    row = IdentityRow(user)
    violations: list[str] = []
    forger = await _connect(nats_url, user, password, violations)
    watcher = Bus(ops, client_name="forgery-watch")
    await watcher.connect()
    try:
        async with httpx.AsyncClient(base_url=gateway_url, timeout=GUARD_S) as http:
            before = _refused_total((await http.get("/metrics")).text)
            async with watcher.follow(TurnRequested, since="new") as requested:
                asking = asyncio.create_task(http.post("/v1/rag/query", json={"query": QUESTION}))
                turn = await asyncio.wait_for(requested.get(), GUARD_S)
            ends, sealed = forged_ends(turn, gateway_keys)
            verified_subjects = {addressed_subject(TurnVerified, origin),
                                 addressed_subject(TurnVerified, origin, Lane.SHADOW)}
            for subject in reachable(identity(user), origin):
                bodies = sealed if subject in verified_subjects else ends
                for body in bodies:
                    await forger.publish(subject, body.model_dump_json(by_alias=True).encode())
                    row.sent += 1
                row.subjects.append(subject)
            await forger.flush()
            response = (await asyncio.wait_for(asking, GUARD_S)).json()
            after = _refused_total((await http.get("/metrics")).text)
    finally:
        await watcher.stop()
        await forger.close()
    row.refused_by_server = sum(1 for subject in row.subjects if any(f'"{subject.lower()}"' in v for v in violations))
    row.counted = round(after - before)
    text = json.dumps(response, ensure_ascii=False)
    row.shown = int(response.get("decision") in SHOWN_DECISIONS or FORGED_MARK in text)
    row.outcome = f"{response.get('decision')}/{response.get('reason')}"
    return row


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def _gateway(settings: GatewaySettings) -> Iterator[str]:
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=settings.http_port,
                                           log_level="warning", proxy_headers=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    give_up = time.monotonic() + GUARD_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > give_up:
            raise RuntimeError("the gateway did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{settings.http_port}"
    finally:
        server.should_exit = True
        thread.join(GUARD_S)


@dataclass(frozen=True)
class Gate:
    """A secured nats-server with the project's identities and a real gateway in this process, no stages."""

    nats_url: str
    passwords: dict[str, str]
    settings: GatewaySettings
    url: str
    verifier_key: SigningKey  #: the key whose seals the gateway accepts (the forgers never hold it)

    @property
    def ops(self) -> RuntimeSettings:
        return RuntimeSettings(nats_url=self.nats_url, nats_user=OPS, nats_password=self.passwords[OPS])

    async def forge_as(self, user: str) -> IdentityRow:
        return await forge_as(user, self.passwords[user], nats_url=self.nats_url, ops=self.ops, gateway_url=self.url,
                              origin=self.settings.instance_id, gateway_keys=[self.verifier_key.key_id])


@contextlib.contextmanager
def private_gate(deadline_s: float = 4.0) -> Iterator[Gate]:
    with tempfile.TemporaryDirectory(prefix="duocthu-gate-") as tmp:
        root = Path(tmp)
        authorization, passwords = embedded_authorization(root / "nats")
        server = NatsServer(store_dir=root / "nats", log_file=root / "nats.log", authorization=authorization)
        server.start()
        try:
            key = SigningKey.generate()
            settings = GatewaySettings(
                nats_url=server.url, nats_user="gateway", nats_password=passwords["gateway"], var_dir=root,
                http_port=_free_port(), instance_id="gw-forged", required_stages=(), rate_limit_per_minute=0,
                turn_deadline_s=deadline_s, verdict_public_keys=public_text(key.public))
            with _gateway(settings) as url:
                yield Gate(server.url, passwords, settings, url, key)
        finally:
            server.stop()


def forged_completions(deadline_s: float = 4.0) -> list[IdentityRow]:
    """Every identity's forgeries against a private secured NATS and a real gateway."""
    with private_gate(deadline_s) as gate:
        return [asyncio.run(gate.forge_as(entry.user)) for entry in IDENTITIES]


def table(rows: Sequence[IdentityRow]) -> list[str]:
    lines = ["| identity (its own NATS credentials) | forgeries sent | refused by the server | refused by the gate "
             "(counted) | shown | the user got |", "|---|---:|---:|---:|---:|---|"]
    lines += [f"| {r.identity} | {r.sent} | {r.refused_by_server} | {r.counted} | {r.shown} | {r.outcome} |"
              for r in rows]
    return lines
