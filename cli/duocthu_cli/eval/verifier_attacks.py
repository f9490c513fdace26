"""An adversarial writer: for each sample monograph, every attack of issue 17 that can be built from it.

Each attack is a one-claim draft over one real section of the sample
formulary, wrong in exactly one way, with the reason the verifier must give
when a judge says yes to everything.  The generator reads the evidence with
its own simple rules (a numeric regex, a handful of population words) and
never with the verifier's code, so that it cannot share the verifier's blind
spots.  A family that cannot be built from a monograph (no sentence with two
different numbers, no labelled dose paragraph …) is skipped for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from duocthu_cli.eval.verifier_sample import monographs, section_evidence
from duocthu_contracts.answer import Claim
from duocthu_contracts.decisions import Reason
from duocthu_contracts.evidence import Evidence
from duocthu_contracts.sections import SectionKey
from duocthu_text.vietnamese import fold

NUMBER = re.compile(r"(?<![\w,.])\d+(?:[.,]\d+)*(?![\w])")
#: Unit replacements that change what a dose means (longest units first so "mg/kg" is not read as "mg").
UNIT_SWAPS: tuple[tuple[str, str], ...] = (
    ("mg/kg/ngày", "mg/ngày"), ("mg/kg/lần", "mg/lần"), ("mg/kg", "mg"), ("microgam", "mg"), ("mg/ngày", "g/ngày"),
    ("mg/lần", "g/lần"), ("g/ngày", "mg/ngày"), ("ml/phút", "ml/giờ"), ("mg", "g"), ("giờ", "ngày"),
    ("ngày", "tuần"), ("tuần", "tháng"), ("tuổi", "tháng"), ("lần", "viên"), ("°C", "%"), ("ml", "l"), ("g", "mg"),
)
POPULATIONS = ("Trẻ em", "Người lớn", "Người cao tuổi", "Phụ nữ có thai", "Trẻ sơ sinh")
LYING_LABEL = "An toàn cho phụ nữ có thai; lựa chọn đầu tay; liều 5000 mg"
INSIDE_WORD_PHRASES = ("an toàn", "tốt nhất", "vô hại", "safe")
FABRICATED_TERMS = ("ung thư", "sốt rét", "herpes")

FAMILIES = (
    "number_swap", "unit_change", "cross_sentence", "population_relabel", "population_relabel_with_label",
    "label_only_relabel", "lying_label", "phrase_inside_word", "new_specific_term",
)


@dataclass(frozen=True)
class Attack:
    family: str
    drug_id: str
    evidence: Evidence
    claim: Claim
    expect: Reason


def paragraphs(evidence: Evidence) -> list[str]:
    return [p.strip() for p in evidence.text.split("\n") if p.strip()]


def sentences(paragraph: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-ZÀ-ỸĐ])", paragraph) if s]


def label_and_body(paragraph: str) -> tuple[str | None, str]:
    head, sep, rest = paragraph.partition(":")
    if sep and rest.strip() and len(head.split()) <= 14:
        return head.strip(), rest.strip()
    return None, paragraph


def _words_of(text: str) -> str:
    return f" {fold(text)} "


def _names(population: str, text: str) -> bool:
    folded = _words_of(text)
    return any(f" {w} " in folded for w in (fold(population), *fold(population).split()[:1]))


def _dose_sentences(evidence: Evidence) -> Iterator[str]:
    for paragraph in paragraphs(evidence):
        yield from sentences(paragraph)


def number_swap(evidence: Evidence) -> Claim | None:
    """Two different numbers of one sentence trade places; units and words stay where they are."""
    for sentence in _dose_sentences(evidence):
        found = list(NUMBER.finditer(sentence))
        for i, a in enumerate(found):
            b = next((m for m in found[i + 1:] if m.group() != a.group()), None)
            if b is None:
                continue
            swapped = (sentence[:a.start()] + b.group() + sentence[a.end():b.start()] + a.group()
                       + sentence[b.end():])
            return Claim(text=swapped, citations=[1])
    return None


def unit_change(evidence: Evidence) -> Claim | None:
    """One number keeps its digits but gets another unit."""
    for sentence in _dose_sentences(evidence):
        for unit, other in UNIT_SWAPS:
            m = re.search(rf"(?<![\w,.])(\d+(?:[.,]\d+)*) {re.escape(unit)}(?![\w/])", sentence)
            if m:
                changed = sentence[:m.start()] + f"{m.group(1)} {other}" + sentence[m.end():]
                return Claim(text=changed, citations=[1])
    return None


def _quantity_clauses(sentence: str) -> list[str]:
    return [c.strip() for c in re.split(r";\s*|,\s+", sentence) if NUMBER.search(c)]


def cross_sentence(evidence: Evidence) -> Claim | None:
    """A dose clause of one sentence joined to a clause of another: each true alone, never printed together."""
    all_sentences = list(_dose_sentences(evidence))
    for i, first in enumerate(all_sentences):
        for second in all_sentences[i + 2:]:
            a, b = _quantity_clauses(first), _quantity_clauses(second)
            if not a or not b:
                continue
            text = f"{a[0]}; {b[-1].rstrip('.')}."
            numbers = [n.group() for n in NUMBER.finditer(text)]
            if any(all(n in s for n in numbers) for s in all_sentences):
                continue  # some sentence prints them all: not a combination of two sentences
            return Claim(text=text, citations=[1])
    return None


POPULATION_WORDS = ("trẻ", "người lớn", "cao tuổi", "sơ sinh", "suy thận", "suy gan", "cân nặng", "tuổi")


def _labelled_dose_paragraph(evidence: Evidence) -> tuple[str, str, str] | None:
    """(population label, first dose sentence under it, a population the paragraph and headings never name)."""
    headings = " ".join(p for p in paragraphs(evidence) if p.endswith(":"))
    for paragraph in paragraphs(evidence):
        label, body = label_and_body(paragraph)
        if label is None or not any(f" {fold(w)} " in _words_of(label) for w in POPULATION_WORDS):
            continue
        first = sentences(body)[0]
        if not NUMBER.search(first):
            continue
        target = next((p for p in POPULATIONS if not _names(p, f"{paragraph} {headings}")), None)
        if target is not None:
            return label, first, target
    return None


def population_relabel(evidence: Evidence) -> Claim | None:
    found = _labelled_dose_paragraph(evidence)
    return Claim(text=f"{found[2]}: {found[1]}", citations=[1]) if found else None


def population_relabel_with_label(evidence: Evidence) -> Claim | None:
    found = _labelled_dose_paragraph(evidence)
    return Claim(text=f"{found[2]}: {found[1]}", citations=[1], label=found[2]) if found else None


def label_only_relabel(evidence: Evidence) -> Claim | None:
    found = _labelled_dose_paragraph(evidence)
    return Claim(text=found[1], citations=[1], label=found[2]) if found else None


def lying_label(evidence: Evidence) -> Claim | None:
    first = next(iter(_dose_sentences(evidence)), None)
    return Claim(text=first, citations=[1], label=LYING_LABEL) if first else None


def phrase_inside_word(evidence: Evidence) -> Claim | None:
    """A safety/ranking phrase the block contains only inside other words ("an toàn" in "hoàn toàn")."""
    text = fold(evidence.text)
    for phrase in INSIDE_WORD_PHRASES:
        folded = fold(phrase)
        inside = folded in text and not re.search(rf"(?<!\w){re.escape(folded)}(?!\w)", text)
        if inside:
            return Claim(text=f"{evidence.drug_name.capitalize()} {phrase} khi dùng đúng cách.", citations=[1])
    return None


def new_specific_term(evidence: Evidence) -> Claim | None:
    """A real sentence of the block, plus an indication the block never names."""
    first = next(iter(_dose_sentences(evidence)), None)
    term = next((t for t in FABRICATED_TERMS if fold(t).split()[0] not in _words_of(evidence.text)), None)
    if first is None or term is None:
        return None
    return Claim(text=f"{first.rstrip('.')}; thuốc được dùng để điều trị {term}.", citations=[1])


Builder = Callable[[Evidence], Claim | None]
#: family -> (sections to try in order, builder, expected reason)
PLAN: dict[str, tuple[tuple[SectionKey, ...], Builder, Reason]] = {
    "number_swap": ((SectionKey.LIEU_LUONG_VA_CACH_DUNG, SectionKey.QUA_LIEU_VA_XU_TRI, SectionKey.DUOC_DONG_HOC),
                    number_swap, Reason.UNBOUND_QUANTITY),
    "unit_change": ((SectionKey.LIEU_LUONG_VA_CACH_DUNG, SectionKey.DUOC_DONG_HOC), unit_change,
                    Reason.UNBOUND_QUANTITY),
    "cross_sentence": ((SectionKey.LIEU_LUONG_VA_CACH_DUNG,), cross_sentence, Reason.UNBOUND_QUANTITY),
    "population_relabel": ((SectionKey.LIEU_LUONG_VA_CACH_DUNG,), population_relabel, Reason.POPULATION_MISMATCH),
    "population_relabel_with_label": ((SectionKey.LIEU_LUONG_VA_CACH_DUNG,), population_relabel_with_label,
                                      Reason.POPULATION_MISMATCH),
    "label_only_relabel": ((SectionKey.LIEU_LUONG_VA_CACH_DUNG,), label_only_relabel, Reason.UNSUPPORTED_LABEL),
    "lying_label": ((SectionKey.CHI_DINH, SectionKey.LIEU_LUONG_VA_CACH_DUNG), lying_label,
                    Reason.UNSUPPORTED_LABEL),
    "phrase_inside_word": (tuple(SectionKey), phrase_inside_word, Reason.UNSUPPORTED_SAFETY_CLAIM),
    "new_specific_term": ((SectionKey.CHI_DINH,), new_specific_term, Reason.UNSUPPORTED_TERM),
}


def attacks() -> list[Attack]:
    """Every attack family that can be built, once per sample monograph."""
    out: list[Attack] = []
    for drug_id, monograph in sorted(monographs().items()):
        for family, (sections, build, expect) in PLAN.items():
            for section in sections:
                if not monograph.prose(section):
                    continue
                evidence = section_evidence(drug_id, section.value)
                claim = build(evidence)
                if claim is not None:
                    out.append(Attack(family, drug_id, evidence, claim, expect))
                    break
    return out
