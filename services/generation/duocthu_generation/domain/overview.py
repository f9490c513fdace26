"""An overview of one drug: a few chosen sentences from a fixed set of sections, never the whole monograph.

"Tóm tắt / tổng quan / thông tin chung về X" is answered the same way every
time: what the drug is, its indications, contraindications, the usual adult
dose, the main precautions and the serious interactions, one to three claims
each, every one a verbatim sentence (or labelled dose paragraph) of the book.
The rest of the monograph is one click away ("Tra chuyên luận").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from duocthu_contracts.answer import Claim
from duocthu_contracts.frame import QueryFrame
from duocthu_contracts.sections import SectionKey
from duocthu_generation.domain import dosage
from duocthu_generation.domain.paragraphs import Paragraph, sentences
from duocthu_generation.domain.writer_input import WriterInput
from duocthu_text.vietnamese import fold

#: The sections of an overview, in reading order, and how many claims each gives at most.
SECTIONS: tuple[tuple[SectionKey, int], ...] = (
    (SectionKey.LOAI_THUOC, 1),
    (SectionKey.CHI_DINH, 3),
    (SectionKey.CHONG_CHI_DINH, 3),
    (SectionKey.LIEU_LUONG_VA_CACH_DUNG, 2),
    (SectionKey.THAN_TRONG, 2),
    (SectionKey.TUONG_TAC_THUOC, 2),
)
#: What marks an interaction (or precaution) as a serious one in the book's words.
_SERIOUS = re.compile(r"\b(chong chi dinh|khong (duoc )?dung|tranh (dung|phoi hop)|nghiem trong|de doa tinh mang|"
                      r"tu vong|chay mau|xuat huyet|ngo doc|tang nguy co|canh bao|dac biet)\b")


def claims(request: WriterInput, paras: Sequence[Paragraph]) -> list[Claim]:
    by_section: dict[SectionKey, list[Paragraph]] = {}
    for p in paras:
        if not p.label_only:
            by_section.setdefault(request.evidence[p.evidence_index - 1].section_key, []).append(p)
    out: list[Claim] = []
    for key, limit in SECTIONS:
        section = by_section.get(key, [])
        if key is SectionKey.LIEU_LUONG_VA_CACH_DUNG:
            out.extend(_claim(p, p.text, request, p.route) for p in _adult_dose(section, request.frame)[:limit])
        elif key in (SectionKey.THAN_TRONG, SectionKey.TUONG_TAC_THUOC):
            found = [(p, s) for p in section for s in sentences(p.text)]
            serious = [(p, s) for p, s in found if _SERIOUS.search(fold(s))]
            out.extend(_claim(p, s, request) for p, s in (serious or found)[:limit])
        else:  # the first sentence of each paragraph: one item of the section each
            out.extend(_claim(p, sentences(p.text)[0], request) for p in section[:limit] if sentences(p.text))
    return out


def _adult_dose(section: list[Paragraph], frame: QueryFrame) -> list[Paragraph]:
    """The usual adult dose lines (general ones, not those printed for one condition or one special state)."""
    adult = dosage.choose(section, frame.model_copy(update={"population": "Người lớn", "condition": None}))
    return adult.chosen


def _claim(p: Paragraph, text: str, request: WriterInput, label: str | None = None) -> Claim:
    return Claim(text=text, citations=[p.evidence_index], drug_id=request.evidence[p.evidence_index - 1].drug_id,
                 label=label)
