"""Page map, reading order, back index and catalog rules on hand-made inputs."""

from __future__ import annotations

from duocthu_contracts.corpus import AliasKind
from duocthu_contracts.sections import SectionKey
from duocthu_ingest.domain.back_index import Detected, parse_back_index, validate_against_index
from duocthu_ingest.domain.catalog import build_catalog
from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.domain.layout import group_lines, reading_order
from duocthu_ingest.domain.model import Line, Monograph, Section, Span, TextPiece
from duocthu_ingest.domain.page_map import build_page_map
from duocthu_text.reassembly import longest_overlap, reassemble

CONFIG = IngestConfig()


def test_page_map_trusts_agreeing_folios_and_fills_only_consistent_gaps():
    pm = build_page_map({10: [108], 11: [109], 12: [], 13: [111], 14: [999], 15: [113], 16: [], 17: [200]})
    assert pm.printed_page(10) == 108 and pm.printed_page(12) == 110 and 12 in pm.inferred
    assert pm.printed_page(14) is None and any("14" in a for a in pm.anomalies)
    assert pm.printed_page(17) is None  # disagrees with every neighbour
    assert pm.printed_page(16) is None  # its neighbours do not agree on an offset


def _span(sid: str, x0: float, y0: float, text: str) -> Span:
    return Span(sid, 0, 0, 0, 0, (x0, y0, x0 + 200, y0 + 10), text, "f", 9.0, False)


def test_reading_order_is_left_then_right_within_bands_whatever_the_drawing_order():
    spans = [_span("r1", 310, 100, "phải 1"), _span("r2", 310, 112, "phải 2"), _span("l1", 50, 100, "trái 1"),
             _span("l2", 50, 112, "trái 2"), Span("f", 0, 0, 0, 0, (50, 300, 545, 312), "toàn trang", "f", 9.0, True),
             _span("l3", 50, 320, "trái 3"), _span("r3", 310, 320, "phải 3")]
    lines = group_lines(spans, 0)
    order = [it.text for it in reading_order(lines, [], 297.5) if isinstance(it, Line)]
    assert order == ["trái 1", "trái 2", "phải 1", "phải 2", "toàn trang", "trái 3", "phải 3"]


def test_back_index_entries_aliases_and_wrapped_names():
    index = parse_back_index(["CHỈ MỤC", "A", "AMOXICILIN VÀ ACID", "CLAVULANIC 112", "PARACETAMOL ........ 120",
                              "Acetaminophen xem PARACETAMOL", "Aspirin xem ACID ACETYLSALICYLIC."], CONFIG)
    assert [(e.name, e.page) for e in index.entries] == [("AMOXICILIN VÀ ACID CLAVULANIC", 112), ("PARACETAMOL", 120)]
    assert [(a.alias, a.target) for a in index.aliases] == [("Acetaminophen", "PARACETAMOL"),
                                                           ("Aspirin", "ACID ACETYLSALICYLIC")]
    detected = [Detected("paracetamol", "PARACETAMOL", 120), Detected("ibuprofen", "IBUPROFEN", 118)]
    result = validate_against_index(detected, index, None)
    assert result.missing == ["AMOXICILIN VÀ ACID CLAVULANIC"] and result.unexpected == ["IBUPROFEN"]
    assert validate_against_index(detected[:1], index, (115, 130)).recall == 1.0  # the other entry is out of scope


def _mono(drug_id: str, name: str, sections: dict[SectionKey, str]) -> Monograph:
    mono = Monograph(drug_id, name, 3, ["t"], (0, 0, 1, 1))
    for key, text in sections.items():
        mono.sections.append(Section(key, key.value, 3, text, [TextPiece(0, len(text), 3, (0, 0, 1, 1), ("s",))]))
    return mono


def test_catalog_aliases_dosage_labels_unresolved_and_ambiguous():
    from duocthu_ingest.domain.page_map import PageMap

    para = _mono("paracetamol", "PARACETAMOL", {
        SectionKey.TEN_CHUNG_QUOC_TE: "Paracetamol.",
        SectionKey.LIEU_LUONG_VA_CACH_DUNG: "Cách dùng: Uống.\nĐường uống:\nNgười lớn: 1 g.\nTrẻ em dưới 12 tuổi: 15 mg/kg.",
        SectionKey.TEN_THUONG_MAI: "Panadol, Efferalgan; Hapacol.",
    })
    ibu = _mono("ibuprofen", "IBUPROFEN", {SectionKey.TEN_THUONG_MAI: "Panadol."})
    index = parse_back_index(["Acetaminophen xem PARACETAMOL", "Aspirin xem ACID ACETYLSALICYLIC"], CONFIG)
    catalog = build_catalog([para, ibu], index, PageMap(printed={3: 101}), CONFIG)
    entry = catalog.entries[0]
    kinds = {(a.text, a.kind) for a in entry.aliases}
    assert {("PARACETAMOL", AliasKind.TITLE), ("Paracetamol", AliasKind.INN), ("Panadol", AliasKind.TRADE_NAME),
            ("Hapacol", AliasKind.TRADE_NAME), ("Acetaminophen", AliasKind.INDEX_ALIAS)} <= kinds
    assert entry.dosage_labels == ["Đường uống", "Người lớn", "Trẻ em dưới 12 tuổi"]
    assert entry.printed_page_range == (101, 101)
    assert catalog.unresolved_aliases == ["Aspirin xem ACID ACETYLSALICYLIC"]
    assert catalog.ambiguous_aliases == ["panadol"]


