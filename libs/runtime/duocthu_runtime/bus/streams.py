"""JetStream streams: the audit log, the shadow lane, ingest jobs, the corpus.

Declared idempotently by every process at start-up, so there is no separate
provisioning step in the embedded default; in a cluster the same call is a
no-op update.
"""

from __future__ import annotations

from nats.errors import Error as NatsError
from nats.js import JetStreamContext
from nats.js.api import DiscardPolicy, KeyValueConfig, RetentionPolicy, StorageType, StreamConfig
from nats.js.errors import NotFoundError

from duocthu_contracts import subjects as s
from duocthu_runtime.observability.logging import get_logger
from duocthu_runtime.settings import RuntimeSettings

log = get_logger(__name__)


def _stream(settings: RuntimeSettings, name: str, subjects: tuple[str, ...], retention: RetentionPolicy,
            description: str, *, max_age: float | None = None, max_bytes: int | None = None) -> StreamConfig:
    return StreamConfig(
        name=name,
        subjects=list(subjects),
        retention=retention,
        discard=DiscardPolicy.OLD,
        max_age=max_age,
        max_bytes=max_bytes,
        storage=StorageType.FILE,
        num_replicas=settings.bus_stream_replicas,
        duplicate_window=settings.bus_duplicate_window_s,
        description=description,
    )


def stream_configs(settings: RuntimeSettings) -> list[StreamConfig]:
    return [
        _stream(settings, s.AUDIT_STREAM, s.AUDIT_SUBJECTS, RetentionPolicy.LIMITS,
                "duocthu audit log: every message of every live turn",
                max_age=settings.audit_max_age_s, max_bytes=settings.audit_max_bytes),
        _stream(settings, s.AUDIT_REDACTED_STREAM, s.AUDIT_REDACTED_SUBJECTS, RetentionPolicy.LIMITS,
                "audit messages whose patient-context fields were redacted at rest",
                max_age=settings.audit_max_age_s, max_bytes=settings.audit_max_bytes),
        _stream(settings, s.SHADOW_STREAM, s.SHADOW_SUBJECTS, RetentionPolicy.LIMITS,
                "duocthu shadow lane: audit replays, never reaches users",
                max_age=settings.shadow_max_age_s, max_bytes=settings.audit_max_bytes),
        _stream(settings, s.INGEST_STREAM, s.INGEST_SUBJECTS, RetentionPolicy.WORK_QUEUE,
                "ingest jobs, each handled by exactly one worker"),
        _stream(settings, s.CORPUS_STREAM, s.CORPUS_SUBJECTS, RetentionPolicy.LIMITS,
                "corpus batches and releases; the index is a projection of this stream",
                max_bytes=settings.corpus_max_bytes),
    ]


def bucket_config(settings: RuntimeSettings, bucket: str, *, ttl_s: float, history: int = 1) -> KeyValueConfig:
    """A KV bucket (presence, the rate limit) in memory, replicated like the streams.

    Every bucket takes ``BUS_STREAM_REPLICAS`` as the streams do: in a
    3-node cluster a bucket of one replica would vanish with its node, and
    with it the readiness state or the rate limit.
    """
    return KeyValueConfig(bucket=bucket, ttl=ttl_s, history=history, storage=StorageType.MEMORY,
                          replicas=settings.bus_stream_replicas)


def _declared(config: StreamConfig) -> tuple[object, ...]:
    """The fields :func:`stream_configs` sets, normalised as the server reports them (no limit: 0 / -1)."""
    return (
        tuple(config.subjects or ()), config.retention, config.discard, config.storage,
        float(config.max_age or 0), config.max_bytes if config.max_bytes not in (None, 0) else -1,
        config.num_replicas or 1, float(config.duplicate_window or 0), config.description or "",
    )


async def ensure_streams(js: JetStreamContext, settings: RuntimeSettings) -> None:
    """Create missing streams; update one only when its declared fields changed.

    A service identity may create a stream but not update one (least
    privilege: a stage could otherwise shrink the audit stream's limits and
    erase it), so an unchanged stream is left alone, and a changed one is
    updated by whoever may (the operator identity: ``duocthu up``'s start-up,
    any CLI command); a service that may not logs it and carries on.
    """
    for config in stream_configs(settings):
        try:
            info = await js.stream_info(config.name or "")
        except NotFoundError:
            await js.add_stream(config)
            continue
        if _declared(info.config) == _declared(config):
            continue
        try:
            await js.update_stream(config)
        except (NatsError, TimeoutError) as exc:
            log.warning("stream_update_not_applied", stream=config.name, error=f"{type(exc).__name__}: {exc}")
