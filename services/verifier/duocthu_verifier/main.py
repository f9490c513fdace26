"""Process entry point of the verifier stage."""

from __future__ import annotations

from duocthu_contracts.messages import AnswerDrafted
from duocthu_runtime.bus.stage import Stage
from duocthu_runtime.llm.factory import make_chat_provider
from duocthu_runtime.service import ServiceSpec, run_service
from duocthu_runtime.settings import RuntimeSettings
from duocthu_verifier.adapters.judge import Judge
from duocthu_verifier.adapters.release_terms import LiveTermStatistics
from duocthu_verifier.handlers import VerifierHandler

NAME = "verifier"


def build_handler(terms: LiveTermStatistics | None = None) -> VerifierHandler:
    provider = make_chat_provider("judge")
    return VerifierHandler(Judge(provider) if provider is not None else None, terms)


def build_spec() -> ServiceSpec:
    terms = LiveTermStatistics()
    handler = build_handler(terms)

    def register(stage: Stage) -> None:
        stage.consumes(AnswerDrafted, handler)

    return ServiceSpec(name=NAME, settings=RuntimeSettings(service_name=NAME), register=register,
                       on_startup=[terms.watch], readiness=[terms.ready])


def main() -> None:
    run_service(build_spec())


if __name__ == "__main__":
    main()
