"""The extractive writer: claims are verbatim paragraphs/sentences of the evidence, chosen for the frame.

No model runs, so nothing is paraphrased: every claim is a substring of the
block it cites (the verifier's deterministic entailment accepts it without a
judge), numbers included.  ``generated`` is false on every draft.
"""

from __future__ import annotations

from collections.abc import Sequence

from duocthu_contracts.answer import Claim, Draft
from duocthu_contracts.evidence import Evidence, Route
from duocthu_contracts.frame import QueryFrame, TurnType
from duocthu_contracts.sections import SectionKey
from duocthu_generation.domain import bands, dosage, overview, patient_case
from duocthu_generation.domain.paragraphs import Paragraph, paragraphs, sentences
from duocthu_generation.domain.writer_input import WriterInput
from duocthu_text.vietnamese import casefold_keep_marks, condition_coverage, fold

PROVIDER = "extractive"
MAX_SENTENCES = {"short": 3, "normal": 8, "full": 40}
CLARIFY_POPULATION = "Bạn cần liều cho đối tượng nào?"
#: A candidate's indication sentence must name most of the condition's words (retrieval's floor, seen again here).
MIN_COVERAGE = 0.67


def write(request: WriterInput) -> Draft:
    paras = paragraphs(request.evidence)
    if request.plan.list_mode:
        claims = _candidate_claims(request, paras)
    elif all(e.section_key is SectionKey.LIEU_LUONG_VA_CACH_DUNG for e in request.evidence):
        return _dosage_draft(request, paras)
    elif request.route is Route.B_OVERVIEW and request.frame.turn_type is TurnType.DRUG_OVERVIEW:
        claims = overview.claims(request, paras)
    elif request.route is Route.D_INTERACTION:
        claims = _interaction_claims(request, paras)
    else:
        claims = _section_claims(paras, MAX_SENTENCES[request.plan.verbosity])
    claims = _cover(claims, paras, request.must_cover)
    return Draft(claims=claims, evidence_sufficient=bool(claims), provider=PROVIDER)


def _claim(p: Paragraph, text: str, evidence: Sequence[Evidence], label: str | None = None) -> Claim:
    return Claim(text=text, citations=[p.evidence_index], drug_id=evidence[p.evidence_index - 1].drug_id,
                 label=label)


def _section_claims(paras: Sequence[Paragraph], limit: int) -> list[Claim]:
    out: list[Claim] = []
    for p in paras:
        if p.label_only:
            continue
        for sentence in sentences(p.text):
            out.append(Claim(text=sentence, citations=[p.evidence_index]))
    return out[:limit]


def _dosage_draft(request: WriterInput, paras: Sequence[Paragraph]) -> Draft:
    """The dose lines of the asked patient's band(s) only; another population never leads (or appears)."""
    frame = request.frame
    asked_with: list[str] = []
    from_rows = False
    if not dosage.population_known(frame) and (named := dosage.condition_lines(paras, frame)):
        chosen = named
    elif not dosage.population_known(frame):
        replies = dosage.quick_replies(paras)
        if len(replies) > 1:
            return Draft(evidence_sufficient=False, clarifying_question=CLARIFY_POPULATION, quick_replies=replies,
                         provider=PROVIDER)
        chosen = [p for p in paras if not p.label_only]
    else:
        selection = dosage.choose(paras, frame)
        chosen, asked_with, from_rows = selection.chosen, selection.ask_with, selection.from_rows
        if selection.band_header is not None and asked_with:
            # a released table is keyed on a value the question did not give: ask for it with the printed bands
            return Draft(evidence_sufficient=False, clarifying_question=dosage.band_question(selection.band_header),
                         quick_replies=asked_with, provider=PROVIDER)
        if any(e.attachments for e in request.evidence) and not _answers_beside_table(selection, frame):
            # a table sits in this section: lines nothing ruled out, or a special state the text has no band
            # for, may be in the table — not answered from the text
            return Draft(evidence_sufficient=False, provider=PROVIDER)
    # a table row carries its own header path; the route printed above the table is not a label over it
    claims = [_claim(p, p.text, request.evidence, None if from_rows else p.route) for p in _distinct(chosen)]
    claims = _cover(claims, paras, request.must_cover)
    if not claims:
        replies = asked_with if len(asked_with) > 1 else dosage.quick_replies(paras)
        return Draft(evidence_sufficient=False, clarifying_question=CLARIFY_POPULATION if replies else None,
                     quick_replies=replies, provider=PROVIDER)
    return Draft(claims=claims, provider=PROVIDER)


