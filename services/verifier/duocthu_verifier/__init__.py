"""Verifier stage: deterministic grounding, the entailment judge, completeness.  Never imported by generation.

The public face: what the ``duocthu`` command (audit re-verification, the verifier eval, benchmarks) may use.
"""

from duocthu_verifier.adapters.signing_key import KeySigner
from duocthu_verifier.application.verification import subject_of, verify
from duocthu_verifier.domain.checks import run_deterministic_checks
from duocthu_verifier.domain.page_proposal import check_page_proposal
from duocthu_verifier.domain.terms import TermContext, TermStatistics, build_statistics, recorded_statistics
from duocthu_verifier.main import build_handler, build_spec, configured_judge, judge_over, live_terms, term_context
from duocthu_verifier.ports import EntailmentJudge, ReleaseTerms, VerdictSigner
from duocthu_verifier.settings import VerifierSettings

__all__ = [
    "EntailmentJudge",
    "KeySigner",
    "ReleaseTerms",
    "TermContext",
    "TermStatistics",
    "VerdictSigner",
    "VerifierSettings",
    "build_handler",
    "build_spec",
    "build_statistics",
    "check_page_proposal",
    "configured_judge",
    "judge_over",
    "live_terms",
    "recorded_statistics",
    "run_deterministic_checks",
    "subject_of",
    "term_context",
    "verify",
]
