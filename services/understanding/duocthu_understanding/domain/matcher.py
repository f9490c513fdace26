"""Finding the drugs a question names, from the live release's catalog only (seed 003 §12.2).

Matching is on syllables, longest alias first: NFC lower case with
diacritics (exact), then with diacritics folded (typed without them), then a
bounded edit distance on single long words (typos).  A word that looks like
a drug name but matches nothing is reported as unknown — it is never mapped
to the nearest real drug.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from duocthu_contracts.corpus import AliasKind, DrugCatalog
from duocthu_contracts.frame import DrugRef, MatchKind
from duocthu_text.vietnamese import casefold_keep_marks, fold

_WORD_RE = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
#: Vietnamese syllable shape (folded): onset, nucleus, coda.  A word outside it may be a foreign drug name.
_VI_SYLLABLE = re.compile(
    r"^(ngh|ng|nh|ch|gh|gi|kh|ph|qu|th|tr|[bcdghklmnpqrstvx])?"
    r"(oai|oay|oeo|uay|uoi|uou|uya|uye|uyu|ieu|iey|yeu|ai|ao|au|ay|eo|eu|ia|ie|iu|oa|oe|oi|oo|ua|ue|ui|uo|uu|uy|ye|"
    r"[aeiouy])(ch|ng|nh|[cmnpt])?$")
#: Non-Vietnamese words that are not drug names (units, lab names, common loanwords).
_NOT_DRUGS = frozenset({
    "mg", "ml", "kg", "mcg", "crcl", "clcr", "egfr", "gfr", "creatinin", "alt", "ast", "inr", "atc", "adr", "ok",
    "vitamin", "covid", "virus", "hiv", "pdf", "sars", "nsaid", "nsaids", "test", "please", "prompt",
    "system", "ignore", "instructions", "previous", "child", "pugh", "aspirin", "gout", "gut", "stress", "online",
    "shop", "ship", "zalo", "facebook", "google", "chatgpt", "bot", "hello", "hi", "thanks", "thank", "you",
    "the", "and", "for", "what", "dose", "drug", "tablet", "iv", "im", "sc", "po", "http", "https", "www", "com",
    "tuýp", "typ", "type", "hba1c", "ldl", "hdl", "ecg", "bmi", "copd", "tsh", "ft4", "nyha", "acid", "acetyl",
})


def syllable_words(text: str) -> list[str]:
    return [w for w in _WORD_RE.findall(casefold_keep_marks(text))]


def looks_foreign(word: str) -> bool:
    """A word that is not a Vietnamese syllable, a number or a known non-drug (a candidate drug name)."""
    folded = fold(word).replace("-", "")
    if len(folded) < 6 or not folded.isalpha() or folded in _NOT_DRUGS:
        return False
    return not _VI_SYLLABLE.match(folded)


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, giving up (limit + 1) once every path exceeds ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def typo_limit(word: str) -> int:
    return 0 if len(word) < 5 else 1 if len(word) < 9 else 2


@dataclass(frozen=True)
class _Alias:
    drug_id: str
    drug_name: str
    words: tuple[str, ...]  # marked
    folded: tuple[str, ...]
    kind: MatchKind


@dataclass(frozen=True)
class Match:
    ref: DrugRef
    start: int  # word positions in the query
    end: int


class DrugMatcher:
    def __init__(self, catalog: DrugCatalog) -> None:
        aliases: list[_Alias] = []
        kinds = {AliasKind.TITLE: MatchKind.EXACT, AliasKind.INN: MatchKind.ALIAS,
                 AliasKind.TRADE_NAME: MatchKind.TRADE_NAME, AliasKind.INDEX_ALIAS: MatchKind.ALIAS}
        for entry in catalog.entries:
            forms = [(entry.drug_name, MatchKind.EXACT), (entry.drug_id.replace("_", " "), MatchKind.EXACT)]
            forms += [(a.text, kinds[a.kind]) for a in entry.aliases]
            for text, kind in forms:
                words = tuple(syllable_words(text))
                if words:
                    aliases.append(_Alias(entry.drug_id, entry.drug_name, words, tuple(fold(w) for w in words), kind))
        ambiguous = {fold(a) for a in catalog.ambiguous_aliases}
        self._aliases = [a for a in aliases if " ".join(a.folded) not in ambiguous or a.kind is MatchKind.EXACT]
        self._aliases.sort(key=lambda a: -len(a.words))
        self.names = {e.drug_id: e.drug_name for e in catalog.entries}
        self._single = {a.folded[0]: a for a in self._aliases if len(a.folded) == 1 and len(a.folded[0]) >= 5}

    def find(self, text: str) -> tuple[list[Match], list[str]]:
        """Drugs named in ``text`` (in order of appearance, distinct) and unknown drug-like words."""
        words = syllable_words(text)
        folded = [fold(w) for w in words]
        taken = [False] * len(words)
        found: list[Match] = []
        # an alias can only match where the query has its first word (folded; equal words fold equally), so
        # each alias visits those positions, in the same order, instead of every window of the query
        starts: dict[str, list[int]] = {}
        for i, word in enumerate(folded):
            starts.setdefault(word, []).append(i)
        for alias in self._aliases:
            n = len(alias.words)
            for start in starts.get(alias.folded[0], ()):
                if start > len(words) - n:
                    break
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
        return self.resolve_rest(words, folded, taken, found)

    def resolve_rest(self, words: list[str], folded: list[str], taken: list[bool],
                     found: list[Match]) -> tuple[list[Match], list[str]]:
        """After the aliases: typo matches among the words no alias took (the rest are unknown drug-like
        words), then the drugs in order of appearance, each once.  ``taken`` and ``found`` are extended."""
        unknown: list[str] = []
        for i, word in enumerate(folded):
            if taken[i] or not looks_foreign(words[i]):
                continue
            best = self._typo(word)
            if best is not None:
                taken[i] = True
                found.append(Match(DrugRef(drug_id=best.drug_id, drug_name=best.drug_name, matched_text=words[i],
                                           match_kind=MatchKind.TYPO), i, i + 1))
            else:
                unknown.append(words[i])
        found.sort(key=lambda m: m.start)
        distinct: list[Match] = []
        for match in found:
            if all(m.ref.drug_id != match.ref.drug_id for m in distinct):
                distinct.append(match)
        return distinct, list(dict.fromkeys(unknown))

    def _typo(self, word: str) -> _Alias | None:
        limit = typo_limit(word)
        if limit == 0:
            return None
        # a typo changes a few letters; a longer or shorter word is another name ("paracetamolix")
        scored = sorted(((edit_distance(word, key, limit), key) for key in self._single
                         if abs(len(key) - len(word)) <= 1), key=lambda x: x[0])
        best = [key for d, key in scored if d <= limit and d == scored[0][0]] if scored else []
        if len({self._single[k].drug_id for k in best}) != 1:
            return None  # none, or a tie between two drugs: never guess
        return self._single[best[0]]

    def refs(self, matches: Sequence[Match]) -> list[DrugRef]:
        return [m.ref for m in matches]

    def named(self, drug_id: str) -> DrugRef:
        """``drug_id`` as if its catalog name had been typed (a choice made outside the question's words)."""
        name = self.names[drug_id]
        return DrugRef(drug_id=drug_id, drug_name=name, matched_text=" ".join(syllable_words(name)),
                       match_kind=MatchKind.EXACT)