def _distinct(lines: list[Paragraph]) -> list[Paragraph]:
    """Without a line repeated inside a longer one (a paragraph cut at a chunk boundary is printed again whole
    at the start of the next part)."""
    return [p for p in lines if not any(o is not p and o.route == p.route and p.text != o.text and p.text in o.text
                                        for o in lines)]


def _answers_beside_table(selection: dosage.Selection, frame: QueryFrame) -> bool:
    """The text holds the patient's own band: known lines, and a special-state line when the patient has one."""
    if selection.from_rows:
        return True  # the table itself, verified as text, printed the patient's band
    if not selection.known:
        return False
    facts = bands.facts_of(frame)
    special = facts.crcl is not None or bool(facts.renal_impaired) or bool(facts.hepatic_impaired) \
        or bool(facts.pregnant) or bool(facts.breastfeeding)
    return not special or any(bands.parse(dosage.scope_of(p)).special for p in selection.chosen)


def _candidate_claims(request: WriterInput, paras: Sequence[Paragraph]) -> list[Claim]:
    """Per candidate: the indication sentence naming the condition, with what the book says about this patient.

    A candidate whose own contraindication section excludes the patient (the allergy, a renal band holding
    the patient's Clcr, pregnancy) has that sentence first, before its indication is shown.  The other findings
    (interactions with the current medicines, the dose line of the patient's renal/hepatic band, precautions)
    follow the indication, a few per drug.  Nothing is ranked and nothing is called safe.
    """
    allowed = set(request.candidate_drug_ids)
    best: dict[str, tuple[tuple[bool, bool, float, int], Claim]] = {}
    order = 0
    for p in paras:
        block = request.evidence[p.evidence_index - 1]
        if block.drug_id not in allowed or p.label_only or block.section_key is not SectionKey.CHI_DINH:
            continue
        for key, sentence in _condition_sentences(p.text, request.frame.condition or ""):
            order -= 1
            ranked = (*key, order)
            if block.drug_id not in best or ranked > best[block.drug_id][0]:
                best[block.drug_id] = (ranked, Claim(text=sentence, citations=[p.evidence_index],
                                                     drug_id=block.drug_id))
    excluded, cautions = patient_case.findings(request, paras)
    seen = [e.drug_id for e in request.evidence]
    out: list[Claim] = []
    for drug_id in sorted(best, key=seen.index):
        out.extend(excluded.get(drug_id, [])[:patient_case.MAX_EXCLUDING])
        out.append(best[drug_id][1])
        out.extend(cautions.get(drug_id, [])[:patient_case.MAX_CAUTIONS])
    return out


def _condition_sentences(text: str, condition: str) -> list[tuple[tuple[bool, bool, float], str]]:
    """The sentences of an indication that name the condition, each with how closely it names it.

    The whole phrase as typed (with its diacritics: "đau đầu" is not "đau"), then the phrase folded, then the
    share of its words.  A sentence that names too little of the condition is never returned, so the first
    sentence of an indication is never the claim by default.
    """
    marked, folded = casefold_keep_marks(condition).strip(" ,."), fold(condition).strip(" ,.")
    if not folded:
        return []
    out = []
    for sentence in sentences(text):
        key = (marked in casefold_keep_marks(sentence), folded in fold(sentence),
               condition_coverage(condition, sentence))
        if key[1] or key[2] >= MIN_COVERAGE:
            out.append((key, sentence))
    return out


def _interaction_claims(request: WriterInput, paras: Sequence[Paragraph]) -> list[Claim]:
    """Sentences of each drug's interaction section that name the other drug."""
    names = {e.drug_id: fold(e.drug_name) for e in request.evidence}
    out: list[Claim] = []
    for p in paras:
        block = request.evidence[p.evidence_index - 1]
        others = [n for d, n in names.items() if d != block.drug_id]
        for sentence in sentences(p.text):
            if any(o and o in fold(sentence) for o in others):
                out.append(Claim(text=sentence, citations=[p.evidence_index], drug_id=block.drug_id))
    return out


def _cover(claims: list[Claim], paras: Sequence[Paragraph], quotes: Sequence[str]) -> list[Claim]:
    """Add the paragraph holding each missing quote (repair after a completeness objection)."""
    out = list(claims)
    for quote in quotes:
        if any(fold(quote) in fold(c.text) for c in out):
            continue
        holder = next((p for p in paras if fold(quote) in fold(p.text)), None)
        if holder is not None:
            out.append(Claim(text=holder.text, citations=[holder.evidence_index], label=holder.route))
    return out
