"""The gateway's store: conversation turns (history, last frame, retrieval trace) and feedback.

SQLAlchemy 2 async; SQLite (aiosqlite) under ``$VAR_DIR`` by default,
PostgreSQL (asyncpg) via ``DATABASE_URL``.  The last normalized frame of a
conversation is read back from here — not from process memory — so a
follow-up works across restarts and on any gateway replica.  Implements
:class:`duocthu_gateway.ports.TurnStore`: every failure of the database leaves
as :class:`StoreUnavailable` naming its kind, and the caller decides to fail
open (see :class:`duocthu_gateway.application.conversations.Conversations`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic.util import CommandError
from sqlalchemy import JSON, Boolean, Connection, DateTime, Integer, String, Text, event, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from duocthu_contracts.frame import QueryFrame
from duocthu_contracts.http import RagQueryResponse
from duocthu_gateway.domain.conversation import ConversationState, StoredTurn, TurnRecord, conversation_state
from duocthu_gateway.errors import StoreUnavailable
from duocthu_runtime import translating


class Base(DeclarativeBase):
    pass


class TurnRow(Base):
    """One answered turn: the history entry and the retrieval trace (seed 003 §21.4)."""

    __tablename__ = "rag_turns"

    turn_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    conversation_id: Mapped[str | None] = mapped_column(String(128), index=True)
    client_key: Mapped[str | None] = mapped_column(String(64), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    query: Mapped[str] = mapped_column(Text)
    decision: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(String(64))
    turn_type: Mapped[str | None] = mapped_column(String(32))
    resolved_drug_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    frame: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    evidence_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    cited_evidence_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    correlation_id: Mapped[str] = mapped_column(String(128), index=True)
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


#: What the database and its drivers raise (a refused connection, a missing file, a failed migration).
_STORE_ERRORS = (SQLAlchemyError, OSError, CommandError)



def _unavailable(store: Store, exc: BaseException) -> StoreUnavailable:
    return StoreUnavailable(f"the history store failed: {type(exc).__name__}")


#: A port method: a database failure leaves it as :class:`StoreUnavailable` naming the failure's kind.
_store_call = translating(_STORE_ERRORS, _unavailable)


def _storable(text: str) -> str:
    """``text`` without NUL characters, which PostgreSQL text columns refuse (the turn would go unrecorded)."""
    return text.replace("\x00", "\ufffd")


def _aware(at: datetime) -> datetime:
    """SQLite hands back naive datetimes; every stored time is UTC, and every published one carries its zone."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _stored(row: TurnRow) -> StoredTurn:
    return StoredTurn(turn_id=row.turn_id, query=row.query, decision=row.decision, reason=row.reason,
                      turn_type=row.turn_type, resolved_drug_ids=list(row.resolved_drug_ids or []),
                      frame=QueryFrame.model_validate(row.frame) if row.frame else None, at=_aware(row.created_at))


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Write-ahead log, synced at checkpoints: a commit is one append to the log instead of a rollback journal
    created, synced and deleted, and readers (history, the ownership check, another gateway replica on the
    same file) never block the writer.  A commit is in the OS's hands when it returns, so a killed gateway
    loses nothing it has answered (issue 21); only a power cut could lose the last commits.  ``busy_timeout``
    lets two replicas' writes queue instead of failing with "database is locked"."""
    cursor = dbapi_connection.cursor()
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=5000"):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


class Store:
    def __init__(self, url: str) -> None:
        self.url = url
        sqlite = url.startswith("sqlite")
        self.engine: AsyncEngine = create_async_engine(url, pool_pre_ping=not sqlite)  # a file needs no ping
        if sqlite:
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    @_store_call
    async def create(self) -> None:
        """Bring the schema to the latest Alembic revision (idempotent; every replica may run it)."""
        async with self.engine.begin() as conn:
            await conn.run_sync(_upgrade)

    @_store_call
    async def close(self) -> None:
        await self.engine.dispose()

    @_store_call
    async def record_turn(self, record: TurnRecord) -> None:
        row = TurnRow(
            turn_id=record.turn_id, conversation_id=record.conversation_id, client_key=record.client_key,
            created_at=record.at,
            query=_storable(record.query), decision=record.decision, reason=record.reason, turn_type=record.turn_type,
            resolved_drug_ids=record.resolved_drug_ids,
            frame=record.frame.model_dump(mode="json") if record.frame is not None else None,
            evidence_ids=record.evidence_ids, cited_evidence_ids=record.cited_evidence_ids,
            correlation_id=record.correlation_id, otel_trace_id=record.otel_trace_id,
            stage_timings=record.stage_timings, response=record.response,
        )
        async with self._sessions() as session, session.begin():
            await session.merge(row)

    @_store_call
    async def recent(self, conversation_id: str, limit: int) -> list[StoredTurn]:
        """The conversation's last ``limit`` turns, oldest first."""
        async with self._sessions() as session:
            rows = (await session.scalars(
                select(TurnRow).where(TurnRow.conversation_id == conversation_id)
                .order_by(TurnRow.created_at.desc()).limit(limit))).all()
        return [_stored(row) for row in reversed(rows)]

    async def conversation(self, conversation_id: str, history_turns: int) -> ConversationState:
        """History, last frame and clarify streak (the streak looks back at least 8 turns)."""
        return conversation_state(await self.recent(conversation_id, max(history_turns, 8)), history_turns)

    @_store_call
    async def turn(self, turn_id: str) -> TurnRow | None:
        """The stored row of a turn: its history entry and retrieval trace."""
        async with self._sessions() as session:
            return await session.get(TurnRow, turn_id)

    async def has_turn(self, turn_id: str) -> bool:
        return await self.turn(turn_id) is not None

    @_store_call
    async def answered(self, correlation_id: str, client_key: str, query: str,
                       conversation_id: str | None) -> RagQueryResponse | None:
        """The response this client was given for this question under ``correlation_id``, if it was recorded."""
        conversation = (TurnRow.conversation_id == conversation_id if conversation_id is not None
                        else TurnRow.conversation_id.is_(None))
        async with self._sessions() as session:
            row = (await session.scalars(
                select(TurnRow).where(TurnRow.correlation_id == correlation_id, TurnRow.client_key == client_key,
                                      TurnRow.query == _storable(query), conversation)
                .order_by(TurnRow.created_at.desc()).limit(1))).first()
        return RagQueryResponse.model_validate(row.response) if row is not None else None

    @_store_call
    async def conversation_owners(self, conversation_id: str) -> set[str | None]:
        """The client keys the conversation's turns were written with (empty: no such conversation yet)."""
        async with self._sessions() as session:
            rows = await session.scalars(
                select(TurnRow.client_key).where(TurnRow.conversation_id == conversation_id).distinct())
            return set(rows.all())

    @_store_call
    async def turn_owner(self, turn_id: str) -> tuple[bool, str | None]:
        """Whether the turn exists, and the client key it was written with."""
        async with self._sessions() as session:
            row = await session.get(TurnRow, turn_id)
        return (row is not None, row.client_key if row is not None else None)

    @_store_call
    async def add_feedback(self, trace_id: str, helpful: bool, comment: str | None) -> None:
        async with self._sessions() as session, session.begin():
            session.add(FeedbackRow(trace_id=trace_id, helpful=helpful, comment=comment,
                                    created_at=datetime.now(UTC)))

    @_store_call
    async def feedback(self, trace_id: str) -> Sequence[FeedbackRow]:
        async with self._sessions() as session:
            return (await session.scalars(select(FeedbackRow).where(FeedbackRow.trace_id == trace_id))).all()
