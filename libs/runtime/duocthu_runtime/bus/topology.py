"""Lookups over the message topology (``duocthu_contracts.topology``, the one table of who sends what to whom).

The table is data; what is asked of it lives here: is a message addressed, which
durable consumer a stage reads a message with, what an identity publishes and
reads.  A stage that belongs to the table may consume only what the table gives
it (:func:`durable_name` refuses anything else), so a service's spec cannot
drift from the table the permissions and the AsyncAPI document are made from.
"""

from __future__ import annotations

import functools

from duocthu_contracts.envelope import Lane, Message
from duocthu_contracts.rpc import RpcRequest
from duocthu_contracts.topology import SERVICE_IDENTITIES, TOPOLOGY, Flow, Reader, Reading

MessageType = type[Message] | type[RpcRequest]

SHADOW_SUFFIX = "_shadow"


class NotInTopology(LookupError):
    """A message, or a reading of one, that ``duocthu_contracts.topology.TOPOLOGY`` does not hold."""


@functools.cache
def _flows() -> dict[MessageType, Flow]:
    return {flow.message: flow for flow in TOPOLOGY}


def flow_of(cls: MessageType) -> Flow:
    try:
        return _flows()[cls]
    except KeyError:
        raise NotInTopology(f"{cls.__name__} is not in the topology table (contracts/duocthu_contracts/topology.py)"
                            ) from None


def is_addressed(cls: MessageType) -> bool:
    """Whether ``cls`` goes to one gateway replica (its subject ends with that replica's origin token)."""
    flow = _flows().get(cls)
    return flow is not None and flow.addressed


def identity_of(stage: str) -> str | None:
    """The table identity a stage (a service name, or already an identity) reads as; None: not a table stage."""
    if stage in SERVICE_IDENTITIES:
        return SERVICE_IDENTITIES[stage]
    if stage in SERVICE_IDENTITIES.values():
        return stage
    return None


def readers_of(identity: str, reading: Reading) -> tuple[tuple[Flow, Reader], ...]:
    """Every ``(flow, reader)`` in which ``identity`` reads a message in the ``reading`` way, in table order."""
    return tuple((flow, reader) for flow in TOPOLOGY for reader in flow.readers
                 if reader.identity == identity and reader.reading is reading)


def produced_by(identity: str) -> tuple[Flow, ...]:
    return tuple(flow for flow in TOPOLOGY if identity in flow.producers)


def durable_name(stage: str, cls: type[Message], lane: Lane = Lane.LIVE) -> str:
    """The durable consumer ``stage`` reads ``cls`` with (one per lane, shared by the stage's replicas).

    For a stage of the table, the name the table gives (the permission table grants exactly that name), and
    :class:`NotInTopology` when the table does not have the stage read ``cls`` through a durable consumer.  A
    stage outside the table (a test's or a benchmark's probe) gets a name by the same rule the table's names
    follow: ``<stage>__<schema name with dots as underscores>``.
    """
    suffix = SHADOW_SUFFIX if lane is Lane.SHADOW else ""
    identity = identity_of(stage)
    if identity is None:
        return f"{stage}__{cls.SCHEMA.split('/')[0].replace('.', '_')}{suffix}"
    for flow, reader in readers_of(identity, Reading.DURABLE):
        if flow.message is cls and reader.durable:
            return reader.durable + suffix
    raise NotInTopology(f"the topology table has no durable consumer of {cls.__name__} for {stage} "
                        "(contracts/duocthu_contracts/topology.py)")
