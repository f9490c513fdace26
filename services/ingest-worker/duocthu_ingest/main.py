"""Process entry point of the ingest worker."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from duocthu_contracts.envelope import Message
from duocthu_contracts.messages import IngestJobRequested, IngestJobResult, IngestJobResultPayload
from duocthu_runtime.bus.envelope import new_message
from duocthu_runtime.bus.stage import Stage, StageContext
from duocthu_runtime.service import ServiceSpec, run_service
from duocthu_runtime.settings import RuntimeSettings

NAME = "ingest-worker"


async def not_implemented(message: IngestJobRequested, ctx: StageContext[Any]) -> Sequence[Message]:
    job = message.payload
    result = IngestJobResultPayload(
        job_id=job.job_id, release_id=job.release_id, status="failed", error="stage_not_implemented"
    )
    return [new_message(IngestJobResult, result, correlation_id=message.correlation_id,
                        causation_id=message.message_id)]


def register(stage: Stage) -> None:
    stage.consumes(IngestJobRequested, not_implemented)


def main() -> None:
    run_service(ServiceSpec(name=NAME, settings=RuntimeSettings(service_name=NAME), register=register))


if __name__ == "__main__":
    main()
