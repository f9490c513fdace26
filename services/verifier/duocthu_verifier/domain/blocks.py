"""Answer blocks: structure the UI renders, taken from the cited sections, not from model prose."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu_contracts.answer import AnswerBlock, BlockKindUI, Claim
from duocthu_contracts.evidence import Evidence
from duocthu_contracts.sections import SECTION_HEADINGS, WARNING_SECTIONS, SectionKey


def kind_of(section: SectionKey) -> BlockKindUI:
    if section is SectionKey.LIEU_LUONG_VA_CACH_DUNG:
        return BlockKindUI.DOSAGE
    if section in WARNING_SECTIONS:
        return BlockKindUI.WARNING
    return BlockKindUI.FACT_LIST


def build_blocks(claims: Sequence[Claim], evidence: Sequence[Evidence]) -> list[AnswerBlock]:
    """Consecutive claims citing the same (drug, section) form one block titled by that section."""
    drugs = {e.drug_id for e in evidence}
    blocks: list[AnswerBlock] = []
    for index, claim in enumerate(claims):
        first = next((evidence[i - 1] for i in claim.citations if 1 <= i <= len(evidence)), None)
        if first is None:
            continue
        key = (first.drug_id, first.section_key)
        last = blocks[-1] if blocks else None
        if last is not None and (last.drug_id, last.section_key) == key:
            blocks[-1] = last.model_copy(update={"claim_indices": [*last.claim_indices, index]})
            continue
        title = SECTION_HEADINGS[first.section_key]
        if len(drugs) > 1:
            title = f"{first.drug_name} — {title}"
        blocks.append(AnswerBlock(title=title, kind=kind_of(first.section_key), section_key=first.section_key,
                                  drug_id=first.drug_id, claim_indices=[index]))
    return blocks
