"""Process entry point of the ingest worker."""

from __future__ import annotations

from duocthu_contracts.messages import IngestJobRequested
from duocthu_ingest.handlers import make_handler
from duocthu_ingest.settings import IngestSettings
from duocthu_ingest.worker import IngestWorker
from duocthu_runtime.bus.stage import Stage
from duocthu_runtime.service import ServiceSpec, run_service

NAME = "ingest-worker"


def build_spec(settings: IngestSettings | None = None, worker: IngestWorker | None = None) -> ServiceSpec:
    settings = settings or IngestSettings(service_name=NAME)
    worker = worker or IngestWorker(settings)

    def register(stage: Stage) -> None:
        stage.consumes(IngestJobRequested, make_handler(worker), ack_wait_s=settings.ingest_ack_wait_s,
                       fetch_batch=1)

    return ServiceSpec(name=NAME, settings=settings, register=register)


def main() -> None:
    run_service(build_spec())


if __name__ == "__main__":
    main()
