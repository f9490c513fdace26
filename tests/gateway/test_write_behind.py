"""Turn records: written before the answer by default; with HISTORY_WRITE_BEHIND behind the response, with
read-your-writes on the replica, and drained.

A failed write is counted (and the answer still returned): tests/gateway/test_replicas_fail_open.py.
"""

from __future__ import annotations

from pathlib import Path

from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.http import FeedbackRequest, RagQueryResponse
from duocthu_gateway.adapters.store import Store, database_url
from duocthu_gateway.application.conversations import Conversations


def _response(trace_id: str, conversation: str | None) -> RagQueryResponse:
    return RagQueryResponse(trace_id=trace_id, correlation_id=f"corr-{trace_id}", conversation_id=conversation,
                            decision=Decision.ABSTAIN, reason=Reason.REQUEST_BUDGET_EXHAUSTED)


async def test_a_follow_up_history_and_feedback_see_the_turns_written_behind(tmp_path: Path) -> None:
    store = Store(database_url(None, str(tmp_path)))
    await store.create()
    chats = Conversations(store, history_turns=6, write_behind=True)
    for i in range(3):
        await chats.record(_response(f"t{i}", "conv-wb"), None, f"câu {i}", client_key="k")
    # no wait in between: the next turn's state, the history and feedback wait for what they depend on
    state = await chats.state("conv-wb")
    assert [h.query for h in state.history] == ["câu 0", "câu 1", "câu 2"]
    assert [t.query for t in (await chats.history("conv-wb", 10)).turns] == ["câu 0", "câu 1", "câu 2"]
    await chats.record(_response("lone", None), None, "không hội thoại", client_key="k")
    accepted = await chats.feedback(FeedbackRequest(trace_id="lone", helpful=True), "k")
    assert accepted is not None and accepted is not False
    await chats.record(_response("last", None), None, "cuối", client_key="k")
    await chats.written()  # what the gateway's shutdown does before closing the store
    assert await store.has_turn("last")
    await store.close()



async def test_by_default_an_answered_turn_is_written_before_the_answer(tmp_path: Path) -> None:
    store = Store(database_url(None, str(tmp_path)))
    await store.create()
    chats = Conversations(store, history_turns=6)
    await chats.record(_response("durable", "conv-d"), None, "câu", client_key="k")
    assert await store.has_turn("durable")  # no drain needed: a gateway killed now has lost nothing
    await store.close()
