"""Composition root of the verifier stage (``JUDGE_PROVIDER``: none, bedrock or openai).

Besides the judge, the stage is composed with the live release's term
statistics (a projection of the corpus stream) and general-Vietnamese word
frequencies (the ``wordfreq`` package): together the term context of the
specific-term check (``domain/terms.py``); and with its signing key
(``VERDICT_SIGNING_KEY_FILE``), which seals every turn end it writes.
"""

from __future__ import annotations

from duocthu_contracts.messages import AnswerDrafted
from duocthu_providers import ChatProvider, make_chat_provider
from duocthu_runtime import ServiceSpec, Stage, run_service
from duocthu_verifier.adapters.everyday_words import BACKGROUND, general_zipf
from duocthu_verifier.adapters.judge import Judge
from duocthu_verifier.adapters.release_terms import LiveTermStatistics
from duocthu_verifier.adapters.signing_key import KeySigner
from duocthu_verifier.domain.terms import TermContext, TermStatistics
from duocthu_verifier.entrypoints.bus import VerifierHandler
from duocthu_verifier.ports import EntailmentJudge, ReleaseTerms, VerdictSigner
from duocthu_verifier.settings import VerifierSettings

NAME = "verifier"


def judge_over(provider: ChatProvider | None) -> EntailmentJudge | None:
    """The entailment judge over a chat provider; none without one (non-verbatim claims: ``judge_unavailable``)."""
    return Judge(provider) if provider is not None else None


def configured_judge() -> EntailmentJudge | None:
    """The judge ``JUDGE_PROVIDER`` names, if any."""
    return judge_over(make_chat_provider("judge"))


def term_context(statistics: TermStatistics | None) -> TermContext:
    """The term context of ``statistics`` with the shipped everyday-word frequencies (audits, evals, tests)."""
    return TermContext(statistics, general_zipf, BACKGROUND)


def live_terms() -> LiveTermStatistics:
    """The live release's statistics, kept from the corpus stream, with the everyday-word frequencies."""
    return LiveTermStatistics(background=general_zipf, background_id=BACKGROUND)


def build_handler(judge: EntailmentJudge | None = None, terms: ReleaseTerms | None = None,
                  signer: VerdictSigner | None = None) -> VerifierHandler:
    """The stage's handler; without a ``signer``, a fresh key (a pipeline in one process: benchmarks, tests)."""
    return VerifierHandler(judge, terms, signer=signer or KeySigner.ephemeral())


def build_spec(settings: VerifierSettings | None = None) -> ServiceSpec:
    """The service: its key from ``VERDICT_SIGNING_KEY_FILE`` (it does not start without one)."""
    config = settings or VerifierSettings(service_name=NAME)
    terms = live_terms()
    handler = build_handler(configured_judge(), terms, KeySigner.from_file(config.verdict_signing_key_file))

    def register(stage: Stage) -> None:
        stage.consumes(AnswerDrafted, handler)

    return ServiceSpec(name=NAME, settings=config, register=register,
                       on_startup=[terms.watch], readiness=[terms.ready])


def main() -> None:
    run_service(build_spec())


if __name__ == "__main__":
    main()
