"""The drug catalog: names a user may type for each monograph, and its dosage labels (seed 003 §8.4).

Aliases come from the book only: the title, the international name, the
trade-name section and the back index's "X xem Y".  An index alias whose
target is no monograph is *unresolved*; an alias text that names more than
one drug is *ambiguous*.  Both are reported, never guessed.  ``dosage_labels``
are the population/route labels printed at paragraph starts in the dosage
section; the understanding stage offers them as clarifying quick replies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from duocthu_contracts.corpus import Alias, AliasKind, CatalogEntry, DrugCatalog
from duocthu_contracts.sections import SectionKey
from duocthu_ingest.domain.atoms import paragraphs
from duocthu_ingest.domain.back_index import BackIndex
from duocthu_ingest.domain.chunker import atc_codes
from duocthu_ingest.domain.config import IngestConfig
from duocthu_ingest.domain.model import Monograph
from duocthu_ingest.domain.page_map import PageMap
from duocthu_ingest.domain.text import heading_key, ws_normalize

_LIST_SPLIT = re.compile(r"[;,]\s*|\n")


def names_in(text: str) -> list[str]:
    """A name list as printed ("Panadol; Efferalgan."), without trailing punctuation."""
    out: list[str] = []
    for piece in _LIST_SPLIT.split(text):
        name = ws_normalize(piece).strip(" .")
        if name and len(name) <= 80:
            out.append(name)
    return out


def dosage_labels(monograph: Monograph, config: IngestConfig) -> list[str]:
    section = monograph.section(SectionKey.LIEU_LUONG_VA_CACH_DUNG)
    if section is None:
        return []
    skip = {heading_key(x) for x in config.non_population_labels}
    labels: list[str] = []
    for para in paragraphs(section.text, config):
        if para.label is None:
            continue
        label = para.label.rstrip(":").strip()
        if heading_key(label) not in skip and label not in labels:
            labels.append(label)
    return labels


def build_catalog(monographs: Sequence[Monograph], index: BackIndex, page_map: PageMap,
                  config: IngestConfig, scope: tuple[int, int] | None = None) -> DrugCatalog:
    """``scope``: printed pages this run owns; an alias whose target the index puts elsewhere is left to its owner."""
    index_pages = {heading_key(e.name): e.page for e in index.entries}
    by_title = {heading_key(m.drug_name): m for m in monographs}
    aliases: dict[str, list[Alias]] = {m.drug_id: [Alias(text=m.drug_name, kind=AliasKind.TITLE)] for m in monographs}
    for mono in monographs:
        inn = mono.section(SectionKey.TEN_CHUNG_QUOC_TE)
        if inn is not None:
            aliases[mono.drug_id] += [Alias(text=n, kind=AliasKind.INN) for n in names_in(inn.text)]
        trade = mono.section(SectionKey.TEN_THUONG_MAI)
        if trade is not None:
            aliases[mono.drug_id] += [Alias(text=n, kind=AliasKind.TRADE_NAME) for n in names_in(trade.text)]
    unresolved: list[str] = []
    for item in index.aliases:
        target = by_title.get(heading_key(item.target))
        if target is None:
            page = index_pages.get(heading_key(item.target))
            if scope is not None and page is not None and not scope[0] <= page <= scope[1]:
                continue  # the target monograph belongs to another part of the book
            unresolved.append(f"{item.alias} xem {item.target}")
            continue
        aliases[target.drug_id].append(Alias(text=item.alias, kind=AliasKind.INDEX_ALIAS))
    owners: dict[str, set[str]] = {}
    for drug_id, items in aliases.items():
        for alias in items:
            owners.setdefault(heading_key(alias.text), set()).add(drug_id)
    ambiguous = sorted(k for k, v in owners.items() if len(v) > 1)
    entries: list[CatalogEntry] = []
    for mono in monographs:
        unique: dict[tuple[str, AliasKind], Alias] = {}
        for alias in aliases[mono.drug_id]:
            unique.setdefault((heading_key(alias.text), alias.kind), alias)
        first, last = mono.pages
        printed = (page_map.printed_page(first), page_map.printed_page(last))
        entries.append(CatalogEntry(
            drug_id=mono.drug_id, drug_name=mono.drug_name, aliases=list(unique.values()), atc_codes=atc_codes(mono),
            section_keys=[s.key for s in mono.sections], dosage_labels=dosage_labels(mono, config),
            printed_page_range=(printed[0], printed[1]) if printed[0] is not None and printed[1] is not None else None,
        ))
    return DrugCatalog(entries=entries, unresolved_aliases=unresolved, ambiguous_aliases=ambiguous)
