"""Sentence atoms and label contexts (seed 003 §9.3–§9.4)."""

from __future__ import annotations

from duocthu_ingest.adapters.tokenizer import count_tokens
from duocthu_ingest.domain.atoms import Atom, label_contexts, paragraph_label, sentence_atoms, split_long_atom
from duocthu_ingest.domain.config import IngestConfig

CONFIG = IngestConfig()


def texts(text: str) -> list[str]:
    atoms, _ = sentence_atoms(text, CONFIG)
    return [text[a.start:a.end] for a in atoms]


def test_sentences_split_at_sentence_ends_and_paragraphs():
    assert texts("Uống 1 viên. Ngày 2 lần.\nTrẻ em dùng nửa liều.") == [
        "Uống 1 viên.", "Ngày 2 lần.", "Trẻ em dùng nửa liều."]


def test_decimal_comma_numbering_and_abbreviations_do_not_split():
    assert texts("Liều 0,425 g mỗi ngày. Tiếp theo.") == ["Liều 0,425 g mỗi ngày.", "Tiếp theo."]
    assert texts("1. Nhiễm khuẩn đường hô hấp. 2. Nhiễm khuẩn da.") == [
        "1. Nhiễm khuẩn đường hô hấp.", "2. Nhiễm khuẩn da."]
    assert texts("Kháng sinh, thuốc chống nấm v.v. Dùng thận trọng.") == [
        "Kháng sinh, thuốc chống nấm v.v. Dùng thận trọng."]
    assert texts("Nhiễm E. coli và S. aureus nhạy cảm.") == ["Nhiễm E. coli và S. aureus nhạy cảm."]


def test_a_label_ending_never_ends_an_atom():
    text = "Đường uống:\nNgười lớn: 500 mg mỗi 8 giờ. Tối đa 4 g."
    assert texts(text) == ["Đường uống:\nNgười lớn: 500 mg mỗi 8 giờ.", "Tối đa 4 g."]


def test_paragraph_labels():
    assert paragraph_label("Người lớn: 500 mg.", CONFIG) == "Người lớn:"
    assert paragraph_label("Suy thận (Clcr 10 – 30 ml/phút): giảm liều.", CONFIG) == "Suy thận (Clcr 10 – 30 ml/phút):"
    assert paragraph_label("Dùng thuốc như sau: uống.", CONFIG) == "Dùng thuốc như sau:"
    assert paragraph_label("Thuốc có tác dụng giảm đau. Dùng: uống.", CONFIG) is None
    assert paragraph_label("liều thấp: uống.", CONFIG) is None


def test_label_contexts_follow_route_and_population_scopes():
    text = ("Tiêm tĩnh mạch:\nNgười lớn: 1 g. Tối đa 4 g.\nTrẻ em:\nDưới 1 tuổi: 10 mg/kg. Theo dõi.\n"
            "Người cao tuổi: giảm liều. Theo dõi.\nĐường uống: 500 mg. Sau ăn.")
    atoms, paras = sentence_atoms(text, CONFIG)
    ctx = {text[a.start:a.end]: c for a, c in zip(atoms, label_contexts(atoms, paras, CONFIG), strict=True)}
    assert ctx["Tối đa 4 g."].scope == ("Tiêm tĩnh mạch:",) and ctx["Tối đa 4 g."].paragraph == "Người lớn:"
    assert ctx["Theo dõi."].scope in {("Tiêm tĩnh mạch:", "Trẻ em:"), ("Tiêm tĩnh mạch:",)}
    first_theo_doi = [c for a, c in zip(atoms, label_contexts(atoms, paras, CONFIG), strict=True)
                      if text[a.start:a.end] == "Theo dõi."]
    assert first_theo_doi[0].scope == ("Tiêm tĩnh mạch:", "Trẻ em:")  # under the children's scope
    assert first_theo_doi[1].scope == ("Tiêm tĩnh mạch:",)  # "Người cao tuổi:" is a sibling of "Trẻ em:"
    assert ctx["Sau ăn."].scope == () and ctx["Sau ăn."].paragraph == "Đường uống:"  # a new route ends the old


def test_long_comma_list_splits_at_commas_within_the_limit():
    text = "Tương tác với " + ", ".join(f"thuốc số {i}" for i in range(300)) + "."
    atom = Atom(0, len(text), 0, True)
    pieces = split_long_atom(text, atom, 200, count_tokens)
    assert len(pieces) > 1
    assert all(count_tokens(text[p.start:p.end]) <= 200 for p in pieces)
    assert all(text[p.start:p.end].endswith((",", ".")) for p in pieces)
    assert " ".join(text[p.start:p.end] for p in pieces) == text
