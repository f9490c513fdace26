"""JetStream streams: the audit log, the shadow lane, ingest jobs, the corpus.

Declared idempotently by every process at start-up, so there is no separate
provisioning step in the embedded default; in a cluster the same call is a
no-op update.
"""

from __future__ import annotations

from nats.js import JetStreamContext
from nats.js.api import DiscardPolicy, RetentionPolicy, StorageType, StreamConfig
from nats.js.errors import NotFoundError

from duocthu_contracts import subjects as s
from duocthu_runtime.settings import RuntimeSettings


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


async def ensure_streams(js: JetStreamContext, settings: RuntimeSettings) -> None:
    for config in stream_configs(settings):
        try:
            await js.stream_info(config.name or "")
        except NotFoundError:
            await js.add_stream(config)
        else:
            await js.update_stream(config)
