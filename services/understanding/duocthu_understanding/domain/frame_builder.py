"""From a question (and the conversation so far) to a QueryFrame or a decision (seed 003 §12).

Deterministic, pure and ordered: guards first (prompt extraction, non-human,
out of scope, smalltalk), then drugs from the catalog, then the section cue,
condition and relation, patient context, and the conversation.  The result
is either a frame for retrieval or the turn's end with a specific reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from duocthu_contracts.corpus import DrugCatalog
from duocthu_contracts.decisions import Decision, Reason
from duocthu_contracts.frame import (
    ConditionRelation,
    DrugRef,
    MatchKind,
    PatientContext,
    PrintedBand,
    QueryFrame,
    TurnType,
)
from duocthu_contracts.messages import HistoryTurn
from duocthu_contracts.sections import SectionKey
from duocthu_text.vietnamese import casefold_keep_marks, fold, nfc, normalize_whitespace
from duocthu_understanding.domain import band_reply, cues, patient
from duocthu_understanding.domain.matcher import DrugMatcher, Match

MAX_CLARIFY_STREAK = 4
AGE_REPLIES = ("Dưới 1 tuổi", "1–5 tuổi", "6–12 tuổi", "Trên 12 tuổi")


@dataclass(frozen=True)
class Outcome:
    """A frame to retrieve with, or the turn's end (decision + reason + what to tell the user)."""

    frame: QueryFrame
    decision: Decision | None = None
    reason: Reason | None = None
    message: str = ""
    quick_replies: list[str] = field(default_factory=list)

    @property
    def ends_turn(self) -> bool:
        return self.decision is not None


@dataclass(frozen=True)
class Conversation:
    history: Sequence[HistoryTurn] = ()
    last_frame: QueryFrame | None = None
    clarify_streak: int = 0


def _section(folded: str) -> SectionKey | None:
    return next((key for pattern, key in cues.SECTION_CUES if pattern.search(folded)), None)


def _route(folded: str) -> str | None:
    return next((route for pattern, route in cues.ROUTES if pattern.search(folded)), None)


def _population(folded: str) -> str | None:
    if cues.PEDIATRIC.search(folded):
        return "Trẻ em"
    if cues.ELDERLY.search(folded):
        return "Người cao tuổi"
    if cues.ADULT.search(folded):
        return "Người lớn"
    if cues.RENAL.search(folded):  # "liều … theo độ thanh thải creatinin": the renal lines are asked for
        return "Suy thận"
    if cues.HEPATIC.search(folded):
        return "Suy gan"
    return None


def _condition(question: str, folded: str, drugs: Sequence[Match]) -> str | None:
    """The condition phrase as the user typed it (positions are shared between the NFC and folded text)."""
    m = cues.CONDITION_PHRASE.search(folded)
    if not m:
        return None
    start, end = m.span("condition")
    typed = question[start:end].strip(" ,.-")
    if cut := cues.CONDITION_CUT.search(fold(typed)):  # "gút cấp, suy thận …, đang dùng …": the rest is context
        typed = typed[:cut.start()]
    words = [w for w in typed.split() if fold(w) not in {"thuoc", "benh", "nguoi"}]
    while words and fold(words[-1]) in {"dung", "thi", "nen", "uong", "su", "co"}:
        words.pop()
    typed = " ".join(words)
    for match in drugs:  # a drug's name is not a condition
        typed = typed.replace(match.ref.matched_text, "").strip()
    return typed or None


def _condition_to_look_up(question: str, folded: str) -> str | None:
    """The condition of "X dùng thuốc gì?" / "Thuốc trị X?": the question without its asking words.

    Only the first clause is kept ("đái tháo đường typ 2 có suy thận, …" → "đái tháo đường typ 2"): the rest
    is patient context, read separately.
    """
    keep = [True] * len(folded)
    for m in cues.CONDITION_FRAME_WORDS.finditer(folded):
        keep[m.start():m.end()] = [False] * (m.end() - m.start())
    typed = "".join(ch if k else " " for ch, k in zip(question, keep, strict=True))
    flat = "".join(ch if k else " " for ch, k in zip(folded, keep, strict=True))
    typed, flat = typed.strip(" ?.!:"), flat.strip(" ?.!:")
    typed, flat = normalize_whitespace(typed), normalize_whitespace(flat)
    if cut := cues.CONDITION_CUT.search(flat):
        typed, flat = typed[:cut.start()], flat[:cut.start()]
    while lead := cues.CONDITION_LEAD.match(flat):
        typed, flat = typed[lead.end():], flat[lead.end():]
    typed = typed.strip(" ,.-?")
    if cues.PEDIATRIC.fullmatch(fold(typed)) or cues.ELDERLY.fullmatch(fold(typed)):
        return None  # a population, not a condition
    if re.match(r"giam dau \w", fold(typed)):  # "thuốc nào giảm đau bụng kinh": the pain is the condition
        typed = typed[len("giảm "):]
    return typed if len(typed) >= 3 else None


