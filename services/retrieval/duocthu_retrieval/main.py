"""Process entry point of the retrieval stage.

Wiring only: the turn consumer (routes A–D and the evidence policy), the
index side (batch consumer, readiness gate, index status and rebuild
requests) and the monograph-mode requests (drugs, sections, section text).
"""

from __future__ import annotations

from duocthu_contracts.messages import CorpusBatchEmbedded, TurnUnderstood
from duocthu_contracts.rpc import (
    DrugListRequest,
    IndexRebuildRequest,
    IndexStatusRequest,
    SectionListRequest,
    SectionTextRequest,
)
from duocthu_retrieval.handlers import (
    batch_handler,
    drugs_handler,
    rebuild_handler,
    section_text_handler,
    sections_handler,
    status_handler,
)
from duocthu_retrieval.index_service import IndexService
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_retrieval.turns import turn_handler
from duocthu_runtime.bus.stage import Stage
from duocthu_runtime.service import ServiceSpec, run_service

NAME = "retrieval"


def build_spec(settings: RetrievalSettings | None = None, service: IndexService | None = None) -> ServiceSpec:
    config = settings or RetrievalSettings(service_name=NAME)
    index = service or IndexService(config)

    def register(stage: Stage) -> None:
        stage.consumes(TurnUnderstood, turn_handler(lambda: index.retriever))
        stage.consumes(CorpusBatchEmbedded, batch_handler(index))
        broker = stage.bus.broker
        broker.subscriber(IndexStatusRequest.SUBJECT, queue=NAME)(status_handler(index))
        broker.subscriber(IndexRebuildRequest.SUBJECT, queue=NAME)(rebuild_handler(index))
        broker.subscriber(DrugListRequest.SUBJECT, queue=NAME)(drugs_handler(index))
        broker.subscriber(SectionListRequest.SUBJECT, queue=NAME)(sections_handler(index))
        broker.subscriber(SectionTextRequest.SUBJECT, queue=NAME)(section_text_handler(index))

    return ServiceSpec(name=NAME, settings=config, register=register, on_startup=[index.start],
                       on_shutdown=[index.stop], readiness=[index.live_index])


def main() -> None:
    run_service(build_spec())


if __name__ == "__main__":
    main()
