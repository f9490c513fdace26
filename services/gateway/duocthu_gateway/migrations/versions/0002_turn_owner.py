"""The client that wrote a turn (SHA-256 of its token): history and feedback are its owner's only.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rag_turns", sa.Column("client_key", sa.String(64)))
    op.create_index("ix_rag_turns_client_key", "rag_turns", ["client_key"])


def downgrade() -> None:
    op.drop_index("ix_rag_turns_client_key", table_name="rag_turns")
    op.drop_column("rag_turns", "client_key")
