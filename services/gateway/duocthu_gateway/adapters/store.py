"""The gateway's store: conversation turns (history, last frame, retrieval trace) and feedback.

SQLAlchemy 2 async; SQLite (aiosqlite) under ``$VAR_DIR`` by default,
PostgreSQL (asyncpg) via ``DATABASE_URL``.  The last normalized frame of a
conversation is read back from here — not from process memory — so a
follow-up works across restarts and on any gateway replica.  Every write is
fail-open for the caller (see :class:`duocthu_gateway.conversations.Conversations`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, Boolean, Connection, DateTime, Integer, String, Text, select
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from duocthu_contracts.decisions import Decision
from duocthu_contracts.frame import QueryFrame
from duocthu_contracts.messages import HistoryTurn


class Base(DeclarativeBase):
    pass


class TurnRow(Base):
    """One answered turn: the history entry and the retrieval trace (seed 003 §21.4)."""

    __tablename__ = "rag_turns"

    turn_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    conversation_id: Mapped[str | None] = mapped_column(String(128), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    query: Mapped[str] = mapped_column(Text)
    decision: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(String(64))
    turn_type: Mapped[str | None] = mapped_column(String(32))
    resolved_drug_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    frame: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    evidence_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    cited_evidence_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    correlation_id: Mapped[str] = mapped_column(String(128))
    otel_trace_id: Mapped[str | None] = mapped_column(String(32))
    stage_timings: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    response: Mapped[dict[str, Any]] = mapped_column(JSON)


class FeedbackRow(Base):
    __tablename__ = "rag_feedback"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    trace_id: Mapped[str] = mapped_column(String(64), index=True)
    helpful: Mapped[bool] = mapped_column(Boolean)
    comment: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True)
class ConversationState:
    history: list[HistoryTurn]
    last_frame: QueryFrame | None
    clarify_streak: int


@dataclass(frozen=True)
class TurnRecord:
    turn_id: str
    conversation_id: str | None
    query: str
    decision: str
    reason: str
    turn_type: str | None
    resolved_drug_ids: list[str]
    frame: QueryFrame | None
    evidence_ids: list[str]
    cited_evidence_ids: list[str]
    correlation_id: str
    otel_trace_id: str | None
    stage_timings: list[dict[str, Any]]
    response: dict[str, Any]


MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def _upgrade(connection: Connection) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def database_url(explicit: str | None, var_dir: str) -> str:
    return explicit or f"sqlite+aiosqlite:///{var_dir}/gateway.db"


class Store:
    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: AsyncEngine = create_async_engine(url, pool_pre_ping=True)
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    async def create(self) -> None:
        """Bring the schema to the latest Alembic revision (idempotent; every replica may run it)."""
        async with self.engine.begin() as conn:
            await conn.run_sync(_upgrade)

    async def close(self) -> None:
        await self.engine.dispose()

    async def record_turn(self, record: TurnRecord) -> None:
        row = TurnRow(
            turn_id=record.turn_id, conversation_id=record.conversation_id, created_at=datetime.now(UTC),
            query=record.query, decision=record.decision, reason=record.reason, turn_type=record.turn_type,
            resolved_drug_ids=record.resolved_drug_ids,
            frame=record.frame.model_dump(mode="json") if record.frame is not None else None,
            evidence_ids=record.evidence_ids, cited_evidence_ids=record.cited_evidence_ids,
            correlation_id=record.correlation_id, otel_trace_id=record.otel_trace_id,
            stage_timings=record.stage_timings, response=record.response,
        )
        async with self._sessions() as session, session.begin():
            await session.merge(row)

    async def recent(self, conversation_id: str, limit: int) -> list[TurnRow]:
        """The conversation's last ``limit`` turns, oldest first."""
        async with self._sessions() as session:
            rows = (await session.scalars(
                select(TurnRow).where(TurnRow.conversation_id == conversation_id)
                .order_by(TurnRow.created_at.desc()).limit(limit))).all()
        return list(reversed(rows))

    async def conversation(self, conversation_id: str, limit: int) -> ConversationState:
        rows = await self.recent(conversation_id, max(limit, 8))
        history = [HistoryTurn(query=r.query, decision=Decision(r.decision), reason=r.reason, turn_type=r.turn_type,
                               resolved_drug_ids=list(r.resolved_drug_ids or []), at=r.created_at)
                   for r in rows[-limit:]] if limit else []
        last = next((r.frame for r in reversed(rows) if r.frame), None)
        streak = 0
        for row in reversed(rows):
            if row.decision != Decision.CLARIFY:
                break
            streak += 1
        return ConversationState(history, QueryFrame.model_validate(last) if last else None, streak)

    async def turn(self, turn_id: str) -> TurnRow | None:
        async with self._sessions() as session:
            return await session.get(TurnRow, turn_id)

    async def add_feedback(self, trace_id: str, helpful: bool, comment: str | None) -> None:
        async with self._sessions() as session, session.begin():
            session.add(FeedbackRow(trace_id=trace_id, helpful=helpful, comment=comment,
                                    created_at=datetime.now(UTC)))

    async def feedback(self, trace_id: str) -> Sequence[FeedbackRow]:
        async with self._sessions() as session:
            return (await session.scalars(select(FeedbackRow).where(FeedbackRow.trace_id == trace_id))).all()
