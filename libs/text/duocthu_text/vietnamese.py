"""Vietnamese-aware normalisation: NFC, case, diacritic folding, syllables.

One implementation for every stage, because the index and the query side
must tokenise identically (a sparse vector built with one tokenizer and
queried with another silently matches nothing).
"""

from __future__ import annotations

import re
import unicodedata

_WS_RE = re.compile(r"\s+")
_SYLLABLE_RE = re.compile(r"[^\W_]+", re.UNICODE)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def normalize_whitespace(text: str) -> str:
    return _WS_RE.sub(" ", text).strip()


#: The Combining Diacritical Marks block: every Vietnamese tone and vowel mark after NFD (all category Mn).
_COMBINING_RE = re.compile("[\u0300-\u036f]+")
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")


def _unless_mark(match: re.Match[str]) -> str:
    return "" if unicodedata.category(match.group()) == "Mn" else match.group()


def fold(text: str) -> str:
    """Lower-case and strip diacritics ("Đái tháo đường" -> "dai thao duong").

    ``đ`` has no canonical decomposition, so it is mapped explicitly.  Every
    nonspacing mark (category Mn) is removed: the common block by one regex,
    and only when something other than ASCII is left is each remaining
    character's category looked up (issue 20: a per-character category
    lookup over whole cited blocks was the verifier's largest cost).
    """
    text = nfc(text).lower().replace("đ", "d")
    stripped = _COMBINING_RE.sub("", unicodedata.normalize("NFD", text))
    if not stripped.isascii():
        stripped = _NON_ASCII_RE.sub(_unless_mark, stripped)
    return unicodedata.normalize("NFC", stripped)


def casefold_keep_marks(text: str) -> str:
    """NFC + lower case, diacritics kept (the sparse index's primary form)."""
    return nfc(text).lower()


def syllables(text: str) -> list[str]:
    """Vietnamese is written one syllable per space-separated token; words span syllables."""
    return _SYLLABLE_RE.findall(casefold_keep_marks(text))


def has_diacritics(text: str) -> bool:
    return fold(text) != nfc(text).lower()


def lexical_coverage(phrase: str, text: str) -> float:
    """Share of ``phrase``'s syllables (diacritics folded) that occur in ``text``.

    How much of a condition a passage names, whatever its punctuation or word
    order ("trào ngược dạ dày – thực quản" vs "trào ngược dạ dày thực quản").
    """
    words = [fold(w) for w in syllables(phrase) if len(w) > 1]
    if not words:
        return 0.0
    haystack = {fold(w) for w in syllables(text)}
    return sum(1 for w in words if w in haystack) / len(words)


#: Words that frame a condition rather than name it ("nhiễm", "bệnh"): a passage need not repeat them ("Diệt
#: Helicobacter pylori" names "nhiễm Helicobacter pylori").  "hạ"/"giảm" stay: "hạ sốt" is not every fever.
CONDITION_FRAME_SYLLABLES = frozenset({"nhiem", "benh", "bi", "chung", "tri", "dieu", "chua", "mac"})


def condition_coverage(condition: str, text: str) -> float:
    """Share of the syllables that name ``condition`` occurring in ``text``, diacritics compared when typed.

    ``lexical_coverage`` folds, and folding merges syllables a condition depends on ("đau đầu" folds to "dau
    dau": any pain would cover it); a condition typed with its diacritics is matched with them.  The words that
    only frame a condition are left out while something else remains.
    """
    marked = has_diacritics(condition)
    form = casefold_keep_marks if marked else fold
    words = [w for w in syllables(condition) if len(w) > 1]
    named = [w for w in words if fold(w) not in CONDITION_FRAME_SYLLABLES] or words
    if not named:
        return 0.0
    haystack = {form(w) for w in syllables(text)}
    return sum(1 for w in named if form(w) in haystack) / len(named)
