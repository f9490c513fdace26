"""Gateway settings (environment variables)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from duocthu_runtime import RuntimeSettings
from duocthu_runtime.seal import VerdictKeySettings

#: The stages a question passes through: one of them without a live replica refuses a turn at once.
TURN_STAGES = ("understanding", "retrieval", "generation", "verifier")
#: What ``/readyz`` requires: the question path, and the ingest worker (an operator must see it gone, but a
#: question never waits for it, so its absence refuses no turn).
STAGES = (*TURN_STAGES, "ingest-worker")


class GatewaySettings(RuntimeSettings, VerdictKeySettings):
    """The gateway's settings; ``VERDICT_PUBLIC_KEYS`` (from :class:`VerdictKeySettings`) is required: without a
    key to check the verifier's seals against, no answer could be shown."""

    service_name: str = "gateway"
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    http_reuse_port: bool = Field(default=False, description=(
        "share HTTP_PORT with the other gateway replicas on this host (SO_REUSEPORT): the kernel spreads new "
        "connections over the live ones, so a replica that dies leaves the port served (set by `duocthu up` "
        "with several gateways; off by default, so a second stack on a taken port fails instead of sharing it)"))
    turn_deadline_s: float = Field(default=40.0, gt=0, description="wall-clock budget of one turn")
    turn_llm_calls: int = Field(default=8, ge=0, description="LLM calls one turn may spend")
    history_turns: int = Field(default=6, ge=0, description="recent turns sent with a request")
    required_stages: tuple[str, ...] = STAGES
    var_dir: Path = Field(default=Path("var"), description="state directory (set by `duocthu up`)")
    source_pdf: Path | None = Field(default=None, description="PDF the crops are cut from (default: "
                                    "$VAR_DIR/sample-formulary.pdf)")
    rate_limit_per_minute: int = Field(default=300, ge=0, description="queries per client per minute, counted "
                                       "across all gateway replicas in NATS KV (0: off)")
    history_write_behind: bool = Field(default=False, description=(
        "write a turn's history and trace record behind its response (saves the store write's time, tens of ms "
        "on a loaded SQLite; a gateway killed right after answering then loses that turn's record); off: the "
        "record is written before the answer is returned"))
    server_timing: bool = Field(default=True, description="answer /v1/rag/query with a Server-Timing header: "
                                "the gateway's phases and the turn's stages and hops, durations only "
                                "(`duocthu bench query --breakdown` reads it)")
    trusted_proxies: tuple[str, ...] = Field(default=(), description=(
        "addresses or CIDR blocks of reverse proxies whose X-Forwarded-For is believed (JSON list); "
        "otherwise the rate limit counts the TCP peer address"))
    body_timeout_s: float = Field(default=5.0, gt=0, description="a request body must arrive within this "
                                  "many seconds (else 408)")
    max_body_bytes: int = Field(default=256 * 1024, gt=0, description="largest accepted request body (else 413)")
    admin_token: str | None = Field(default=None, description="bearer token of the admin endpoints (unset: "
                                    "admin endpoints refuse every request)")
    database_url: str | None = Field(
        default=None, description="history/trace store; unset: SQLite at $VAR_DIR/gateway.db (PostgreSQL: "
        "postgresql+asyncpg://user@host/db)")
