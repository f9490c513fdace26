"""Folding is exactly what it was defined as: NFC, lower case, đ → d, every nonspacing mark removed, NFC.

``fold`` strips marks by a regex over the common block and looks up categories only for what is left; the
index and the query side must fold identically (a sparse term folded one way at indexing and another at query
time silently matches nothing), so the fast form is held to the definition over every code point and over
random text built from Vietnamese letters, marks of every block and other scripts.
"""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from duocthu_text.vietnamese import fold


def defined_fold(text: str) -> str:
    """The definition, character by character (the implementation before issue 20)."""
    text = unicodedata.normalize("NFC", text).lower().replace("đ", "d")
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn"))


def test_every_code_point_folds_as_defined() -> None:
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue  # surrogates cannot be encoded alone
        ch = chr(code)
        assert fold(ch) == defined_fold(ch), hex(code)
        assert fold(f"a{ch}b") == defined_fold(f"a{ch}b"), hex(code)


def test_the_combining_block_is_all_nonspacing_marks() -> None:
    assert all(unicodedata.category(chr(c)) == "Mn" for c in range(0x300, 0x370))


_pieces = st.sampled_from([
    "Người lớn", "ĐÁI THÁO ĐƯỜNG", "đ", "Đ", "ư", "ơ", "\u0301", "\u0323", "\u0309", "\u0303", "\u0300",
    "\u0483", "\u05b0", "\u0e31", "\u1ab0", "\u20d0", "\ufe20", "\u0903", "\u093f", "\u1100", "\u1161", "\u11a8",
    "–", "≤", "µg", "m²", "İ", "Σ", "ß", "ﬁ", "Å", "\u212b", " ", "\n", "500 mg/kg", "x",
])


@given(st.lists(_pieces, max_size=20).map("".join))
def test_vietnamese_and_mixed_text_folds_as_defined(text: str) -> None:
    assert fold(text) == defined_fold(text)


@given(st.text(max_size=40))
def test_any_text_folds_as_defined(text: str) -> None:
    assert fold(text) == defined_fold(text)
