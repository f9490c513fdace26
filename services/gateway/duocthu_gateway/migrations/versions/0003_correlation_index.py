"""Find a turn by its correlation id: a question asked again after a lost answer is answered from its record.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_rag_turns_correlation_id", "rag_turns", ["correlation_id"])


def downgrade() -> None:
    op.drop_index("ix_rag_turns_correlation_id", table_name="rag_turns")
