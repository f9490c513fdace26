"""Matching drug names only where the query has an alias's first word finds exactly what every window did.

``DrugMatcher.find`` visits, for each alias, only the positions where the query has the alias's first word
(issue 20: scanning every window for every alias was most of the understanding stage's CPU).  Held here to
the full scan over the sample catalog: every alias typed as printed, folded, upper-cased, inside questions,
next to other names and to unknown words, and random word sequences made of alias words.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from duocthu_contracts.frame import DrugRef, MatchKind
from duocthu_text.vietnamese import fold
from duocthu_understanding.domain.matcher import DrugMatcher, Match, syllable_words
from tests.fixtures.understanding import sample_catalog

MATCHER = DrugMatcher(sample_catalog())
ALIAS_WORDS = sorted({w for a in MATCHER._aliases for w in a.words})


def full_scan(matcher: DrugMatcher, text: str) -> tuple[list[Match], list[str]]:
    """``find`` as it was: every alias tried at every window of the query (the typo pass after it is shared)."""
    words = syllable_words(text)
    folded = [fold(w) for w in words]
    taken = [False] * len(words)
    found: list[Match] = []
    for alias in matcher._aliases:
        n = len(alias.words)
        for start in range(len(words) - n + 1):
            if any(taken[start:start + n]):
                continue
            window, window_folded = tuple(words[start:start + n]), tuple(folded[start:start + n])
            if window == alias.words:
                kind = alias.kind
            elif window_folded == alias.folded:
                kind = alias.kind if alias.kind is not MatchKind.EXACT else MatchKind.FOLDED
            else:
                continue
            taken[start:start + n] = [True] * n
            found.append(Match(DrugRef(drug_id=alias.drug_id, drug_name=alias.drug_name,
                                       matched_text=" ".join(words[start:start + n]), match_kind=kind),
                               start, start + n))
    return matcher.resolve_rest(words, folded, taken, found)  # unchanged by the start index: shared


def test_every_alias_in_questions_is_found_as_by_the_full_scan() -> None:
    aliases = [" ".join(a.words) for a in MATCHER._aliases]
    for i, name in enumerate(aliases):
        other = aliases[(i * 7 + 3) % len(aliases)]
        for question in (f"Liều {name} cho người lớn?", fold(name), name.upper(), f"{name} và {other} có tương tác?",
                         f"{other} {name} xyzcilin", f"Chống chỉ định của {name[:-1]}?"):
            assert MATCHER.find(question) == full_scan(MATCHER, question), question


@settings(max_examples=300)
@given(st.lists(st.sampled_from([*ALIAS_WORDS, "liều", "và", "paracetamolx", "amoxicilim", "thuốc", "?"]),
                max_size=12).map(" ".join))
def test_any_sequence_of_alias_words_is_matched_as_by_the_full_scan(question: str) -> None:
    assert MATCHER.find(question) == full_scan(MATCHER, question)
