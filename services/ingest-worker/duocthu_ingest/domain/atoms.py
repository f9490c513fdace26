"""Sentence atoms of a section (seed 003 §9.3) and the population/route labels they sit under (§9.4).

An atom is a half-open slice ``[start, end)`` of the section text, so a chunk
made of atoms is an exact substring of the source (``source_text``).  Atoms
end at sentence ends and paragraph ends, except that a decimal comma, an
enumerator ("1.", "a)"), an abbreviation ("v.v.") and a ``label:`` ending
never end an atom: a label must stay with what it labels.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from duocthu_ingest.domain.config import IngestConfig

_SENTENCE_END = re.compile(r"[.!?…](?=[\"”’)\]]*\s+[\"“(\[–•\-]?[0-9A-ZÀ-ỸĐ])")
_ENUMERATOR = re.compile(r"^(\(?\d{1,3}[.)]|\(?[a-zđ][.)]|[IVXLC]{1,5}\.)$")
_LABEL = re.compile(r"^(?P<label>[^:;.!?]{1,120}?):(\s|$)")
_SPLIT_SOFT = re.compile(r"[;,](?=\s)")

TokenCounter = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class Atom:
    start: int
    end: int
    paragraph: int
    first_in_paragraph: bool


@dataclass(frozen=True, slots=True)
class Paragraph:
    start: int
    end: int
    label: str | None  # "Người lớn:" as printed, when the paragraph starts with a label
    label_only: bool  # the paragraph is nothing but a label (it scopes what follows)


def paragraph_label(text: str, config: IngestConfig) -> str | None:
    """The label printed at the start of a paragraph ("Trẻ em dưới 12 tuổi:"), if any."""
    match = _LABEL.match(text)
    if match is None:
        return None
    label = match.group("label").strip()
    if not label or len(label) > config.label_max_chars or len(label.split()) > config.label_max_words:
        return None
    if not label[0].isupper():
        return None
    return label + ":"


def paragraphs(text: str, config: IngestConfig) -> list[Paragraph]:
    out: list[Paragraph] = []
    start = 0
    for piece in text.split("\n"):
        end = start + len(piece)
        label = paragraph_label(piece, config)
        out.append(Paragraph(start, end, label, label is not None and piece.strip() == label))
        start = end + 1
    return out


def _sentence_ends(text: str, start: int, end: int, abbreviations: frozenset[str]) -> list[int]:
    """Offsets (exclusive) where a sentence ends inside ``text[start:end]``."""
    ends: list[int] = []
    for match in _SENTENCE_END.finditer(text, start, end):
        cut = match.end()
        word_start = text.rfind(" ", start, cut) + 1
        word = text[max(word_start, start):cut]
        if word in abbreviations:
            continue
        before = text[start:max(word_start, start)].rstrip()
        if _ENUMERATOR.match(word) and (not before or before[-1] in ".;:"):
            continue  # "2. Nhiễm khuẩn…": an item number opens, it does not close, a sentence
        ends.append(cut)
    return ends


def sentence_atoms(text: str, config: IngestConfig) -> tuple[list[Atom], list[Paragraph]]:
    abbreviations = frozenset(config.abbreviations)
    paras = paragraphs(text, config)
    atoms: list[Atom] = []
    for index, para in enumerate(paras):
        if para.start == para.end:
            continue
        cuts = [*_sentence_ends(text, para.start, para.end, abbreviations), para.end]
        begin = para.start
        for cut in cuts:
            while begin < cut and text[begin].isspace():
                begin += 1
            if begin < cut:
                atoms.append(Atom(begin, cut, index, begin == para.start))
            begin = cut
    return _merge_label_endings(text, atoms), paras


def _merge_label_endings(text: str, atoms: list[Atom]) -> list[Atom]:
    """An atom ending in ':' (a label, a lead-in) is joined with the atom after it."""
    merged: list[Atom] = []
    pending: Atom | None = None
    for raw in atoms:
        atom = raw
        if pending is not None:
            atom = Atom(pending.start, raw.end, pending.paragraph, pending.first_in_paragraph)
            pending = None
        if text[atom.start:atom.end].rstrip().endswith(":"):
            pending = atom
            continue
        merged.append(atom)
    if pending is not None:
        merged.append(pending)
    return merged


def split_long_atom(text: str, atom: Atom, limit: int, count: TokenCounter) -> list[Atom]:
    """Split an atom over ``limit`` tokens at ';'/',' (long interaction lists), else at spaces."""
    if count(text[atom.start:atom.end]) <= limit:
        return [atom]
    for pattern in (_SPLIT_SOFT, re.compile(r"\s(?=\S)")):
        cuts = [m.end() for m in pattern.finditer(text, atom.start, atom.end)]
        pieces = _greedy(text, atom, cuts, limit, count)
        if pieces is not None:
            return pieces
    return [atom]  # a single unbreakable word over the limit: the oversized gate reports it


def _greedy(text: str, atom: Atom, cuts: Sequence[int], limit: int, count: TokenCounter) -> list[Atom] | None:
    pieces: list[Atom] = []
    begin = atom.start
    last_ok: int | None = None
    for cut in [*cuts, atom.end]:
        if count(text[begin:cut]) <= limit:
            last_ok = cut
            continue
        if last_ok is None or last_ok <= begin:
            return None
        pieces.append(Atom(begin, last_ok, atom.paragraph, atom.first_in_paragraph and begin == atom.start))
        begin = last_ok
        while begin < atom.end and text[begin].isspace():
            begin += 1
        last_ok = cut if count(text[begin:cut]) <= limit else None
        if last_ok is None:
            return None
    if begin < atom.end:
        pieces.append(Atom(begin, atom.end, atom.paragraph, atom.first_in_paragraph and begin == atom.start))
    return pieces


@dataclass(frozen=True, slots=True)
class LabelContext:
    """Labels in force at an atom: route scope, population scope, the paragraph's own label."""

    scope: tuple[str, ...]
    paragraph: str | None


def label_contexts(atoms: Sequence[Atom], paras: Sequence[Paragraph], config: IngestConfig) -> list[LabelContext]:
    """Track the labels in force at every atom (seed 003 §9.4).

    A label-only paragraph scopes the paragraphs after it: a route label
    ("Đường uống:") replaces the whole scope, any other label-only paragraph
    ("Trẻ em:") becomes the population level under the current route.  A
    paragraph's own label governs that paragraph only, and ends the scope it
    is a sibling of: its own route label ends the route scope, its own
    top-level population label ("Người lớn:") ends a population scope
    ("Trẻ em:"), while a sub-label ("Dưới 1 tuổi:") stays under it.
    """
    routes = config.route_labels()
    populations = config.population_labels()
    route: str | None = None
    population: str | None = None
    seen_para = -1
    contexts: list[LabelContext] = []
    for atom in atoms:
        for index in range(seen_para + 1, atom.paragraph + 1):
            label = paras[index].label
            if label is None:
                continue
            is_route = any(p.match(label) for p in routes)
            if paras[index].label_only:
                if is_route:
                    route, population = label, None
                else:
                    population = label
            elif is_route:
                route, population = None, None
            elif any(p.match(label) for p in populations):
                population = None
        seen_para = max(seen_para, atom.paragraph)
        para = paras[atom.paragraph]
        scope = tuple(lbl for lbl in (route, population) if lbl and lbl != para.label)
        own = None if para.label_only else para.label
        contexts.append(LabelContext(scope, own))
    return contexts
