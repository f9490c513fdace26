"""Process entry point of the verifier stage."""

from __future__ import annotations

from duocthu_contracts.messages import AnswerDrafted
from duocthu_providers.llm.factory import make_chat_provider
from duocthu_runtime.bus.stage import Stage
from duocthu_runtime.service import ServiceSpec, run_service
from duocthu_runtime.settings import RuntimeSettings
from duocthu_verifier.adapters.judge import Judge
from duocthu_verifier.handlers import VerifierHandler

NAME = "verifier"


def build_handler() -> VerifierHandler:
    provider = make_chat_provider("judge")
    return VerifierHandler(Judge(provider) if provider is not None else None)


def main() -> None:
    handler = build_handler()

    def register(stage: Stage) -> None:
        stage.consumes(AnswerDrafted, handler)

    run_service(ServiceSpec(name=NAME, settings=RuntimeSettings(service_name=NAME), register=register))


if __name__ == "__main__":
    main()
