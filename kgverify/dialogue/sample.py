"""Dialogue sets written against the shipped sample EHR: the sample dialogues
(``kgverify/sample/dialogues/dialogues.jsonl``) and the planted test set. Patient ids in a
fact sheet are pseudonyms keyed by each installation's salt, so these files name the
source's own person id instead (``person``, the OMOP ``person_id``), and ``resolve`` turns
them into ``Dialogue`` records with the pseudonym this installation's ingest gave. Episodes
are days (``day:YYYY-MM-DD``), which need no salt. ``expected`` holds the verdict a reader
gives each mention, for measuring the checker (docs/dialogue.md)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kgverify.config import Settings
from kgverify.dates import DateShift
from kgverify.dialogue.model import Dialogue, DialogueVerdicts, MentionVerdictKind, Turn
from kgverify.ehr.privacy import pseudonym
from kgverify.jsonl import read_models

SOURCE = "omop"  # the sample EHR's reader, whose namespace the pseudonyms carry


class Expected(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: int = Field(ge=0)
    text: str = Field(description="the mention as written in the turn")
    verdict: MentionVerdictKind


class SampleDialogue(BaseModel):
    """A dialogue about a sample patient, named by the source's person id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dialogue_id: str
    person: str = Field(description="the sample EHR's person_id")
    encounter_id: str | None = None
    turns: list[Turn] = Field(min_length=1)
    expected: list[Expected] = Field(default_factory=list)
    note: str = ""

    def resolve(self, salt: str, dates: DateShift | None = None) -> Dialogue:
        """With this installation's pseudonym and, given ``dates``, its dates (a visit
        outside encounters, ``day:YYYY-MM-DD``, as the fact sheets publish it)."""
        patient = pseudonym(salt, f"{SOURCE}:patient", self.person)
        encounter = self.encounter_id
        if dates is not None and encounter is not None:
            encounter = dates.text(patient, encounter)
        return Dialogue(
            dialogue_id=self.dialogue_id,
            patient_id=patient,
            encounter_id=encounter,
            turns=self.turns,
        )


def read_sample(path: Path) -> list[SampleDialogue]:
    return list(read_models(path, SampleDialogue))


def resolve(dialogues: Iterable[SampleDialogue], settings: Settings) -> Iterator[Dialogue]:
    """The dialogues with this installation's pseudonyms and published dates."""
    salt, dates = settings.salt(), settings.date_shift()
    for dialogue in dialogues:
        yield dialogue.resolve(salt, dates)


class VerdictScore(BaseModel):
    """Precision and recall of one verdict over a planted set."""

    verdict: str
    expected: int = Field(description="mentions a reader gave this verdict")
    predicted: int = Field(description="mentions the checker gave this verdict")
    agreed: int
    precision: float | None
    recall: float | None


Pair = tuple[str, str | None, str | None]  # (where, expected verdict, predicted verdict)


def align(planted: Iterable[SampleDialogue], verdicts: Iterable[DialogueVerdicts]) -> list[Pair]:
    """Marked and found mentions paired by overlapping words in the same turn; either side
    None when the other has no partner."""
    found: dict[tuple[str, int], list[tuple[int, int, str, str]]] = {}
    for v in verdicts:
        for turn in v.turns:
            for m in turn.mentions:
                key = (v.dialogue_id, m.turn)
                found.setdefault(key, []).append((m.start, m.end, m.text, m.verdict.value))
    pairs: list[Pair] = []
    used: set[tuple[str, int, int]] = set()
    for d in planted:
        for e in d.expected:
            at = d.turns[e.turn].text.lower().find(e.text.lower())
            end = at + len(e.text)
            where = f"{d.dialogue_id}#{e.turn} {e.text!r}"
            hit = next(
                (
                    f
                    for f in found.get((d.dialogue_id, e.turn), [])
                    if f[0] < end and at < f[1] and (d.dialogue_id, e.turn, f[0]) not in used
                ),
                None,
            )
            if hit is None:
                pairs.append((where, e.verdict.value, None))
                continue
            used.add((d.dialogue_id, e.turn, hit[0]))
            pairs.append((where, e.verdict.value, hit[3]))
    for (dialogue, at), mentions in found.items():
        for start, _end, text, verdict in mentions:
            if (dialogue, at, start) not in used:
                pairs.append((f"{dialogue}#{at} {text!r}", None, verdict))
    return pairs


def score(
    planted: Iterable[SampleDialogue], verdicts: Iterable[DialogueVerdicts]
) -> list[VerdictScore]:
    """Per verdict: a predicted mention agrees when its words overlap those a reader marked
    in the same turn and the verdicts are equal ("penicillin v potassium 500 mg" found for
    "penicillin v potassium" marked); a mention the checker found that overlaps nothing a
    reader marked, or a marked one it missed, counts against precision or recall."""
    pairs = align(planted, verdicts)
    out = []
    for kind in MentionVerdictKind:
        expected = [p for p in pairs if p[1] == kind.value]
        predicted = [p for p in pairs if p[2] == kind.value]
        agreed = sum(1 for p in pairs if p[1] == p[2] == kind.value)
        out.append(
            VerdictScore(
                verdict=kind.value,
                expected=len(expected),
                predicted=len(predicted),
                agreed=agreed,
                precision=round(agreed / len(predicted), 3) if predicted else None,
                recall=round(agreed / len(expected), 3) if expected else None,
            )
        )
    return out
