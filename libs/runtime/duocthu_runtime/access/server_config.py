"""Render the permission table (:mod:`.table`) as a nats-server ``authorization`` block.

Pure functions: the embedded server (``duocthu up``) passes generated
passwords, the deploy configs (compose, k8s) pass ``$NATS_<USER>_PASSWORD``
variable references, and the same text comes out otherwise, so the three can
only differ in secrets.

What a stage identity is granted, and why each grant is needed:

* publish its own message subjects (and their ``shadow.`` twins for a stage
  that runs the shadow lane);
* declare and inspect the streams (every process declares them at start-up:
  ``STREAM.INFO``/``CREATE``; never ``UPDATE``, which could shrink the audit
  stream's limits, nor ``DELETE``/``PURGE``/``MSG.GET``);
* create, inspect and fetch from its own durable consumers, each create
  subject naming the consumer *and its filter* (the server refuses a body whose
  filter differs), and ack their messages;
* ephemeral ordered consumers on the streams it follows (``CORPUS``), and its
  KV buckets;
* subscribe to its own inbox prefix only, so it cannot read replies meant for
  another identity (e.g. the audit records the operator fetches);
* the gateway: create a consumer on ``RAG_AUDIT`` whose create subject names
  the completions' filter (``…CREATE.RAG_AUDIT.<name>.rag.v1.turn.completed.*``;
  the server refuses a body with another filter), delivering to its inbox, to
  read back completions a failover made it miss.  The consumer name is free,
  so creating one under a stage's durable name is denied outright: nats-server
  treats a create of an existing consumer as an update, and could otherwise
  re-point a stage's durable.  No fetch, info or delete grant comes with it.

The operator's ``>`` is denied the live subject of sealed turn ends (``exclusive`` in the topology table:
the verifier's alone).  Nothing grants a stage ``rag.>`` at large, a consumer on ``RAG_AUDIT`` other
than its own filtered ones, ``STREAM.MSG.GET``/``DIRECT.GET`` on ``RAG_AUDIT``,
or ``ingest.v1.job.requested`` (the gateway's alone).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from duocthu_runtime.access.table import DECLARED_STREAMS, IDENTITIES, Identity, shadow
from duocthu_runtime.bus.subjects import stream_for

API = "$JS.API"


def _stream_grants(stream: str) -> list[str]:
    """Declare a stream: create it when missing (a create of an existing stream with another config fails)."""
    return [f"{API}.STREAM.INFO.{stream}", f"{API}.STREAM.CREATE.{stream}"]


def _follow_grants(stream: str) -> list[str]:
    """An ephemeral ordered consumer on ``stream`` (created unnamed, recreated on a gap, deleted on unsubscribe)."""
    return [
        f"{API}.STREAM.INFO.{stream}",
        f"{API}.CONSUMER.CREATE.{stream}",
        f"{API}.CONSUMER.CREATE.{stream}.>",
        f"{API}.CONSUMER.INFO.{stream}.>",
        f"{API}.CONSUMER.DELETE.{stream}.>",
        f"{API}.STREAM.MSG.GET.{stream}",
        f"{API}.DIRECT.GET.{stream}",
        f"{API}.DIRECT.GET.{stream}.>",
        f"$JS.FC.{stream}.>",
    ]


def _bucket_grants(bucket: str) -> list[str]:
    stream = f"KV_{bucket}"
    return [f"$KV.{bucket}.>", f"{API}.STREAM.CREATE.{stream}", *_follow_grants(stream)]


def publish_allow(entry: Identity) -> list[str]:
    """Every subject ``entry`` may publish to (application subjects first, then JetStream API)."""
    if entry.admin:
        return [">"]
    allow: list[str] = []
    for subject in entry.publishes:
        allow.append(subject)
        if subject.startswith("rag.") and len(entry.lanes) > 1:
            allow.append(shadow(subject))
    allow.append(f"{API}.INFO")
    for stream in DECLARED_STREAMS:
        allow += _stream_grants(stream)
    for consumer in entry.consumers():
        allow += [
            f"{API}.CONSUMER.CREATE.{consumer.stream}.{consumer.durable}.{consumer.filter_subject}",
            f"{API}.CONSUMER.INFO.{consumer.stream}.{consumer.durable}",
            f"{API}.CONSUMER.MSG.NEXT.{consumer.stream}.{consumer.durable}",
            f"$JS.ACK.{consumer.stream}.{consumer.durable}.>",
        ]
    for stream in entry.follows:
        allow += _follow_grants(stream)
    for bucket in entry.buckets:
        allow += _bucket_grants(bucket)
    for subject in entry.catches_up:
        allow.append(f"{API}.CONSUMER.CREATE.{stream_for(subject)}.*.{subject}")
    return list(dict.fromkeys(allow))


def publish_deny(entry: Identity, identities: tuple[Identity, ...] = IDENTITIES) -> list[str]:
    """What a wide grant must not reach: the subjects another identity publishes exclusively (for the
    operator's ``>``), and for a catch-up grant every durable consumer of the streams it reads back from."""
    streams = {stream_for(subject) for subject in entry.catches_up}
    return list(dict.fromkeys([*entry.denies, *(f"{API}.CONSUMER.CREATE.{consumer.stream}.{consumer.durable}.>"
                                                for other in identities for consumer in other.consumers()
                                                if consumer.stream in streams)]))


def subscribe_allow(entry: Identity) -> list[str]:
    if entry.admin:
        return [">"]
    return list(dict.fromkeys([*entry.subscribes, f"{entry.inbox_prefix}.>"]))


def _deny(entry: Identity) -> str:
    deny = publish_deny(entry)
    return f", deny: {_quoted(deny)}" if deny else ""


def _quoted(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


def user_block(entry: Identity, password: str) -> str:
    """One user of the ``authorization`` block; ``password`` is inserted as given (a literal or a ``$VAR``)."""
    lines = [
        f"    {{ user: {json.dumps(entry.user)}, password: {password},",
        "      permissions: {",
        f"        publish: {{ allow: {_quoted(publish_allow(entry))}{_deny(entry)} }},",
        f"        subscribe: {{ allow: {_quoted(subscribe_allow(entry))} }},",
    ]
    if entry.answers:
        lines.append("        allow_responses: true,")
    lines.append("      } }")
    return "\n".join(lines)


def authorization_block(password_of: Callable[[str], str],
                        identities: tuple[Identity, ...] = IDENTITIES) -> str:
    """The ``authorization { users = [...] }`` block; ``password_of(user)`` gives each password's config text."""
    users = "\n".join(user_block(entry, password_of(entry.user)) for entry in identities)
    return f"authorization {{\n  users = [\n{users}\n  ]\n}}\n"


def literal(secret: str) -> str:
    """A generated password as nats-server config text (quoted: it may start with a digit or hold '-')."""
    return json.dumps(secret)


def env_reference(user: str) -> str:
    """The deploy configs' password: a variable the container gets from a secret (``$NATS_GATEWAY_PASSWORD``)."""
    return f"$NATS_{user.upper().replace('-', '_')}_PASSWORD"
