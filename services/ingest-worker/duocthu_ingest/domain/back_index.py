"""The back index: page entries and "X xem Y" aliases, and validation of detected monographs (seed 003 §18.1).

The index is the book's own list of what it contains, so it is an
independent instrument: every in-scope index entry must be a detected
monograph (recall) and every detected monograph must be in the index
(precision), at the page the index gives.  Entries pointing outside the
monograph part (general chapters, appendices) are out of scope, not misses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.domain.text import heading_key, ws_normalize


@dataclass(frozen=True, slots=True)
class IndexEntry:
    name: str
    page: int


@dataclass(frozen=True, slots=True)
class IndexAlias:
    alias: str
    target: str


@dataclass
class BackIndex:
    entries: list[IndexEntry] = field(default_factory=list)
    aliases: list[IndexAlias] = field(default_factory=list)
    unparsed: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.entries or self.aliases)


def parse_back_index(lines: Iterable[str | tuple[str, bool]], config: IngestConfig) -> BackIndex:
    """Parse index lines in reading order.

    A line matching nothing is carried onto the next (a wrapped entry name
    before its page number).  A line that does not start an entry (layout
    says so) and parses on its own as nothing continues the alias before it
    ("… xem AMOXICILIN VÀ ACID" / "CLAVULANIC").
    """
    alias_re = re.compile(config.index_alias_pattern)
    entry_re = re.compile(config.index_entry_pattern)
    headings = config.back_index()
    index = BackIndex()
    pending = ""
    last_was_alias = False
    for raw in lines:
        raw_text, starts = (raw, True) if isinstance(raw, str) else raw
        line = ws_normalize(raw_text)
        if not line or any(p.match(line) for p in headings):
            continue
        alone = alias_re.match(line) or entry_re.match(line)
        if last_was_alias and not starts and not pending and not alone:
            previous = index.aliases[-1]
            index.aliases[-1] = IndexAlias(previous.alias, f"{previous.target} {line.strip(' .')}")
            continue
        last_was_alias = False
        text = f"{pending} {line}".strip() if pending else line
        alias = alias_re.match(text)
        if alias:
            index.aliases.append(IndexAlias(alias.group("alias").strip(), alias.group("target").strip(" .")))
            pending = ""
            last_was_alias = True
            continue
        entry = entry_re.match(text)
        if entry:
            index.entries.append(IndexEntry(entry.group("name").strip(), int(entry.group("page"))))
            pending = ""
            continue
        if len(line) == 1 and line.isalpha():
            continue  # a letter divider ("A", "B", …)
        pending = text
        if len(pending) > 200:
            index.unparsed.append(pending)
            pending = ""
    if pending:
        index.unparsed.append(pending)
    return index


@dataclass(frozen=True)
class Detected:
    drug_id: str
    name: str
    printed_page: int | None


@dataclass
class IndexValidation:
    entries_in_scope: int = 0
    detected: int = 0
    matched: int = 0
    missing: list[str] = field(default_factory=list)  # indexed, in scope, not detected
    unexpected: list[str] = field(default_factory=list)  # detected, not in the index
    page_mismatches: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.matched / self.entries_in_scope if self.entries_in_scope else 0.0

    @property
    def precision(self) -> float:
        return self.matched / self.detected if self.detected else 0.0

    def to_report(self) -> dict[str, object]:
        return {"entries_in_scope": self.entries_in_scope, "detected": self.detected, "matched": self.matched,
                "recall": round(self.recall, 4), "precision": round(self.precision, 4), "missing": self.missing,
                "unexpected": self.unexpected, "page_mismatches": self.page_mismatches}


def validate_against_index(detected: Sequence[Detected], index: BackIndex,
                           scope: tuple[int, int] | None) -> IndexValidation:
    """``scope``: the printed pages whose monographs this run owns (entries elsewhere are out of scope)."""
    by_name: dict[str, IndexEntry] = {}
    for item in index.entries:
        if scope is None or scope[0] <= item.page <= scope[1]:
            by_name.setdefault(heading_key(item.name), item)
    result = IndexValidation(entries_in_scope=len(by_name), detected=len(detected))
    seen: set[str] = set()
    for mono in detected:
        key = heading_key(mono.name)
        entry = by_name.get(key)
        if entry is None:
            result.unexpected.append(mono.name)
            continue
        seen.add(key)
        result.matched += 1
        if mono.printed_page is not None and entry.page != mono.printed_page:
            result.page_mismatches.append(f"{mono.name}: index p.{entry.page}, title on p.{mono.printed_page}")
    result.missing = [e.name for k, e in by_name.items() if k not in seen]
    return result
