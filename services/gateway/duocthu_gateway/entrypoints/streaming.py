"""Server-sent events for one turn: stage status lines fed by ``turn.progress``, then the final response.

Only the stage name and its status are streamed while the turn runs; claims
are sent once, in the final event, after the verifier accepted them.  The
stream waits on the turn's own events (its progress queue, its completion)
and never polls.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from duocthu_contracts.http import RagQueryRequest
from duocthu_contracts.messages import TurnProgress, TurnRequested
from duocthu_gateway.application.asking import Asking
from duocthu_gateway.ports import TurnExchange

STAGE_TEXT = {"understanding": "Đang hiểu câu hỏi…", "retrieval": "Đang truy xuất dược thư…",
              "generation": "Đang soạn câu trả lời từ nguồn…", "verifier": "Đang kiểm chứng với nguồn…"}


def event(name: str, data: object) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def stream_turn(asking: Asking, turns: TurnExchange, body: RagQueryRequest,
                      correlation_id: str, client_key: str | None = None, *,
                      asked_again: bool = False) -> AsyncIterator[str]:
    progress: asyncio.Future[tuple[str, asyncio.Queue[TurnProgress]]] = asyncio.get_running_loop().create_future()

    def on_turn(turn: TurnRequested) -> None:  # before the turn is published: no status line can be missed
        progress.set_result((turn.turn_id, turns.watch(turn.turn_id)))

    task = asyncio.create_task(asking.ask(body, correlation_id, on_turn=on_turn, client_key=client_key,
                                          asked_again=asked_again))
    yield event("status", {"stage": "gateway", "text": "Đã nhận câu hỏi…"})
    try:
        first: set[asyncio.Future[Any]] = {progress, task}
        await asyncio.wait(first, return_when=asyncio.FIRST_COMPLETED)
        if progress.done():
            _, queue = progress.result()
            while not task.done():
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    continue
                stage = getter.result().payload.stage
                yield event("status", {"stage": stage, "status": getter.result().payload.status,
                                       "text": STAGE_TEXT.get(stage, stage)})
        response = await task
        yield event("result", response.model_dump(mode="json"))
    finally:
        if progress.done() and not progress.cancelled():
            turns.unwatch(*progress.result())
        if not task.done():
            task.cancel()
