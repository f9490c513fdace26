"""Composition root of the generation stage (``ANSWER_PROVIDER``: extractive, bedrock or openai)."""

from __future__ import annotations

from duocthu_contracts.messages import AnswerRejected, EvidenceRetrieved
from duocthu_generation.adapters.model_writer import ModelWriter
from duocthu_generation.application.drafting import Drafting, ExtractiveWriter
from duocthu_generation.entrypoints.bus import GenerationHandler
from duocthu_generation.ports import Writer
from duocthu_providers import chat_settings, make_chat_provider
from duocthu_runtime import RuntimeSettings, ServiceSpec, Stage, run_service

NAME = "generation"


def build_handler(writer: Writer | None = None) -> GenerationHandler:
    """The stage's handlers over ``writer``; none: the extractive writer (no model)."""
    return GenerationHandler(Drafting(writer or ExtractiveWriter()))


def configured_writer() -> Writer | None:
    """The model writer ``ANSWER_PROVIDER`` names, or ``None`` for the extractive default."""
    settings = chat_settings("answer")
    provider = make_chat_provider("answer", settings)
    return ModelWriter(provider, max_tokens=settings.max_tokens) if provider is not None else None


def build_spec() -> ServiceSpec:
    handler = build_handler(configured_writer())

    def register(stage: Stage) -> None:
        stage.consumes(EvidenceRetrieved, handler.on_evidence)
        stage.consumes(AnswerRejected, handler.on_rejected)

    return ServiceSpec(name=NAME, settings=RuntimeSettings(service_name=NAME), register=register)


def main() -> None:
    run_service(build_spec())


if __name__ == "__main__":
    main()
