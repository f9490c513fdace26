"""Process entry point of the generation stage (``ANSWER_PROVIDER``: extractive, bedrock or openai)."""

from __future__ import annotations

from duocthu_contracts.messages import AnswerRejected, EvidenceRetrieved
from duocthu_generation.adapters.model_writer import ModelWriter
from duocthu_generation.handlers import GenerationHandler
from duocthu_providers.llm.factory import make_chat_provider
from duocthu_providers.llm.settings import chat_settings
from duocthu_runtime.bus.stage import Stage
from duocthu_runtime.service import ServiceSpec, run_service
from duocthu_runtime.settings import RuntimeSettings

NAME = "generation"


def build_handler() -> GenerationHandler:
    settings = chat_settings("answer")
    provider = make_chat_provider("answer", settings)
    return GenerationHandler(ModelWriter(provider, max_tokens=settings.max_tokens) if provider else None)


def main() -> None:
    handler = build_handler()

    def register(stage: Stage) -> None:
        stage.consumes(EvidenceRetrieved, handler.on_evidence)
        stage.consumes(AnswerRejected, handler.on_rejected)

    run_service(ServiceSpec(name=NAME, settings=RuntimeSettings(service_name=NAME), register=register))


if __name__ == "__main__":
    main()
