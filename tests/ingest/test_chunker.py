"""Packing sections into schema-v4 chunks (seed 003 §9): budget, overlap, labels, descriptors."""

from __future__ import annotations

import itertools

from duocthu_contracts.corpus import BlockKind, ChunkKind
from duocthu_contracts.sections import SectionKey
from duocthu_ingest.adapters.tokenizer import count_tokens
from duocthu_ingest.domain.chunker import chunk_monograph, pack
from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.domain.model import Monograph, QuarantineBlock, Section, TextPiece
from duocthu_ingest.domain.page_map import PageMap
from duocthu_ingest.domain.text import ws_normalize
from duocthu_text.reassembly import reassemble

CONFIG = IngestConfig()


def long_dosage() -> str:
    adults = " ".join(f"Đợt {i}: uống 0,5 g mỗi 8 giờ trong {i + 3} ngày, theo dõi chức năng gan." for i in range(45))
    children = " ".join(f"Nhóm {i}: 15 mg/kg mỗi 6 giờ, tối đa {i + 40} mg/kg mỗi ngày." for i in range(40))
    return (f"Cách dùng: Uống sau bữa ăn.\nĐường uống:\nNgười lớn: {adults}\nTrẻ em: {children}\n"
            "Tiêm tĩnh mạch:\nNgười lớn: 1 g mỗi 6 giờ.")


def test_short_section_is_one_whole_chunk():
    text = "Người lớn: 500 mg.\nTrẻ em: 10 mg/kg."
    assert pack(text, CONFIG, count_tokens) == [(0, len(text), [])]


def test_long_section_packs_under_the_ceiling_with_overlap_and_reassembles():
    text = long_dosage()
    slices = pack(text, CONFIG, count_tokens)
    assert len(slices) >= 3
    for start, end, labels in slices:
        body = " ".join([*labels, text[start:end]])
        assert count_tokens(body) <= CONFIG.budget.ceiling
        assert not text[start:end].rstrip().endswith(":")
    for (_, end_a, _), (start_b, _, _) in itertools.pairwise(slices):
        assert start_b < end_a  # consecutive parts overlap
        assert count_tokens(text[start_b:end_a]) <= CONFIG.budget.overlap + 40
    assert reassemble([text[s:e] for s, e, _ in slices]) == text


def test_continuation_chunks_carry_the_labels_in_force():
    text = long_dosage()
    slices = pack(text, CONFIG, count_tokens)
    assert slices[0][2] == []
    for start, _, labels in slices[1:]:
        source = text[start:]
        if source.startswith("Đợt"):
            assert labels == ["Đường uống:", "Người lớn:"]
        if source.startswith("Nhóm"):
            assert labels == ["Đường uống:", "Trẻ em:"]
    assert any(labels for _, _, labels in slices[1:])


def _monograph(text: str, blocks: list[str]) -> Monograph:
    section = Section(key=SectionKey.LIEU_LUONG_VA_CACH_DUNG, heading="Liều lượng và cách dùng", heading_page=3,
                      text=text, block_ids=blocks)
    section.pieces = [TextPiece(0, len(text) // 2, 3, (50, 100, 280, 700), ("a",)),
                      TextPiece(len(text) // 2 + 1, len(text), 4, (310, 80, 540, 300), ("b",))]
    atc = Section(key=SectionKey.MA_ATC, heading="Mã ATC", heading_page=3, text="J01GB03; S01AA11.",
                  pieces=[TextPiece(0, 17, 3, (50, 80, 280, 90), ("c",))])
    return Monograph(drug_id="gentamicin", drug_name="GENTAMICIN", title_page=3, title_span_ids=["t"],
                     title_bbox=(50, 60, 120, 72), sections=[atc, section])


def test_records_follow_schema_v4_with_provenance_and_quarantine_flags():
    text = long_dosage()
    block = QuarantineBlock(block_id="p4_table0", kind=BlockKind.TABLE, shape="ruled_grid", page=4,
                            bbox=(310, 320, 540, 420), drug_id="gentamicin",
                            section_key=SectionKey.LIEU_LUONG_VA_CACH_DUNG, text="> 70 | 80 mg | 8 giờ")
    page_map = PageMap(printed={3: 101, 4: 102})
    records = chunk_monograph(_monograph(text, [block.block_id]), {block.block_id: block}, page_map, CONFIG,
                              count_tokens)
    dosage = [r for r in records if r.section_key is SectionKey.LIEU_LUONG_VA_CACH_DUNG]
    prose = [r for r in dosage if r.chunk_kind is ChunkKind.PROSE]
    descriptor = [r for r in dosage if r.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR]
    assert len(descriptor) == 1 and len(prose) >= 3
    assert [r.part_index for r in dosage] == list(range(len(dosage)))
    assert all(r.part_count == len(dosage) for r in dosage)
    assert all(r.chunk_id == f"gentamicin__lieu_luong_va_cach_dung__{r.part_index}" for r in dosage)
    assert all(r.has_quarantined_content for r in dosage)
    assert prose[0].source_page_range == (3, 3) and prose[0].printed_page_range == (101, 101)
    assert prose[-1].printed_page_range == (102, 102)
    assert all(r.source_regions for r in prose)
    assert records[0].atc_codes == ["J01GB03", "S01AA11"]
    d = descriptor[0]
    assert d.text == d.source_text
    assert d.text.startswith("GENTAMICIN — Liều lượng và cách dùng — bảng, trang 102.")
    assert "80 mg" not in d.text  # built from metadata only, never from the block's text
    assert d.attachments[0].bbox == (310, 320, 540, 420) and d.attachments[0].printed_page == 102
    for r in prose[1:]:
        assert r.text == " ".join([*r.context_labels, r.source_text])
    assert ws_normalize(reassemble([r.source_text for r in prose])) == ws_normalize(text)


def test_page_without_printed_number_yields_no_valid_printed_range():
    text = "Người lớn: 500 mg."
    records = chunk_monograph(_monograph(text, []), {}, PageMap(printed={3: 101}), CONFIG, count_tokens)
    dosage = next(r for r in records if r.section_key is SectionKey.LIEU_LUONG_VA_CACH_DUNG)
    assert dosage.printed_page_range == (0, 0)  # page 4 has no folio: the gate will block it
