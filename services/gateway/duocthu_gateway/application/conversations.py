"""Conversation state around a turn, fail-open: the store never decides whether a user gets an answer.

Before a turn: the recent history, the last normalized frame and the clarify
streak go out with ``turn.requested`` (a read failure sends none and counts).
After it: the turn is written as history and retrieval trace, fail-open (a
write failure is logged and counted, the answer still returned) — before the
answer by default, so an answered question always has its record even when the
gateway is killed right after; with ``HISTORY_WRITE_BEHIND`` *behind* the
response (a store write costs tens of milliseconds on a loaded SQLite, more
than the whole bus).  A read on this replica waits for the writes it depends on — a conversation's
state, history and ownership for that conversation's pending writes, feedback
for its turn's — so a follow-up sent here always sees the previous turn; the
shutdown drains every pending write before the store closes.  The history and feedback
endpoints, by contrast, report a store failure (503 with its reason), and
serve only the client that owns the conversation (domain/ownership.py).
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from duocthu_contracts.http import FeedbackAccepted, FeedbackRequest, HistoryEntry, HistoryResponse, RagQueryResponse
from duocthu_contracts.messages import TurnCompleted
from duocthu_gateway import metrics
from duocthu_gateway.domain.conversation import NO_CONVERSATION, ConversationState, TurnRecord, turn_record
from duocthu_gateway.domain.ownership import owns
from duocthu_gateway.errors import StoreUnavailable
from duocthu_gateway.ports import TurnStore
from duocthu_runtime import get_logger, utcnow

log = get_logger(__name__)


class Conversations:
    def __init__(self, store: TurnStore, history_turns: int, *, write_behind: bool = False) -> None:
        self.store = store
        self.history_turns = history_turns
        self.write_behind = write_behind
        #: pending writes by key: ``*`` (all), ``c:<conversation id>``, ``t:<turn id>``
        self._writes: dict[str, set[asyncio.Task[None]]] = {}

    async def state(self, conversation_id: str | None) -> ConversationState:
        if not conversation_id:
            return NO_CONVERSATION
        await self.written(f"c:{conversation_id}")
        try:
            return await self.store.conversation(conversation_id, self.history_turns)
        except StoreUnavailable:
            metrics.HISTORY_READ_FAILURES.inc()
            log.exception("history_read_failed", conversation_id=conversation_id)
            return NO_CONVERSATION

    async def record(self, response: RagQueryResponse, completed: TurnCompleted | None, query: str,
                     client_key: str | None = None) -> None:
        """Write the turn: returns once it is written, or at once when writing behind (the module docstring)."""
        at = utcnow()
        keys = ["*", f"t:{response.trace_id}"]
        if response.conversation_id:
            keys.append(f"c:{response.conversation_id}")
        task = asyncio.get_running_loop().create_task(self._write(response, completed, query, at, client_key))
        for key in keys:
            self._writes.setdefault(key, set()).add(task)
        task.add_done_callback(lambda done: self._forget(done, keys))
        if not self.write_behind:
            await asyncio.shield(task)  # a client gone meanwhile does not cancel the write

    async def _write(self, response: RagQueryResponse, completed: TurnCompleted | None, query: str, at: datetime,
                     client_key: str | None) -> None:
        record: TurnRecord = turn_record(response, completed, query, at, client_key)
        try:
            await self.store.record_turn(record)
        except StoreUnavailable:
            metrics.TRACE_WRITE_FAILURES.inc()
            log.exception("trace_write_failed", turn_id=response.trace_id)
        except Exception:  # the top of a background task: nothing above can report it; counted like the rest
            metrics.TRACE_WRITE_FAILURES.inc()
            log.exception("trace_write_crashed", turn_id=response.trace_id)

    def _forget(self, task: asyncio.Task[None], keys: list[str]) -> None:
        for key in keys:
            pending = self._writes.get(key)
            if pending is not None:
                pending.discard(task)
                if not pending:
                    del self._writes[key]

    async def written(self, key: str = "*") -> None:
        """Wait until the pending writes under ``key`` (default: all of them) are done, whatever their outcome."""
        pending = self._writes.get(key)
        if pending:
            await asyncio.wait(set(pending))

    async def answered(self, correlation_id: str, client_key: str, query: str,
                       conversation_id: str | None) -> RagQueryResponse | None:
        """The recorded response to this client's question under ``correlation_id`` (a retry after a lost answer).

        Keyed by the client too, so a guessed correlation id reveals nothing, and by the question and
        conversation, so an id reused for another question starts a new turn. Fails open: with the store down
        the question is simply asked again. Only this replica's pending writes could be missed (a write behind
        the response), and then the retry is a new turn, as before.
        """
        try:
            return await self.store.answered(correlation_id, client_key, query, conversation_id)
        except StoreUnavailable:
            metrics.HISTORY_READ_FAILURES.inc()
            log.warning("retry_lookup_failed_store_down", correlation_id=correlation_id)
            return None

    async def owned_by(self, conversation_id: str, client_key: str) -> bool:
        """Whether ``client_key`` may read or continue the conversation; raises :class:`StoreUnavailable`."""
        await self.written(f"c:{conversation_id}")
        return owns(await self.store.conversation_owners(conversation_id), client_key)

    async def may_continue(self, conversation_id: str, client_key: str) -> bool:
        """Whether ``client_key`` may ask in the conversation. Fails open like :meth:`state`: with the store
        down no history can be read into the turn either, and the user still gets an answer."""
        try:
            return await self.owned_by(conversation_id, client_key)
        except StoreUnavailable:
            log.warning("ownership_unchecked_store_down", conversation_id=conversation_id)
            return True

    async def history(self, conversation_id: str, limit: int) -> HistoryResponse:
        """A conversation's turns, oldest first; raises :class:`StoreUnavailable`."""
        await self.written(f"c:{conversation_id}")
        try:
            turns = await self.store.recent(conversation_id, limit)
        except StoreUnavailable:
            metrics.HISTORY_READ_FAILURES.inc()
            raise
        return HistoryResponse(conversation_id=conversation_id, turns=[
            HistoryEntry(trace_id=t.turn_id, query=t.query, decision=t.decision, reason=t.reason,
                         resolved_drug_ids=t.resolved_drug_ids, at=t.at) for t in turns])

    async def feedback(self, body: FeedbackRequest, client_key: str) -> FeedbackAccepted | bool | None:
        """Feedback on a turn this store knows (``None``: no such turn; ``False``: another client's turn);
        raises :class:`StoreUnavailable`."""
        await self.written(f"t:{body.trace_id}")
        exists, owner = await self.store.turn_owner(body.trace_id)
        if not exists:
            return None
        if owner != client_key:
            return False
        await self.store.add_feedback(body.trace_id, body.helpful, body.comment)
        return FeedbackAccepted(trace_id=body.trace_id)
