"""Server-sent events for one turn: stage status lines fed by ``turn.progress``, then the final response.

Only the stage name and its status are streamed while the turn runs; claims
are sent once, in the final event, after the verifier accepted them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from duocthu_contracts.http import RagQueryRequest
from duocthu_contracts.messages import TurnProgress, TurnRequested

if TYPE_CHECKING:
    from duocthu_gateway.app import Gateway

STAGE_TEXT = {"understanding": "Đang hiểu câu hỏi…", "retrieval": "Đang truy xuất dược thư…",
              "generation": "Đang soạn câu trả lời từ nguồn…", "verifier": "Đang kiểm chứng với nguồn…"}


def event(name: str, data: object) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def stream_turn(gateway: Gateway, body: RagQueryRequest, correlation_id: str) -> AsyncIterator[str]:
    watched: list[tuple[str, asyncio.Queue[TurnProgress]]] = []

    def on_turn(turn: TurnRequested) -> None:
        watched.append((turn.turn_id, gateway.turns.watch(turn.turn_id)))

    task = asyncio.create_task(gateway.ask(body, correlation_id, on_turn=on_turn))
    yield event("status", {"stage": "gateway", "text": "Đã nhận câu hỏi…"})
    try:
        while not task.done():
            if not watched:
                await asyncio.sleep(0.01)
                continue
            queue = watched[0][1]
            getter = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter in done:
                progress = getter.result()
                stage = progress.payload.stage
                yield event("status", {"stage": stage, "status": progress.payload.status,
                                       "text": STAGE_TEXT.get(stage, stage)})
            else:
                getter.cancel()
        response = task.result()
        yield event("result", response.model_dump(mode="json"))
    finally:
        for turn_id, queue in watched:
            gateway.turns.unwatch(turn_id, queue)
        if not task.done():
            task.cancel()
