"""Turn decisions and the closed vocabulary of reasons.

A reason is what a user (and an auditor) is told about *why* a turn ended the
way it did, so each failure mode has its own code: a timeout must never be
reported as "the answer did not match the source".
"""

from __future__ import annotations

from enum import StrEnum


class Decision(StrEnum):
    ANSWERABLE = "answerable"
    CLARIFY = "clarify"
    VERIFY_PDF = "verify_pdf"
    ABSTAIN = "abstain"


class Reason(StrEnum):
    # answerable
    VERIFIED = "verified"
    MONOGRAPH_TEXT = "monograph_text"
    # clarify
    POPULATION_REQUIRED = "population_required"
    PATIENT_INFO_REQUIRED = "patient_info_required"
    DRUG_REQUIRED = "drug_required"
    AMBIGUOUS_DRUG = "ambiguous_drug"
    CONDITION_SUBTYPE_REQUIRED = "condition_subtype_required"
    GENERATOR_CLARIFY = "generator_clarify"
    # verify_pdf
    VISUAL_CHECK_REQUIRED = "visual_check_required"
    # abstain: platform
    STAGE_NOT_IMPLEMENTED = "stage_not_implemented"
    REQUEST_BUDGET_EXHAUSTED = "request_budget_exhausted"
    BUS_UNAVAILABLE = "bus_unavailable"
    STAGE_UNAVAILABLE = "stage_unavailable"
    INTERNAL_ERROR = "internal_error"
    CORPUS_NOT_READY = "corpus_not_ready"
    # abstain: understanding guards
    OUT_OF_SCOPE = "out_of_scope"
    NON_HUMAN = "non_human"
    PROMPT_EXTRACTION = "prompt_extraction"
    SMALLTALK = "smalltalk"
    UNKNOWN_DRUG = "unknown_drug"
    UNSUPPORTED_REVERSE_RELATION = "unsupported_reverse_relation"
    DOSE_CALCULATION_NOT_SUPPORTED = "dose_calculation_not_supported"
    CLARIFY_LIMIT_REACHED = "clarify_limit_reached"
    # abstain: retrieval / evidence policy
    NO_EVIDENCE = "no_evidence"
    MISSING_PROVENANCE = "missing_provenance"
    RETRIEVAL_UNAVAILABLE = "retrieval_unavailable"
    # abstain: generation
    PROVIDER_UNAVAILABLE = "provider_unavailable"
    MALFORMED_OUTPUT = "malformed_output"
    EVIDENCE_INSUFFICIENT = "evidence_insufficient"
    # abstain: verification
    UNSUPPORTED_DRUG = "unsupported_drug"
    UNGROUNDED_NUMBER = "ungrounded_number"
    UNBOUND_QUANTITY = "unbound_quantity"
    POPULATION_MISMATCH = "population_mismatch"
    UNSUPPORTED_LABEL = "unsupported_label"
    UNSUPPORTED_TERM = "unsupported_term"
    INVALID_CITATION = "invalid_citation"
    UNCITED_CLAIM = "uncited_claim"
    UNSUPPORTED_CLAIM = "unsupported_claim"
    UNSUPPORTED_RANKING_CLAIM = "unsupported_ranking_claim"
    UNSUPPORTED_SAFETY_CLAIM = "unsupported_safety_claim"
    INCOMPLETE_ANSWER = "incomplete_answer"
    JUDGE_UNAVAILABLE = "judge_unavailable"
    VISUAL_EVIDENCE_NOT_GENERATABLE = "visual_evidence_not_generatable"
    # abstain: the gateway's gate (only the verifier's sealed completions show the book)
    ANSWER_NOT_FROM_VERIFIER = "answer_not_from_verifier"
    INVALID_VERDICT_SEAL = "invalid_verdict_seal"