def _dose_condition(question: str, folded: str) -> str | None:
    """The condition a dose question names ("liều ibuprofen trong gút cấp?"), as typed; never a population."""
    m = cues.DOSE_CONDITION.search(folded)
    if not m or cues.NOT_A_CONDITION.match(m.group("condition")):
        return None
    start, end = m.span("condition")
    typed = question[start:end].strip(" ,.-")
    flat = fold(typed)
    if cues.PEDIATRIC.search(flat) or cues.ELDERLY.search(flat) or cues.ADULT.search(flat) or \
            cues.RENAL.search(flat) or cues.HEPATIC.search(flat):
        return None
    return typed if len(typed) >= 2 else None  # "tả" (cholera) is a condition


def _relation(folded: str) -> ConditionRelation | None:
    return next((rel for pattern, rel in cues.RELATIONS if pattern.search(folded)), None)


def _end(frame: QueryFrame, decision: Decision, reason: Reason, message: str = "",
         replies: Sequence[str] = ()) -> Outcome:
    return Outcome(frame, decision, reason, message, list(replies)[:4])


def understand(question: str, catalog: DrugCatalog, matcher: DrugMatcher,
               conversation: Conversation | None = None, *, chosen: Sequence[str] = ()) -> Outcome:
    """The frame of ``question``; ``chosen``: drug ids picked outside its words (the optional model step).

    A chosen drug stands where the question names none, exactly as if its
    catalog name had been typed; everything else is read from the question.
    """
    conversation = conversation or Conversation()
    text = normalize_whitespace(nfc(question))
    folded = fold(text)
    marked = casefold_keep_marks(text)
    base = QueryFrame(turn_type=TurnType.OUT_OF_SCOPE, standalone_query=text)
    if cues.PROMPT_EXTRACTION.search(folded):
        return _end(base, Decision.ABSTAIN, Reason.PROMPT_EXTRACTION)
    if cues.NON_HUMAN_MARKED.search(marked) or cues.NON_HUMAN_FOLDED.search(folded):
        return _end(base, Decision.ABSTAIN, Reason.NON_HUMAN)
    if cues.OUT_OF_SCOPE_MARKED.search(marked) or cues.OUT_OF_SCOPE_FOLDED.search(folded):
        return _end(base, Decision.ABSTAIN, Reason.OUT_OF_SCOPE)

    last = conversation.last_frame
    if last is not None and (band := band_reply.chosen(text, last)) is not None:
        return Outcome(_band_chosen(text, band, last))

    matches, unknown = matcher.find(text)
    picked = [matcher.named(drug_id) for drug_id in chosen]
    med_span = patient.medication_span(text)
    current = [m for m in matches if med_span and med_span[0] <= _char_start(text, m) < med_span[1]]
    context = patient.extract(text, [m.ref for m in current])
    allergic = [m for m in matches if any(fold(m.ref.matched_text) in fold(a) for a in context.allergies)]
    asked = [m for m in matches if m not in current and m not in allergic]
    # an allergen or a medication the patient takes is context, not the drug asked about
    allergens = {fold(w) for a in context.allergies for w in a.split()}
    in_meds = [w for w in unknown if med_span and fold(w) in folded[med_span[0]:med_span[1]]]
    unknown = [w for w in unknown if fold(w) not in allergens and w not in in_meds]
    if in_meds:
        context = context.model_copy(update={"unresolved_medications": in_meds})

    if not matches and not picked and cues.SMALLTALK.search(folded):
        return _end(base.model_copy(update={"turn_type": TurnType.SMALLTALK}), Decision.ABSTAIN, Reason.SMALLTALK)
    if cues.REVERSE_RELATION.search(folded):
        return _end(base.model_copy(update={"turn_type": TurnType.CONDITION_RELATION,
                                            "condition_relation": ConditionRelation.CAUSES}),
                    Decision.ABSTAIN, Reason.UNSUPPORTED_REVERSE_RELATION)

    section = None if cues.OVERVIEW.search(folded) else _section(folded)
    if section in (SectionKey.THOI_KY_MANG_THAI, SectionKey.THOI_KY_CHO_CON_BU) and cues.DOSE.search(folded):
        section = SectionKey.LIEU_LUONG_VA_CACH_DUNG  # "liều … cho phụ nữ mang thai": her dose line, not the section
    route = _route(folded) if section is SectionKey.LIEU_LUONG_VA_CACH_DUNG else None
    dose_condition = _dose_condition(text, folded) if section is SectionKey.LIEU_LUONG_VA_CACH_DUNG else None
    if dose_condition:  # "Helicobacter pylori" in a dose question is the condition, not an unknown drug
        unknown = [w for w in unknown if fold(w) not in fold(dose_condition).split()]
    population = _population(folded)
    drugs = [m.ref for m in asked] or picked
    # an answer to our own clarifying question ("Trẻ 4 tuổi") continues that question
    answering = last is not None and last.needs_clarify and not matches and not picked
    follow_up = (bool(cues.FOLLOW_UP.search(folded)) or answering) and not cues.NEW_CASE.search(folded)
    depends = False
    if not drugs and last is not None and last.drugs and (follow_up or (section and not unknown)):
        drugs = [d.model_copy(update={"match_kind": MatchKind.CONTEXT}) for d in last.drugs]
        depends = True
    if drugs and section is None and last is not None and follow_up and last.section_key is not None:
        section, depends = last.section_key, True
    if depends and last is not None and population is None and section is SectionKey.LIEU_LUONG_VA_CACH_DUNG \
            and context.age_years is None and context.weight_kg is None:
        population = last.population
    if depends and last is not None:
        context = _merge(last.patient_context, context)
    frame = QueryFrame(
        turn_type=TurnType.DRUG_ATTRIBUTE, drugs=drugs, unknown_drugs=unknown, section_key=section,
        attribute=None, population=population, age_years=context.age_years, weight_kg=context.weight_kg,
        route=route, patient_context=context, standalone_query=_standalone(text, drugs, section, depends),
        depends_on_previous_turn=depends,
    )

    if unknown and not cues.CONDITION_TO_DRUG.search(folded):  # never answer half of a question about a name
        return _end(frame, Decision.ABSTAIN, Reason.UNKNOWN_DRUG, ", ".join(unknown))
    if not drugs and cues.FOLLOW_UP.search(folded) and not cues.CONDITION_TO_DRUG.search(folded):
        return _clarify(frame, conversation, Reason.DRUG_REQUIRED, "Bạn muốn hỏi về thuốc nào?", [])
    if not drugs:
        asks_for_drugs = bool(cues.CONDITION_TO_DRUG.search(folded))
        if asks_for_drugs or (_relation(folded) is ConditionRelation.TREATS
                              and section in (None, SectionKey.CHI_DINH)):
            condition = _condition(text, folded, matches)
            condition = condition or _condition_to_look_up(text, folded)
            if condition:
                return Outcome(frame.model_copy(update={
                    "turn_type": TurnType.CONDITION_TO_DRUG, "condition": condition,
                    "condition_relation": ConditionRelation.TREATS, "section_key": SectionKey.CHI_DINH}))
        if section is not None:
            return _clarify(frame, conversation, Reason.DRUG_REQUIRED, "Bạn muốn hỏi về thuốc nào?", [])
        return _end(frame, Decision.ABSTAIN, Reason.OUT_OF_SCOPE)

    meds = [d for d in context.current_medications if all(d.drug_id != x.drug_id for x in drugs)]
    if meds and section in (None, SectionKey.TUONG_TAC_THUOC) and not cues.CONDITION_TO_DRUG.search(folded):
        # "đang uống clopidogrel …, dùng omeprazol được không?" asks about the pair
        return Outcome(frame.model_copy(update={"turn_type": TurnType.INTERACTION, "drugs": [drugs[0], meds[0]],
                                                "section_key": SectionKey.TUONG_TAC_THUOC}))
    if context.allergies and section is None:
        section = SectionKey.CHONG_CHI_DINH
        frame = frame.model_copy(update={"section_key": section})
    if len(drugs) >= 2 and (cues.INTERACTION.search(folded) or section is SectionKey.TUONG_TAC_THUOC):
        return Outcome(frame.model_copy(update={"turn_type": TurnType.INTERACTION,
                                                "section_key": SectionKey.TUONG_TAC_THUOC}))
    if cues.DOSE_CALC.search(folded):
        return _end(frame.model_copy(update={"turn_type": TurnType.DOSING_CALC}), Decision.ABSTAIN,
                    Reason.DOSE_CALCULATION_NOT_SUPPORTED)
    if section is SectionKey.LIEU_LUONG_VA_CACH_DUNG:
        pediatric = population == "Trẻ em"
        if pediatric and context.age_years is None and context.weight_kg is None:
            replies = _age_replies(catalog, drugs[0].drug_id)
            return _clarify(frame, conversation, Reason.PATIENT_INFO_REQUIRED,
                            "Trẻ bao nhiêu tuổi hoặc nặng bao nhiêu kg?", replies)
        return Outcome(frame.model_copy(update={"condition": dose_condition}) if dose_condition else frame)
    condition = _condition(text, folded, matches)
    relation = _relation(folded)
    if condition and section in (None, SectionKey.CHI_DINH, SectionKey.CHONG_CHI_DINH) and relation is not None:
        return Outcome(frame.model_copy(update={
            "turn_type": TurnType.DRUG_TO_CONDITION if relation is ConditionRelation.TREATS
            else TurnType.CONDITION_RELATION,
            "condition": condition, "condition_relation": relation, "section_key": section}))
    if section is None:
        return Outcome(frame.model_copy(update={"turn_type": TurnType.DRUG_OVERVIEW}))
    return Outcome(frame)


