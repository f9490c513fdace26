"""Evidence and term statistics of the sample formulary, as the verifier sees them in a live release.

A section's evidence text is the section exactly as the sample monograph
prints it (the ingest round-trip target), paragraphs separated by newlines;
the term statistics count one document per section (the sample's sections
fit one chunk or a few — the live verifier counts the release's real chunks).
Shared by ``duocthu eval verifier`` and the verifier tests.
"""

from __future__ import annotations

import functools

from duocthu_contracts.corpus import ChunkKind
from duocthu_contracts.evidence import Evidence, SourceRef
from duocthu_contracts.sections import SECTION_HEADINGS, SectionKey
from duocthu_corpus.monograph import Monograph, load_all
from duocthu_verifier import TermStatistics, build_statistics


@functools.cache
def monographs() -> dict[str, Monograph]:
    return {m.drug_id: m for m in load_all()}


def section_evidence(drug_id: str, section: str, *, visual: bool = False) -> Evidence:
    monograph = monographs()[drug_id]
    key = SectionKey(section)
    chunk_id = f"{drug_id}__{section}__0"
    return Evidence(
        evidence_id=chunk_id, drug_id=drug_id, drug_name=monograph.title, section_key=key,
        section_title=SECTION_HEADINGS[key], text="\n".join(monograph.prose(key)),
        source_refs=[SourceRef(chunk_id=chunk_id, printed_page_range=(100, 100), source_page_range=(60, 60))],
        requires_visual_check=visual, chunk_kind=ChunkKind.PROSE,
    )


@functools.cache
def sample_term_statistics() -> TermStatistics:
    texts = ["\n".join(m.prose(key)) for m in monographs().values() for key in m.sections]
    return build_statistics("sample", [t for t in texts if t.strip()])
