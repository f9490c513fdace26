"""A patient case in a candidate list: which book sentences exclude the patient, and which only caution.

Retrieval's stage 2 found, per candidate, the safety passages that mention the
patient's facts (``CandidateAssessment.findings``).  Here each sentence of
those passages is read against the facts: a contraindication sentence that
names the patient's allergen (or its class), prints a renal band holding the
patient's Clcr, or names a pregnancy the patient has, *excludes* the patient
and must be said before the drug is shown; everything else found is a caution
shown after it.  Dose lines count only when they are the patient's own band
(special state: renal, hepatic, old age).  Every claim is a verbatim sentence
or labelled paragraph of the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from duocthu_contracts.answer import Claim
from duocthu_contracts.evidence import SafetyAspect
from duocthu_contracts.sections import SectionKey
from duocthu_generation.domain import bands, dosage
from duocthu_generation.domain.paragraphs import Paragraph, sentences
from duocthu_generation.domain.writer_input import WriterInput
from duocthu_text.vietnamese import casefold_keep_marks, fold, has_diacritics

#: Excluding sentences shown before a candidate's indication, and cautions after it.
MAX_EXCLUDING = 2
MAX_CAUTIONS = 3
#: Clcr under which "suy thận nặng" holds when the sentence prints no band of its own.
SEVERE_RENAL_BELOW = 30.0
_SEVERITY = re.compile(r"\b(nang|vua|nhe)\b")
#: A contraindication that holds only together with something else ("… đang dùng thuốc ức chế CYP3A4").
_CONDITIONAL = re.compile(r"\b(dang dung|dung dong thoi|phoi hop|khi dung)\b")

Found = dict[str, list[Claim]]


def findings(request: WriterInput, paras: Sequence[Paragraph]) -> tuple[Found, Found]:
    """Per drug: the sentences that exclude the patient, and the other findings (cautions), in book order."""
    terms: dict[str, list[tuple[SafetyAspect, set[str]]]] = {}
    allergens: set[str] = set()
    for assessment in request.assessments:
        for finding in assessment.findings:
            words = {t for t in finding.matched_terms if t.strip()}
            if finding.aspect is SafetyAspect.ALLERGY:
                allergens |= words
            for evidence_id in finding.evidence_ids:
                terms.setdefault(evidence_id, []).append((finding.aspect, words))
    facts = bands.facts_of(request.frame)
    excluded: Found = {}
    cautions: Found = {}
    for p in paras:
        block = request.evidence[p.evidence_index - 1]
        wanted = terms.get(block.evidence_id)
        if not wanted or p.label_only or block.section_key is SectionKey.CHI_DINH:
            continue
        if block.section_key is SectionKey.LIEU_LUONG_VA_CACH_DUNG:
            scope = dosage.scope_of(p)
            label = bands.parse(scope)
            if label.special and bands.judge(scope, facts) is bands.Verdict.YES:
                cautions.setdefault(block.drug_id, []).append(
                    Claim(text=p.text, citations=[p.evidence_index], drug_id=block.drug_id, label=p.route))
            continue
        for sentence in sentences(p.text):
            if not any(names(sentence, w) for _, words in wanted for w in words):
                continue
            claim = Claim(text=sentence, citations=[p.evidence_index], drug_id=block.drug_id)
            if block.section_key is SectionKey.CHONG_CHI_DINH and excludes(sentence, facts, allergens):
                excluded.setdefault(block.drug_id, []).append(claim)
            elif not _other_band(sentence, facts):
                cautions.setdefault(block.drug_id, []).append(claim)
    return excluded, cautions


def excludes(sentence: str, facts: bands.Facts, allergens: set[str]) -> bool:
    """Does this contraindication sentence hold for the patient (allergy, renal band, pregnancy, liver)?"""
    folded = fold(sentence)
    if any(names(sentence, a) for a in allergens):
        return True
    label = bands.parse(sentence)
    if label.renal and facts.crcl is not None:
        if any(r.contains(facts.crcl) for r in label.renal):
            return True
    elif label.renal_word and facts.renal_impaired and not _CONDITIONAL.search(folded) and (
            not _SEVERITY.search(folded) or (facts.crcl is not None and facts.crcl < SEVERE_RENAL_BELOW)):
        return True
    if label.pregnancy and facts.pregnant and "thang thu" not in folded and "3 thang" not in folded \
            and "ba thang" not in folded:
        return True
    return label.hepatic and bool(facts.hepatic_impaired) and not _SEVERITY.search(folded) \
        and not _CONDITIONAL.search(folded)


def names(sentence: str, term: str) -> bool:
    """Does ``sentence`` print ``term`` as whole words, with its diacritics when typed with them?

    Folded, "thận" (kidney) is "thần" (nerve) and "than" is inside "tháng": a finding must name the fact.
    """
    if has_diacritics(term):
        text, word = casefold_keep_marks(sentence), casefold_keep_marks(term)
    else:
        text, word = fold(sentence), fold(term)
    return bool(word) and re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


def _other_band(sentence: str, facts: bands.Facts) -> bool:
    """A sentence about a renal band the patient's Clcr is outside of (not this patient's finding)."""
    label = bands.parse(sentence)
    return bool(label.renal) and facts.crcl is not None and not any(r.contains(facts.crcl) for r in label.renal)
