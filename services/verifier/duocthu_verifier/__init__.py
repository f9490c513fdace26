"""Verifier stage: deterministic grounding, the entailment judge, completeness.  Never imported by generation.

The public face: what the ``duocthu`` command (audit re-verification, benchmarks) may use.
"""

from duocthu_verifier.application.verification import subject_of, verify
from duocthu_verifier.domain.checks import run_deterministic_checks
from duocthu_verifier.main import build_handler, build_spec, configured_judge, judge_over
from duocthu_verifier.ports import EntailmentJudge

__all__ = [
    "EntailmentJudge",
    "build_handler",
    "build_spec",
    "configured_judge",
    "judge_over",
    "run_deterministic_checks",
    "subject_of",
    "verify",
]
