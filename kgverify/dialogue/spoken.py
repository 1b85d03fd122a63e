"""A patient turn's mentions as the checker holds them (``SpokenMention``), the numbers said
bound to them by syntax (``owner``: a dose to the drug it follows in its clause or sentence,
a number without a unit only where it names a strength), and the record's codes said aloud
(``spoken_codes``); docs/dialogue.md, "How a turn is read"."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from spacy.tokens import Doc

from kgverify.derive.model import SheetFact
from kgverify.dialogue.matcher import Match
from kgverify.dialogue.model import Evidence, MentionVerdict, MentionVerdictKind
from kgverify.dialogue.negation import Cues, clause_start, sentence_bounds
from kgverify.dialogue.numbers import Quantity, is_dose
from kgverify.dialogue.record import RecordView, code_key
from kgverify.graph.model import Kind
from kgverify.link.model import MentionLink

DRUG_KINDS = frozenset({Kind.INGREDIENT, Kind.DRUG_PRODUCT, Kind.BRAND, Kind.SUBSTANCE})


@dataclass
class SpokenMention:
    match: Match
    link: MentionLink
    cues: Cues
    ids: list[str]  # the linked concept and its equivalents, else every candidate
    kinds: set[str]
    numbers: list[Quantity] = field(default_factory=list)
    proposed: bool = False  # a span the linker resolved, not a name the matcher found
    groups: list[tuple[str, list[str], set[str]]] = field(default_factory=list)
    # an ambiguous mention's candidates: (name, ids, kinds) per concept, best first


def spoken_codes(
    doc: Doc,
    text: str,
    record: RecordView,
    turn: int,
    mentions: list[SpokenMention],
    counterparts: Callable[[], Mapping[str, tuple[str, SheetFact]]] | None = None,
) -> list[MentionVerdict]:
    """A code of the record said aloud, of any of its systems ("65363002", LOINC "718-7",
    ICD-10-CM "I48.91", an RxNorm or NDC code), as written or with its system
    ("ICD10CM:I48.91"), or a code the graph maps a fact's concept to (``counterparts``, by
    ``code_key``: "I48.91" for a fact recorded in SNOMED CT; asked only for a code of three
    characters or more the record does not hold): a leak. A code of under five
    digits only after a word that says it is one ("code 161", "RxNorm 161"), so that "my
    sugar was 161" is a number."""
    covered = [(m.match.span.start_char, m.match.span.end_char) for m in mentions]
    codes = record.codes
    out = []
    for found in CODE.finditer(text):
        key = code_key(found.group("code"))
        fact = codes.get(key)
        code = fact.code if fact is not None else ""
        if fact is None and counterparts is not None and len(key) >= 3 and key in counterparts():
            mapped, fact = counterparts()[key]
            code = f"{mapped}, which the graph maps to {fact.code}"
        if fact is None or any(a <= found.start() < b for a, b in covered):
            continue
        if key.isdigit() and len(key) < 5 and not found.group("system"):
            before = doc[: token_at(doc, found.start())]
            if not any(t.lower_ in CODE_WORDS for t in before[-2:]):
                continue
        out.append(
            MentionVerdict(
                turn=turn,
                start=found.start(),
                end=found.end(),
                text=found.group(0),
                kind="code",
                verdict=MentionVerdictKind.LEAK,
                reason=f"a code of the record ({code}, {fact.section})",
                evidence=[
                    Evidence(
                        fact_id=fact.fact_id,
                        section=fact.section,
                        fact_text=fact.text,
                        fact_concept=fact.concept_id,
                        via="code",
                    )
                ],
            )
        )
    return out


CODE = re.compile(
    r"(?<![\w.:/-])(?:(?P<system>[A-Za-z][A-Za-z0-9-]{1,10}):\s?)?"
    r"(?P<code>[A-Za-z]{0,3}\d[A-Za-z0-9]*(?:[.-][A-Za-z0-9]+)*)(?![\w-])"
)
"""Something said that may be a code: a digit, maybe letters before it ("I48.91"), groups
joined by dots or hyphens ("718-7", "0093-0058-01"), maybe after its system."""
CODE_WORDS = frozenset(
    {"code", "codes", "snomed", "loinc", "icd", "icd-10", "icd10", "icd-9", "icd10cm",
     "rxnorm", "rxcui", "ndc"}
)  # fmt: skip