def _band_chosen(text: str, band: PrintedBand, last: QueryFrame) -> QueryFrame:
    """The open question again, now for the band the reply picked (its numbers are not the patient's value)."""
    drugs = [d.model_copy(update={"match_kind": MatchKind.CONTEXT}) for d in last.drugs]
    return last.model_copy(update={
        "drugs": drugs, "patient_context": _merge(last.patient_context, PatientContext(band=band)),
        "standalone_query": _standalone(text, drugs, last.section_key, True), "depends_on_previous_turn": True,
        "needs_clarify": False, "clarify_reason": None, "quick_replies": [], "understood_by": "deterministic"})


def _char_start(text: str, match: Match) -> int:
    """Character offset of a match's first word (word positions come from the same tokenisation)."""
    words = list(re.finditer(r"[^\W_]+(?:[-'][^\W_]+)*", text))
    return words[match.start].start() if match.start < len(words) else len(text)


def _merge(previous: PatientContext, current: PatientContext) -> PatientContext:
    """The previous turn's patient facts, overridden by what this question says."""
    merged = previous.model_dump()
    for key, value in current.model_dump().items():
        if value not in (None, [], False):
            merged[key] = value
    return PatientContext.model_validate(merged)


def _standalone(text: str, drugs: Sequence[DrugRef], section: SectionKey | None, depends: bool) -> str:
    if not depends or not drugs:
        return text
    names = ", ".join(d.drug_name for d in drugs)
    return f"{text} ({names})"


def _age_replies(catalog: DrugCatalog, drug_id: str) -> list[str]:
    """Quick replies from the pediatric labels the drug's dosage section prints (never invented)."""
    entry = next((e for e in catalog.entries if e.drug_id == drug_id), None)
    labels = [lbl for lbl in (entry.dosage_labels if entry else []) if fold(lbl).startswith(("tre", "so sinh"))]
    out: list[str] = []
    for label in labels:
        if label not in out:
            out.append(label)
    return out[:4]


def _clarify(frame: QueryFrame, conversation: Conversation, reason: Reason, message: str,
             replies: Sequence[str]) -> Outcome:
    if conversation.clarify_streak >= MAX_CLARIFY_STREAK:
        return _end(frame.model_copy(update={"needs_clarify": True, "clarify_reason": reason.value}),
                    Decision.ABSTAIN, Reason.CLARIFY_LIMIT_REACHED)
    clarified = frame.model_copy(update={"needs_clarify": True, "clarify_reason": reason.value,
                                         "quick_replies": list(replies)[:4]})
    return _end(clarified, Decision.CLARIFY, reason, message, replies)
