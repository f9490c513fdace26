"""Composition root of the verifier stage (``JUDGE_PROVIDER``: none, bedrock or openai)."""

from __future__ import annotations

from duocthu_contracts.messages import AnswerDrafted
from duocthu_providers import ChatProvider, make_chat_provider
from duocthu_runtime.bus.stage import Stage
from duocthu_runtime.service import ServiceSpec, run_service
from duocthu_runtime.settings import RuntimeSettings
from duocthu_verifier.adapters.judge import Judge
from duocthu_verifier.entrypoints.bus import VerifierHandler
from duocthu_verifier.ports import EntailmentJudge

NAME = "verifier"


def judge_over(provider: ChatProvider | None) -> EntailmentJudge | None:
    """The entailment judge over a chat provider; none without one (non-verbatim claims: ``judge_unavailable``)."""
    return Judge(provider) if provider is not None else None


def configured_judge() -> EntailmentJudge | None:
    """The judge ``JUDGE_PROVIDER`` names, if any."""
    return judge_over(make_chat_provider("judge"))


def build_handler(judge: EntailmentJudge | None = None) -> VerifierHandler:
    return VerifierHandler(judge)


def build_spec() -> ServiceSpec:
    handler = build_handler(configured_judge())

    def register(stage: Stage) -> None:
        stage.consumes(AnswerDrafted, handler)

    return ServiceSpec(name=NAME, settings=RuntimeSettings(service_name=NAME), register=register)


def main() -> None:
    run_service(build_spec())


if __name__ == "__main__":
    main()