DOSE_BEFORE = frozenset({"of", "the", "my", "that", "this", "your"})
"""Between a dose and the drug after it ("5 mg of warfarin", "81 mg aspirin")."""
BARE_AFTER = frozenset(
    {",", "is", "'s", "was", "at", "dose", "of", "about", "around", "my", "the", "it", "-", ":"}
)
"""Between a drug and a number without a unit that is its strength ("Coumadin 5", "my
Coumadin dose is 5")."""
COUNTS = frozenset(
    {"pill", "pills", "tablet", "tablets", "tab", "tabs", "capsule", "capsules", "times",
     "time", "puff", "puffs", "drop", "drops", "units", "a", "per", "each", "every", "x",
     "doses", "of"}
)  # fmt: skip
"""After a number without a unit: it counts ("5 a day", "2 tablets"), it is no strength."""


def takes_dose(m: SpokenMention) -> bool:
    return bool(m.kinds & {k.value for k in DRUG_KINDS})


def token_at(doc: Doc, char: int) -> int:
    """The index of the token holding character ``char``."""
    span = doc.char_span(char, char + 1, alignment_mode="expand")
    return span.start if span is not None else len(doc) - 1


COORDINATORS = frozenset({"and", "but", "or"})
"""Words that join a clause's parts: a time said before one of them dates nothing after."""


def owner(doc: Doc, mentions: list[SpokenMention], q: Quantity) -> SpokenMention | None:
    """The mention a said number belongs to. A dose, or a number without a unit, goes to a
    drug as syntax says (``_drug_for``); a number without a unit that no drug takes, and
    every other number (a temperature, a weight), to the nearest mention of its clause; a
    duration to the nearest one before it, else to one after it, never across "and"."""
    at, last = token_at(doc, q.start), token_at(doc, q.end - 1)
    if is_dose(q) or q.dimension is None:
        drug = drug_for(doc, mentions, q, at, last)
        if drug is not None or is_dose(q):
            return drug
    clause = clause_start(doc, at)
    fits = [
        m
        for m in mentions
        if clause_start(doc, m.match.span.start) == clause
        and (q.dimension is not None or not takes_dose(m))
    ]
    if q.dimension == "duration":
        # A time is said after what it dates ("an ulcer since eight years ago and ulcerative
        # colitis": the ulcer's); one said first dates what follows it, not across "and"
        # ("four years ago, and there's my arthritis": not the arthritis').
        before = [m for m in fits if m.match.span.end <= at]
        if before:
            near = max(before, key=lambda m: m.match.span.end)
            # Nor across "and" when nothing is named after it: "a GI bleed in 1950 and spent
            # a week in the hospital" dates the stay, not the bleed.
            if any(t.lower_ in COORDINATORS for t in doc[near.match.span.end : at]):
                return None
            return near
        fits = [
            m
            for m in fits
            if not any(t.lower_ in COORDINATORS for t in doc[last + 1 : m.match.span.start])
        ]
    return min(fits, key=lambda m: gap(m, q)) if fits else None


def drug_for(
    doc: Doc, mentions: list[SpokenMention], q: Quantity, at: int, last: int
) -> SpokenMention | None:
    """The drug a dose follows in its sentence ("Coumadin, five milligrams, and digoxin":
    Coumadin's, never digoxin's), or the one it names right after ("5 mg of warfarin"); in a
    sentence without a drug ("I take digoxin. It's 0.125 mg."), the last drug of the
    sentence before. A number without a unit only right after its drug in its clause and
    not counting something ("Coumadin 5", not "2 aspirin" nor "Coumadin, 2 a day")."""
    drugs = [m for m in mentions if takes_dose(m)]
    first, stop = sentence_bounds(doc, doc[at : last + 1])
    if is_dose(q):
        k = last + 1
        while k < stop and doc[k].lower_ in DOSE_BEFORE:
            k += 1
        ahead = next((m for m in drugs if m.match.span.start == k), None)
        if ahead is not None:
            return ahead
    before = [m for m in drugs if first <= m.match.span.start and m.match.span.end <= at]
    if before:
        drug = max(before, key=lambda m: m.match.span.end)
        if is_dose(q):
            return drug
        between = doc[drug.match.span.end : at]
        after = doc[last + 1].lower_ if last + 1 < len(doc) else ""
        if all(t.lower_ in BARE_AFTER for t in between) and after not in COUNTS:
            return drug
        return None
    if not is_dose(q) or first == 0 or any(first <= m.match.span.start < stop for m in drugs):
        return None
    previous = sentence_bounds(doc, doc[first - 1 : first])[0]
    earlier = [m for m in drugs if previous <= m.match.span.start and m.match.span.end <= first]
    return max(earlier, key=lambda m: m.match.span.end) if earlier else None


def gap(m: SpokenMention, q: Quantity) -> int:
    span = m.match.span
    if q.start >= span.end_char:
        return q.start - span.end_char
    return span.start_char - q.end + 1  # a number before its name counts a little less near
