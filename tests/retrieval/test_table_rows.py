"""Issue 19: a dose section read whole answers from its released rows when the question gives the clearance.

Gentamicin's dose section prints a released table and the Cockcroft–Gault
fraction (still a crop): without a clearance value the section answers
its text with the fraction as a travelling crop; with one, the rows are the evidence and the fraction is
left out.
"""

from __future__ import annotations

from duocthu_contracts.corpus import ChunkKind
from duocthu_contracts.decisions import Decision
from duocthu_contracts.evidence import Route
from duocthu_contracts.sections import SectionKey
from duocthu_ingest import IngestResult
from duocthu_retrieval.domain.evidence_policy import answered_by_rows, decide


def test_a_clearance_value_turns_a_section_with_a_formula_into_its_rows(sample_ingest: IngestResult) -> None:
    section = [(c, None) for c in sample_ingest.chunks
               if c.drug_id == "gentamicin" and c.section_key is SectionKey.LIEU_LUONG_VA_CACH_DUNG]
    chunks = [c for c, _ in section]
    assert any(c.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR for c in chunks)  # the fraction stays a crop
    assert not answered_by_rows(chunks, renal_value_given=False)
    # without a value the section is read whole: its text (rows included) is the evidence and the fraction
    # travels with it as a crop (issue 18's text beside a table); generation asks for the band or defers
    whole = decide(Route.A_SECTION, section, visual_blocks_whole_answer=True)
    fraction = {a.block_id for c in chunks if c.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR for a in c.attachments}
    assert whole.decision is Decision.ANSWERABLE and fraction
    assert fraction <= {a.block_id for e in whole.evidence for a in e.attachments}
    assert all(not e.requires_visual_check for e in whole.evidence)
    assert answered_by_rows(chunks, renal_value_given=True)
    outcome = decide(Route.A_SECTION, section, visual_blocks_whole_answer=False)
    assert outcome.decision is Decision.ANSWERABLE
    assert outcome.evidence and all(not e.requires_visual_check for e in outcome.evidence)
    # the rows, and the prose around the fraction (text since issue 18), never the fraction itself
    assert ChunkKind.TABLE_ROW in {e.chunk_kind for e in outcome.evidence}
    assert ChunkKind.BLOCK_DESCRIPTOR not in {e.chunk_kind for e in outcome.evidence}


def test_a_table_keyed_on_weight_is_not_a_clearance_answer(sample_ingest: IngestResult) -> None:
    chunks = [c for c in sample_ingest.chunks if c.drug_id == "amoxicilin_va_acid_clavulanic"]
    assert any(c.chunk_kind is ChunkKind.TABLE_ROW for c in chunks)
    assert not answered_by_rows(chunks, renal_value_given=True)
