"""Conversation turns (history, last frame, retrieval trace) and feedback.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rag_turns",
        sa.Column("turn_id", sa.String(64), primary_key=True),
        sa.Column("conversation_id", sa.String(128), index=True),
        sa.Column("created_at", sa.DateTime(timezone=True), index=True, nullable=False),
        sa.Column("query", sa.Text, nullable=False),
        sa.Column("decision", sa.String(32), nullable=False),
        sa.Column("reason", sa.String(64), nullable=False),
        sa.Column("turn_type", sa.String(32)),
        sa.Column("resolved_drug_ids", sa.JSON, nullable=False),
        sa.Column("frame", sa.JSON),
        sa.Column("evidence_ids", sa.JSON, nullable=False),
        sa.Column("cited_evidence_ids", sa.JSON, nullable=False),
        sa.Column("correlation_id", sa.String(128), nullable=False),
        sa.Column("otel_trace_id", sa.String(32)),
        sa.Column("stage_timings", sa.JSON, nullable=False),
        sa.Column("response", sa.JSON, nullable=False),
    )
    op.create_table(
        "rag_feedback",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("trace_id", sa.String(64), index=True, nullable=False),
        sa.Column("helpful", sa.Boolean, nullable=False),
        sa.Column("comment", sa.Text),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rag_feedback")
    op.drop_table("rag_turns")
