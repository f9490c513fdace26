"""Route C: condition → candidate drugs from ``chi_dinh`` hits, and the patient-specific stage 2 (seed 003 §13.3–§13.4).

Candidates come only from indication text: a drug is never proposed because
its contraindications, adverse reactions or interactions mention the
condition.  Stage 2 reads the safety sections of the top candidates for the
facts the user gave; what it cannot find is recorded as missing information,
never as "safe".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from duocthu_contracts.corpus import ChunkRecord
from duocthu_contracts.evidence import CandidateAssessment, CandidateStatus, SafetyAspect, SafetyFinding
from duocthu_contracts.frame import PatientContext
from duocthu_contracts.sections import SectionKey
from duocthu_text.vietnamese import fold

MAX_DRUGS = 8
MAX_CHUNKS_PER_DRUG = 2
#: Every candidate is checked against the patient (a case may exclude the first ones and not the others).
STAGE2_CANDIDATES = MAX_DRUGS


MIN_LEXICAL_COVERAGE = 0.67


def group_by_drug(hits: Iterable[tuple[ChunkRecord, float | None]], *, max_drugs: int = MAX_DRUGS,
                  per_drug: int = MAX_CHUNKS_PER_DRUG) -> list[tuple[ChunkRecord, float | None]]:
    """Hits (best first) grouped by drug in first-seen order: ≤ ``max_drugs`` drugs, ≤ ``per_drug`` chunks each."""
    kept: dict[str, list[tuple[ChunkRecord, float | None]]] = {}
    for chunk, score in hits:
        if chunk.section_key is not SectionKey.CHI_DINH:
            continue  # defence in depth: the search is filtered to chi_dinh already
        group = kept.get(chunk.drug_id)
        if group is None:
            if len(kept) >= max_drugs:
                continue
            group = kept[chunk.drug_id] = []
        if len(group) < per_drug and all(c.chunk_id != chunk.chunk_id for c, _ in group):
            group.append((chunk, score))
    return [item for group in kept.values() for item in group]


@dataclass(frozen=True)
class SafetyQuery:
    """One fact of the patient context, what to look for, and where."""

    aspect: SafetyAspect
    terms: tuple[str, ...]
    sections: tuple[SectionKey, ...]
    subject: str


#: How interaction sections name a drug by its class (ATC prefix → printed class names); the book
#: often writes "thuốc kháng vitamin K" rather than "warfarin".
ATC_CLASS_TERMS: dict[str, tuple[str, ...]] = {
    "B01AA": ("thuốc kháng vitamin K", "thuốc chống đông"),
    "B01AC": ("thuốc chống kết tập tiểu cầu",),
    "M01A": ("thuốc chống viêm không steroid", "NSAID"),
    "C03": ("thuốc lợi tiểu",),
    "C07": ("thuốc chẹn beta",),
    "C09A": ("thuốc ức chế enzym chuyển",),
    "C09C": ("thuốc đối kháng thụ thể angiotensin",),
    "A10B": ("thuốc hạ glucose huyết", "thuốc điều trị đái tháo đường"),
    "H02AB": ("corticosteroid",),
    "N03A": ("thuốc chống động kinh",),
    "N05BA": ("benzodiazepin",),
    "J01": ("kháng sinh",),
}


#: How a contraindication names what a patient is allergic to: the class a drug or class word belongs to
#: (folded allergen word → printed names), so "dị ứng amoxicilin" finds "quá mẫn với bất kỳ penicilin nào".
ALLERGEN_CLASSES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("penicilin", "penicillin", "amoxicilin", "ampicilin", "cloxacilin", "oxacilin"), ("penicilin",)),
    (("cephalosporin", "cefuroxim", "ceftriaxon", "cefalexin", "cefazolin", "cefixim"), ("cephalosporin",)),
    (("aspirin", "acid acetylsalicylic", "nsaid", "chong viem khong steroid", "ibuprofen", "diclofenac"),
     ("acid acetylsalicylic", "NSAID")),
    (("sulfamid", "sulfonamid", "sulfa", "cotrimoxazol"), ("sulfonamid", "sulfamid")),
    (("macrolid", "erythromycin", "azithromycin", "clarithromycin"), ("macrolid",)),
    (("tetracyclin", "doxycyclin"), ("tetracyclin",)),
    (("quinolon", "ciprofloxacin", "levofloxacin"), ("quinolon",)),
)


def allergen_terms(allergy: str) -> tuple[str, ...]:
    """What a contraindication may print for ``allergy``: the word itself and its class names.

    The generic words ("quá mẫn", "dị ứng") are not among them: every drug is contraindicated in
    hypersensitivity to itself, which says nothing about this patient's allergy.
    """
    folded = fold(allergy)
    found = [allergy.strip()]
    for words, names in ALLERGEN_CLASSES:
        if any(w in folded for w in words):
            found.extend(names)
    return tuple(dict.fromkeys(t for t in found if t))


def class_terms(atc_codes: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t for code in atc_codes for prefix, terms in ATC_CLASS_TERMS.items()
                               if code.startswith(prefix) for t in terms))


def safety_queries(patient: PatientContext, med_atc: dict[str, list[str]] | None = None) -> list[SafetyQuery]:
    """What stage 2 must look up for this patient (empty: no patient facts were given).

    ``med_atc``: ATC codes of the current medications, so that a class name
    printed in an interaction section matches the drug the patient takes.
    """
    contra = (SectionKey.CHONG_CHI_DINH, SectionKey.THAN_TRONG)
    queries: list[SafetyQuery] = []
    for med in patient.current_medications:
        terms = (med.drug_name, med.matched_text, *class_terms((med_atc or {}).get(med.drug_id, [])))
        queries.append(SafetyQuery(SafetyAspect.INTERACTION, terms, (SectionKey.TUONG_TAC_THUOC,), med.drug_name))
    if patient.pregnant:
        queries.append(SafetyQuery(SafetyAspect.PREGNANCY, ("mang thai", "thai kỳ", "có thai", "phụ nữ có thai"),
                                   (SectionKey.THOI_KY_MANG_THAI, *contra), "mang thai"))
    if patient.breastfeeding:
        queries.append(SafetyQuery(SafetyAspect.LACTATION, ("cho con bú", "sữa mẹ"),
                                   (SectionKey.THOI_KY_CHO_CON_BU, *contra), "cho con bú"))
    if patient.ckd or patient.crcl_ml_min is not None or patient.egfr is not None or patient.creatinine:
        queries.append(SafetyQuery(SafetyAspect.RENAL, ("suy thận", "thận", "độ thanh thải creatinin", "clcr"),
                                   (*contra, SectionKey.LIEU_LUONG_VA_CACH_DUNG), "chức năng thận"))
    if patient.hepatic_impairment or patient.child_pugh or patient.liver_labs:
        queries.append(SafetyQuery(SafetyAspect.HEPATIC, ("suy gan", "gan"),
                                   (*contra, SectionKey.LIEU_LUONG_VA_CACH_DUNG), "chức năng gan"))
    for allergy in patient.allergies:
        queries.append(SafetyQuery(SafetyAspect.ALLERGY, allergen_terms(allergy), contra, allergy))
    for condition in patient.conditions:
        queries.append(SafetyQuery(SafetyAspect.CONTRAINDICATION, (condition,), contra, condition))
    if patient.age_years is not None:
        child = patient.age_years < 18
        terms = ("trẻ em", "trẻ dưới", "trẻ sơ sinh") if child else ("người cao tuổi", "người già")
        if child or patient.age_years >= 65:
            queries.append(SafetyQuery(SafetyAspect.AGE, terms, (*contra, SectionKey.LIEU_LUONG_VA_CACH_DUNG),
                                       "tuổi"))
    return queries


def _mentions(text: str, terms: Sequence[str]) -> list[str]:
    haystack = fold(text)
    return [t for t in dict.fromkeys(t for t in terms if t) if fold(t) in haystack]


def assess(drug_id: str, drug_name: str, indication_ids: Sequence[str], queries: Sequence[SafetyQuery],
           sections: dict[SectionKey, list[ChunkRecord]]) -> tuple[CandidateAssessment, list[ChunkRecord]]:
    """One candidate's status from its safety sections, and the chunks that carry the findings.

    A contraindication or interaction found → ``supported_with_caution`` (the
    answer must show it); a fact whose section the monograph lacks →
    ``insufficient_evidence``; a renal/hepatic/age fact given without a value →
    ``requires_additional_information``; no patient facts → ``supported``.
    """
    findings: list[SafetyFinding] = []
    missing: list[str] = []
    cited: dict[str, ChunkRecord] = {}
    for query in queries:
        present = [k for k in query.sections if sections.get(k)]
        if not present:
            missing.append(f"{query.subject}: chuyên luận không có mục tương ứng")
            continue
        hits = [(c, _mentions(c.text, query.terms)) for k in present for c in sections[k]]
        hits = [(c, m) for c, m in hits if m]
        if hits:
            for chunk, _ in hits:
                cited.setdefault(chunk.chunk_id, chunk)
            findings.append(SafetyFinding(aspect=query.aspect, evidence_ids=[c.chunk_id for c, _ in hits],
                                          matched_terms=sorted({t for _, m in hits for t in m}),
                                          note=query.subject))
        elif query.aspect in (SafetyAspect.PREGNANCY, SafetyAspect.LACTATION):
            missing.append(f"{query.subject}: không tìm thấy thông tin trong chuyên luận")
    if not queries:
        status = CandidateStatus.SUPPORTED
    elif missing and not findings:
        status = CandidateStatus.INSUFFICIENT_EVIDENCE
    elif findings:
        status = CandidateStatus.SUPPORTED_WITH_CAUTION
    else:
        status = CandidateStatus.REQUIRES_ADDITIONAL_INFORMATION
        missing.append("không tìm thấy đề cập cụ thể; cần đối chiếu thêm thông tin bệnh nhân")
    return CandidateAssessment(drug_id=drug_id, drug_name=drug_name, status=status,
                               indication_evidence_ids=list(indication_ids), findings=findings,
                               missing_information=missing), list(cited.values())