def test_reassembly_cuts_the_overlap():
    text = "Một. Hai ba. Bốn năm sáu. Bảy."
    assert longest_overlap("Một. Hai ba.", "Hai ba. Bốn") == len("Hai ba.")
    assert reassemble(["Một. Hai ba.", "Hai ba. Bốn năm sáu.", "Bốn năm sáu. Bảy."]) == text


def _line(spans: list[Span], page: int = 0) -> Line:
    return Line(spans, page)


def test_segmenter_inline_heading_colon_hyphen_wrap_and_superscripts():
    from duocthu_ingest.domain.ledger import CoverageLedger
    from duocthu_ingest.domain.segmentation import Scope, Segmenter

    def sp(sid: str, x0: float, y0: float, text: str, bold: bool = False, size: float = 9.0) -> Span:  # noqa: PLR0917
        return Span(sid, 0, 0, 0, 0, (x0, y0, x0 + 6.0 * len(text), y0 + size * 1.3), text, "f", size, bold)

    seg = Segmenter(CONFIG, CoverageLedger(), {}, scope=Scope.MONOGRAPHS)
    lines = [
        _line([sp("t", 50, 80, "GENTAMICIN", True, 10.0)]),
        _line([sp("h", 50, 100, "Tên chung quốc tế", True), sp("r", 160, 100, ": Gentamicin.")]),
        _line([sp("h2", 50, 120, "Chỉ định", True)]),
        _line([sp("a", 50, 135, "Phối hợp với kháng sinh beta-")]),
        _line([sp("b", 50, 147, "lactam và liều 2 m"), sp("sup", 158, 145, "2", size=6.0)]),
    ]
    from duocthu_ingest.domain.layout import group_lines

    merged = group_lines([lines[4].spans[0], lines[4].spans[1]], 0)
    assert len(merged) == 1 and merged[0].text == "lactam và liều 2 m2"
    seg.feed([*lines[:4], merged[0]])
    mono = seg.finish().monographs[0]
    assert mono.drug_name == "GENTAMICIN"
    assert mono.sections[0].key is SectionKey.TEN_CHUNG_QUOC_TE and mono.sections[0].text == "Gentamicin."
    assert mono.sections[1].text == "Phối hợp với kháng sinh beta-lactam và liều 2 m2"


def test_a_heading_wrapped_over_two_lines_opens_one_section():
    from duocthu_ingest.domain.ledger import CoverageLedger
    from duocthu_ingest.domain.segmentation import Scope, Segmenter

    def sp(sid: str, y0: float, text: str, bold: bool = False, size: float = 9.0) -> Span:
        return Span(sid, 0, 0, 0, 0, (50, y0, 50 + 5.0 * len(text), y0 + 12), text, "f", size, bold)

    seg = Segmenter(CONFIG, CoverageLedger(), {}, scope=Scope.MONOGRAPHS)
    seg.feed([_line([sp("t", 80, "DIGOXIN", True, 10.0)]), _line([sp("h", 100, "Chỉ định", True)]),
              _line([sp("x", 112, "Suy tim.")]), _line([sp("h1", 130, "Tác dụng không mong", True)]),
              _line([sp("h2", 142, "muốn (ADR)", True)]), _line([sp("y", 154, "Buồn nôn.")]),
              _line([sp("h3", 170, "Thận trọng", True)]), _line([sp("z", 182, "Suy thận.")])])
    result = seg.finish()
    mono = result.monographs[0]
    assert [(s.key.value, s.text) for s in mono.sections] == [
        ("chi_dinh", "Suy tim."), ("tac_dung_khong_mong_muon", "Buồn nôn."), ("than_trong", "Suy thận.")]
    assert result.unmapped_headings == []


def test_transcription_file_formats():
    from duocthu_ingest.adapters.transcriptions import parse_transcriptions

    by_code = parse_transcriptions({"runs": [{"page": 2, "bbox": [1, 2, 3, 4], "text": "Chỉ định"}],
                                    "pua": {"U+E0FF": "ư"}})
    assert by_code.runs[0].text == "Chỉ định" and by_code.runs[0].bold
    assert by_code.glyph_at(5, (0, 0, 1, 1), "\ue0ff") == "ư"
    placed = parse_transcriptions({"pua": [{"page": 3, "bbox": [10, 10, 20, 20], "char": "U+E001", "text": "ễ"},
                                           {"page": 3, "bbox": [50, 10, 60, 20], "codepoint": "U+E001", "text": "ệ"}]})
    assert placed.glyph_at(3, (12, 12, 40, 18), "\ue001") == "ễ"
    assert placed.glyph_at(3, (45, 12, 70, 18), "\ue001") == "ệ"
    assert placed.glyph_at(4, (12, 12, 40, 18), "\ue001") is None  # never guessed elsewhere
