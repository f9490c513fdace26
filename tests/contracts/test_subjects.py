"""The wire: every message travels on the subject its consumers listen on, addressed ones to one replica.

Subjects are derived from the message classes; this table is the wire as
deployed consumers know it, so a derivation that changes a subject fails
here rather than in production.
"""

from __future__ import annotations

import pytest

from duocthu_contracts.envelope import Lane, Message
from duocthu_contracts.messages import ALL_MESSAGES, TurnCompleted, TurnProgress, TurnRequested, TurnVerified
from duocthu_runtime.bus.subjects import addressed_subject, subject_for, subject_for_type
from duocthu_runtime.bus.topology import is_addressed
from tests.contracts.examples import examples

WIRE = {
    "rag.turn.requested/1": "rag.v1.turn.requested",
    "rag.turn.understood/1": "rag.v1.turn.understood",
    "rag.evidence.retrieved/1": "rag.v1.evidence.retrieved",
    "rag.answer.drafted/1": "rag.v1.answer.drafted",
    "rag.answer.rejected/1": "rag.v1.answer.rejected",
    "rag.turn.completed/1": "rag.v1.turn.completed",
    "rag.turn.verified/1": "rag.v1.turn.verified",
    "rag.turn.progress/1": "rag.v1.turn.progress",
    "ingest.job.requested/1": "ingest.v1.job.requested",
    "ingest.job.progress/1": "ingest.v1.job.progress",
    "ingest.job.result/1": "corpus.v1.job.result",
    "corpus.batch.embedded/1": "corpus.v1.batch.embedded",
    "corpus.release.completed/1": "corpus.v1.release.completed",
}


@pytest.mark.parametrize("cls", ALL_MESSAGES, ids=lambda c: c.SCHEMA)
def test_every_message_keeps_its_subject(cls: type[Message]) -> None:
    assert WIRE[cls.SCHEMA] == cls.SUBJECT
    assert subject_for_type(cls) == WIRE[cls.SCHEMA]
    assert subject_for_type(cls, Lane.SHADOW) == f"shadow.{WIRE[cls.SCHEMA]}"


def test_completions_and_progress_are_addressed_to_the_origin_replica() -> None:
    assert {cls for cls in ALL_MESSAGES if is_addressed(cls)} == {TurnCompleted, TurnVerified, TurnProgress}
    verified = examples()[TurnVerified]
    assert subject_for(verified.model_copy(update={"lane": Lane.LIVE, "origin": "gw 1.a"})) \
        == "rag.v1.turn.verified.gw_1_a"
    completed = examples()[TurnCompleted]
    assert isinstance(completed, TurnCompleted)
    live = completed.model_copy(update={"lane": Lane.LIVE, "origin": "gw 1.a"})
    assert subject_for(live) == "rag.v1.turn.completed.gw_1_a" == addressed_subject(TurnCompleted, "gw 1.a")
    shadow = examples()[TurnRequested].model_copy(update={"lane": Lane.SHADOW})
    assert subject_for(shadow) == "shadow.rag.v1.turn.requested"
