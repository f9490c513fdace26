"""Settings every service shares, read from the environment.

Service-specific settings subclass :class:`RuntimeSettings`; everything is an
environment variable so that the embedded default and the Kubernetes
deployment differ only in values (DESIGN.md, "Same code paths in both").
"""

from __future__ import annotations

import os
import socket
import uuid

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


def inbox_prefix_for(user: str) -> str:
    """Where replies to ``user`` arrive: its own prefix, so another identity may not subscribe to them."""
    return f"_INBOX_{user}"


def _default_instance_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


class RuntimeSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", case_sensitive=False)

    nats_url: str = Field(default="nats://127.0.0.1:4222", description="NATS server(s), comma separated")
    nats_user: str | None = None
    nats_password: str | None = None
    nats_creds: str | None = Field(default=None, description="path to a NATS .creds file")
    nats_inbox_prefix: str | None = Field(default=None, description=(
        "reply subject prefix; default _INBOX_<NATS_USER> with a user (the permission table allows each "
        "identity its own inbox only), else _INBOX"))

    service_name: str = "duocthu"
    instance_id: str = Field(default_factory=_default_instance_id)
    health_host: str = "127.0.0.1"
    health_port: int = 0

    log_level: str = "INFO"
    log_format: str = Field(default="json", description="json or console")

    bus_ack_wait_s: float = Field(default=5.0, gt=0, description=(
        "redelivery delay of an unacked message; short, because a running handler sends progress acks "
        "every third of it, so only a dead replica's message waits this long"))
    bus_max_deliver: int = Field(default=5, ge=1)
    bus_fetch_batch: int = Field(default=16, ge=1)
    bus_fetch_timeout_s: float = Field(default=2.0, gt=0)
    bus_duplicate_window_s: float = Field(default=600.0, gt=0)
    bus_stream_replicas: int = Field(default=1, ge=1, le=5, description=(
        "replicas of every stream and KV bucket; 3 in a 3-node JetStream cluster"))
    bus_publish_retry_s: float = Field(default=15.0, gt=0, description=(
        "how long a stored publish is retried (same message id) while its stream has no leader, e.g. "
        "after a cluster node died; longer than a stream leader election"))

    audit_max_age_s: float = Field(default=30 * 24 * 3600.0, gt=0)
    audit_max_bytes: int = Field(default=2 * 1024**3, gt=0)
    shadow_max_age_s: float = Field(default=7 * 24 * 3600.0, gt=0)
    corpus_max_bytes: int = Field(default=8 * 1024**3, gt=0)

    @property
    def inbox_prefix(self) -> str:
        if self.nats_inbox_prefix:
            return self.nats_inbox_prefix
        return inbox_prefix_for(self.nats_user) if self.nats_user else "_INBOX"
