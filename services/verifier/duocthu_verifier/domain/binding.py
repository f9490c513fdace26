"""Binding a claim to the passage it came from: quantities, population, label.

A claim is either *verbatim* — its text, or its text after a label prefix
equal to ``claim.label``, is a whitespace-normalised substring of a cited
block, and that label is in force where the text occurs — or it is bound:

1. **quantities** — every quantity of the claim (value, unit, bound) occurs
   in ONE passage (a sentence or a table row) of one cited block, with the
   labels in force over it, in the order printed there
   (:func:`~duocthu_verifier.domain.quantities.bind_in_order`).  A claim that
   combines quantities from two sentences binds nowhere: it must be verbatim.
2. **population** — among the passages its quantities bind to, one carries
   every population concept the claim names (in the sentence or the labels
   in force; a claim without quantities may draw on its whole paragraph).
3. **label** — ``claim.label`` is null or verbatim one of the labels in force
   over that passage.

Each step narrows the passages of the previous one, so the first step that
leaves none names the rejection: ``unbound_quantity``,
``population_mismatch``, ``unsupported_label``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from duocthu_contracts.answer import Claim
from duocthu_contracts.evidence import Evidence
from duocthu_verifier.domain.passages import EvidenceReading, Passage, leading_label, passages
from duocthu_verifier.domain.populations import foreign, populations
from duocthu_verifier.domain.quantities import Quantity, bind_in_order, quantities
from duocthu_verifier.domain.text import normalized, strip_markers


@dataclass(frozen=True)
class Binding:
    """How a claim relates to the passages of its cited blocks."""

    verbatim: bool
    quantities_bound: bool = True
    population_bound: bool = True
    label_bound: bool = True
    unbound: tuple[Quantity, ...] = ()
    foreign_populations: frozenset[str] = frozenset()
    passage: Passage | None = None


def label_text(label: str) -> str:
    return normalized(label).rstrip(":").strip()


def _occurrence_scopes(text: str, evidence: Sequence[Evidence], citations: Sequence[int],
                       reading: EvidenceReading) -> list[tuple[str, ...]]:
    """Labels in force at each place ``text`` occurs verbatim in a cited block (normalised whitespace)."""
    scopes: list[tuple[str, ...]] = []
    if not text:
        return scopes
    for index in dict.fromkeys(citations):
        if not 1 <= index <= len(evidence):
            continue
        paras = reading.paragraphs(index)
        joined, starts = reading.joined(index)
        at = joined.find(text)
        while at >= 0:
            if not _whole_tokens(joined, at, at + len(text)):
                at = joined.find(text, at + 1)
                continue
            holder = max((i for i, s in enumerate(starts) if s <= at), default=0)
            para = paras[holder]
            scopes.append((*para.scope, *([para.own_label] if para.own_label else [])))
            at = joined.find(text, at + 1)
    return scopes


def _whole_tokens(joined: str, start: int, end: int) -> bool:
    """The match neither starts nor ends inside a word, a number or a unit.

    ``không quá 1,2 g`` is a substring of ``không quá 1,2 g/ngày`` but not the
    book's words: cutting a unit, a decimal or a word changes what is said.
    """
    before = joined[start - 1] if start > 0 else " "
    after = joined[end] if end < len(joined) else " "
    following = joined[end + 1] if end + 1 < len(joined) else " "
    preceding = joined[start - 2] if start > 1 else " "
    first, last = joined[start], joined[end - 1]
    if first.isalnum() and (before.isalnum() or before in "/°%" or (before in ",." and preceding.isdigit())):
        return False
    return not (last.isalnum() and (after.isalnum() or after in "/°%" or (after in ",." and following.isdigit())))


def verbatim(claim: Claim, evidence: Sequence[Evidence], reading: EvidenceReading | None = None) -> bool:
    """The claim, or its text after a ``label:`` prefix, is printed where ``claim.label`` is in force.

    ``reading``: the turn's reading of ``evidence`` when the caller keeps one (each block read once per turn).
    """
    reading = reading if reading is not None else EvidenceReading(evidence)
    text = normalized(strip_markers(claim.text))
    label = label_text(claim.label) if claim.label else None
    for scope in _occurrence_scopes(text, evidence, claim.citations, reading):
        if label is None or label in {label_text(s) for s in scope}:
            return True
    return _label_prefixed(text, label, evidence, claim.citations, reading)


def printed(claim: Claim, evidence: Sequence[Evidence], reading: EvidenceReading | None = None) -> bool:
    """The claim's text is printed in a cited block, whatever its label."""
    reading = reading if reading is not None else EvidenceReading(evidence)
    return bool(_occurrence_scopes(normalized(strip_markers(claim.text)), evidence, claim.citations, reading))


def _label_prefixed(text: str, label: str | None, evidence: Sequence[Evidence], citations: Sequence[int],
                    reading: EvidenceReading) -> bool:
    if label:
        for prefix in (f"{label}:", label):
            if text.startswith(prefix):
                rest = text[len(prefix):].strip()
                if any(label in {label_text(s) for s in scope}
                       for scope in _occurrence_scopes(rest, evidence, citations, reading)):
                    return True
    return False


def _body(p: Passage) -> str:
    """The passage without its own leading label (that label's quantities belong to the scope)."""
    own = leading_label(p.text)
    if own is not None and own in p.scope:
        return p.text.split(":", 1)[1]
    return p.text


def bind(claim: Claim, evidence: Sequence[Evidence], reading: EvidenceReading | None = None) -> Binding:
    reading = reading if reading is not None else EvidenceReading(evidence)
    if verbatim(claim, evidence, reading):
        return Binding(verbatim=True)
    if printed(claim, evidence, reading):
        # the text is the book's, word for word, only the label is not in force where it is printed
        return Binding(verbatim=False, label_bound=False)
    text = strip_markers(claim.text)
    found = passages(evidence, claim.citations, reading)
    wanted = quantities(text)
    if wanted:
        bound = [p for p in found if bind_in_order(wanted, quantities(" ".join(p.scope)), quantities(_body(p)))]
    else:
        bound = list(found)
    if not bound:
        loose = [q for q in wanted if not any(any(q.matches(s) for s in quantities(p.carrier)) for p in found)]
        return Binding(verbatim=False, quantities_bound=False, unbound=tuple(loose or wanted))
    concepts = populations(text)

    def carrier(p: Passage) -> str:
        return p.carrier if wanted else " ".join([*p.scope, p.paragraph_text])

    carried = [p for p in bound if concepts <= populations(carrier(p))]
    if not carried:
        missing = min((foreign(text, carrier(p)) for p in bound), key=len)
        return Binding(verbatim=False, population_bound=False, foreign_populations=missing)
    if claim.label is None:
        return Binding(verbatim=False, passage=carried[0])
    label = label_text(claim.label)
    labelled = [p for p in carried if label in {label_text(s) for s in p.scope}]
    if not labelled:
        return Binding(verbatim=False, label_bound=False)
    return Binding(verbatim=False, passage=labelled[0])
