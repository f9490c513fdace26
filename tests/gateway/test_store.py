"""The gateway store on SQLite and on a real PostgreSQL: history, last frame, clarify streak, feedback."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from duocthu_contracts.frame import DrugRef, QueryFrame, TurnType
from duocthu_contracts.sections import SectionKey
from duocthu_gateway.adapters.store import Store, database_url
from duocthu_gateway.domain.conversation import TurnRecord


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return database_url(None, str(tmp_path))
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    db = Store(store_url)
    await db.create()
    await db.create()  # idempotent
    yield db
    await db.close()


def record(turn_id: str, conversation: str, decision: str, frame: QueryFrame | None = None) -> TurnRecord:
    return TurnRecord(turn_id=turn_id, conversation_id=conversation, query=f"q {turn_id}", decision=decision,
                      at=datetime.now(UTC),
                      reason="verified" if decision == "answerable" else "patient_info_required",
                      turn_type=frame.turn_type if frame else None, resolved_drug_ids=["metformin"], frame=frame,
                      evidence_ids=["metformin__chong_chi_dinh__0"], cited_evidence_ids=[], correlation_id="c",
                      otel_trace_id=None, stage_timings=[{"stage": "verifier", "ms": 1.5}], response={"x": 1})


FRAME = QueryFrame(turn_type=TurnType.DRUG_ATTRIBUTE, drugs=[DrugRef(drug_id="metformin", drug_name="METFORMIN")],
                   section_key=SectionKey.CHONG_CHI_DINH)


async def test_history_last_frame_and_clarify_streak(store: Store) -> None:
    await store.record_turn(record("t1", "conv", "answerable", FRAME))
    await store.record_turn(record("t2", "conv", "clarify"))
    await store.record_turn(record("t3", "conv", "clarify"))
    await store.record_turn(record("other", "elsewhere", "answerable"))
    state = await store.conversation("conv", 6)
    assert [h.query for h in state.history] == ["q t1", "q t2", "q t3"]
    assert state.last_frame == FRAME
    assert state.clarify_streak == 2
    await store.record_turn(record("t4", "conv", "answerable", FRAME))
    assert (await store.conversation("conv", 2)).clarify_streak == 0
    assert [h.query for h in (await store.conversation("conv", 2)).history] == ["q t3", "q t4"]
    assert (await store.conversation("nobody", 6)).last_frame is None


async def test_feedback_and_trace_row(store: Store) -> None:
    await store.record_turn(record("t9", "conv9", "answerable", FRAME))
    row = await store.turn("t9")
    assert row is not None and row.evidence_ids == ["metformin__chong_chi_dinh__0"]
    assert row.stage_timings == [{"stage": "verifier", "ms": 1.5}]
    await store.add_feedback("t9", True, "rõ ràng")
    [fb] = await store.feedback("t9")
    assert fb.helpful and fb.comment == "rõ ràng"


async def test_migrations_build_exactly_the_models_schema(store: Store) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import Connection

    from duocthu_gateway.adapters.store import Base

    def diff(connection: Connection) -> list[object]:
        return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))

    async with store.engine.connect() as conn:
        assert await conn.run_sync(diff) == []
        version = await conn.exec_driver_sql("SELECT version_num FROM alembic_version")
        assert [row[0] for row in version] == ["0003"]


_WRITE_THEN_DIE = """
import asyncio, os, signal, sys
from datetime import UTC, datetime
from duocthu_gateway.adapters.store import Store, database_url
from duocthu_gateway.domain.conversation import TurnRecord

async def main() -> None:
    store = Store(database_url(None, sys.argv[1]))
    await store.create()
    for number in range(20):
        await store.record_turn(TurnRecord(
            turn_id=f"t{number}", conversation_id="c", query="q", decision="answerable", at=datetime.now(UTC),
            reason="verified", turn_type=None, resolved_drug_ids=[], frame=None, evidence_ids=[],
            cited_evidence_ids=[], correlation_id="c", otel_trace_id=None, stage_timings=[], response={}))
    os.kill(os.getpid(), signal.SIGKILL)  # no close, no checkpoint: as a killed gateway leaves it

asyncio.run(main())
"""


def test_sqlite_keeps_every_committed_turn_of_a_killed_writer_in_its_write_ahead_log(tmp_path: Path) -> None:
    """The SQLite store runs in WAL mode with ``synchronous=NORMAL`` (one append per commit, readers never
    block the writer); a commit that returned is still there after the writer is SIGKILLed."""
    killed = subprocess.run([sys.executable, "-c", _WRITE_THEN_DIE, str(tmp_path)], check=False)
    assert killed.returncode == -9
    assert (tmp_path / "gateway.db-wal").exists()  # the commits are in the log, not yet checkpointed
    with sqlite3.connect(tmp_path / "gateway.db") as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("SELECT COUNT(*) FROM rag_turns").fetchone() == (20,)
