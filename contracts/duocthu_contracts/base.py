"""The one base of every contract model: immutable, and tolerant of fields it does not know.

Frozen because a message is a record of what happened (a stage derives a new
one, never edits what it received); ``extra="ignore"`` because minor schema
versions only add optional fields and an older consumer must still read them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
