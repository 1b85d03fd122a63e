"""Fact sheets for record-grounded simulated patients: per patient and encounter, what the
patient can say (symptoms and recent history in lay words from the vocabularies' synonyms, current
drugs, allergies) kept apart from what only the record holds (the diagnosis to be found,
other conditions, lab values, procedures, codes). Only grounded facts enter (coded to an
active vocabulary concept); a diagnosis is one a passed assertion rests on. Every fact keeps
its source row, concept and verdict; each sheet is checked for contradictions (a current
drug the vocabulary says is contraindicated for a condition of the visit, an assertion the
verifier contradicted) and for dates out of order."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache

from kgverify.config import Settings
from kgverify.derive.model import EncounterSheet, FactSheet, FactsReport, SheetCheck, SheetFact
from kgverify.derive.records import Episode, PatientRecord, RecordFact
from kgverify.derive.splits import split_of
from kgverify.graph.driver import batched
from kgverify.verify.verifier import Verifier, lay_synonyms

PATIENT_SECTIONS = ("symptom", "history", "current_drug", "allergy")


@lru_cache(maxsize=100_000)
def _lay_word(names: tuple[str, ...], preferred: str | None) -> str | None:
    """A concept's first lay synonym, computed once per concept (facts repeat concepts)."""
    words = lay_synonyms([list(names)], preferred)
    return words[0] if words else None


def _lay(fact: RecordFact) -> str:
    return (_lay_word(fact.names, fact.concept_name) or fact.text).lower()


def _sheet_fact(
    fact: RecordFact, section: str, passed: dict[str, list[str]], *, lay: bool
) -> SheetFact:
    assertions = passed.get(fact.id, [])
    return SheetFact(
        fact_id=fact.id,
        section=section,
        text=_lay(fact) if lay else fact.text,
        concept_id=str(fact.concept),
        code=f"{fact.code_system}:{fact.code}",
        start=fact.start,
        end=fact.end,
        value=fact.value,
        unit=fact.unit,
        flag=fact.flag,
        source_table=fact.source_table,
        source_row=fact.source_row,
        assertions=assertions,
        verdict="supported" if assertions else "grounded",
    )


def _current(fact: RecordFact, episode: Episode) -> bool:
    """A drug started by the episode's day and not ended before it."""
    day = episode.start or ""
    return (fact.start or "")[:10] <= day and (fact.end is None or fact.end[:10] >= day)


class SheetBuilder:
    """Builds and checks the sheets of a page of patients at a time."""

    def __init__(self, verifier: Verifier, settings: Settings) -> None:
        self.verifier = verifier
        self.seed = settings.derive_seed
        self.splits = settings.derive_splits
        self.history = settings.derive_history
        self.report = FactsReport()
        self._facts: Counter[str] = Counter()
        self._excluded: Counter[str] = Counter()
        self._checks: Counter[str] = Counter()

    def build(self, records: Iterable[PatientRecord]) -> Iterator[FactSheet]:
        for page in batched(records, 200):
            drafts = [self._draft(record) for record in page]
            contradictions = self._contraindications(drafts)
            for (record, encounters, checks), found in zip(drafts, contradictions, strict=True):
                checks = checks + found
                for check in checks:
                    self._checks[check.kind] += 1
                self.report.sheets += 1
                self.report.encounters += len(encounters)
                yield FactSheet(
                    patient_id=record.patient_id,
                    split=split_of(record.patient_id, self.seed, self.splits),
                    age_band=record.age_band,
                    sex=record.sex,
                    encounters=encounters,
                    checks=checks,
                )
        self.report.facts = dict(sorted(self._facts.items()))
        self.report.excluded = dict(sorted(self._excluded.items()))
        self.report.checks = dict(sorted(self._checks.items()))

    def _draft(
        self, record: PatientRecord
    ) -> tuple[PatientRecord, list[EncounterSheet], list[SheetCheck]]:
        self.report.patients += 1
        passed: dict[str, list[str]] = {}
        diagnosed: set[str] = set()
        checks: list[SheetCheck] = []
        for a in record.assertions:
            if a.passed:
                for fact_id, _side in a.facts:
                    passed.setdefault(fact_id, []).append(a.id)
                if a.predicate in ("treats", "indicates"):
                    diagnosed.update(a.side_facts("object"))
            elif a.verdict == "contradicted":
                checks.append(
                    SheetCheck(
                        kind="contradiction",
                        detail=f"the verifier contradicted {a.predicate}: {a.reason}",
                        facts=[f for f, _ in a.facts],
                    )
                )
        for fact in record.facts.values():
            if not fact.grounded:
                self._excluded["not grounded in a vocabulary concept"] += 1
            elif fact.episode == "undated":
                self._excluded["no date and no encounter"] += 1
            if fact.start and fact.end and fact.end[:10] < fact.start[:10]:
                checks.append(
                    SheetCheck(kind="date_order", detail="ends before it starts", facts=[fact.id])
                )
        encounters = []
        # Drugs not ended yet, in record order: episodes come in day order, so a drug ended
        # before one episode's day is ended for every later one and leaves the list.
        alive: list[RecordFact] = []
        allergies: dict[str, SheetFact] = {}
        # A fact's sheet entry is the same in every encounter that shows it: built once.
        built: dict[tuple[str, str, bool], SheetFact] = {}

        def entry(fact: RecordFact, section: str, *, lay: bool) -> SheetFact:
            key = (fact.id, section, lay)
            if key not in built:
                built[key] = _sheet_fact(fact, section, passed, lay=lay)
            return built[key]

        histories = record.histories(self.history)
        for index, episode in enumerate(record.episodes):
            say: list[SheetFact] = []
            record_only: list[SheetFact] = []
            grounded = [f for f in episode.facts if f.grounded]
            for fact in grounded:
                if fact.kind == "condition" and fact.allergy:
                    allergies.setdefault(str(fact.concept), entry(fact, "allergy", lay=True))
                elif fact.kind == "condition" and fact.finding:
                    say.append(entry(fact, "symptom", lay=True))
                elif fact.kind == "condition":
                    section = "diagnosis" if fact.id in diagnosed else "condition"
                    record_only.append(entry(fact, section, lay=False))
                elif fact.kind == "measurement":
                    record_only.append(entry(fact, "lab", lay=False))
                elif fact.kind == "procedure":
                    record_only.append(entry(fact, "procedure", lay=False))
                elif fact.kind == "drug":
                    alive.append(fact)
            day = episode.start or ""
            alive = [f for f in alive if f.end is None or f.end[:10] >= day]
            current = {
                str(f.concept): entry(f, "current_drug", lay=True)
                for f in alive
                if _current(f, episode)
            }
            history = [entry(f, "history", lay=True) for f in next(histories)]
            say += history + list(current.values()) + list(allergies.values())
            for f in say + record_only:
                self._facts[f.section] += 1
            encounters.append(
                EncounterSheet(
                    episode=episode.key,
                    start=episode.start,
                    kind=episode.kind,
                    age_band=record.age_at(index),
                    patient_can_say=say,
                    record_only=record_only,
                )
            )
        return record, encounters, checks

    def _contraindications(
        self, drafts: list[tuple[PatientRecord, list[EncounterSheet], list[SheetCheck]]]
    ) -> list[list[SheetCheck]]:
        """Per sheet: every current drug the rules find contraindicated for a condition or
        diagnosis of the same visit."""
        pairs: dict[tuple[str, str, str], list[tuple[int, str, str, str]]] = {}
        for n, (_record, encounters, _checks) in enumerate(drafts):
            for sheet in encounters:
                drugs = [f for f in sheet.patient_can_say if f.section == "current_drug"]
                conditions = [
                    f for f in sheet.record_only if f.section in ("diagnosis", "condition")
                ]
                for drug in drugs:
                    for condition in conditions:
                        triple = (drug.concept_id, condition.concept_id, "contraindicated_for")
                        pairs.setdefault(triple, []).append(
                            (n, sheet.episode, drug.fact_id, condition.fact_id)
                        )
        found: list[list[SheetCheck]] = [[] for _ in drafts]
        for chunk in batched(list(pairs), 5_000):
            for triple, paths in self.verifier.evidence_for(chunk).items():
                support = [p for p in paths if p.stance == "support"]
                if not support:
                    continue
                for n, episode, drug_fact, condition_fact in pairs[triple]:
                    found[n].append(
                        SheetCheck(
                            kind="contradiction",
                            detail=f"{episode}: {triple[0]} is contraindicated for "
                            f"{triple[1]} ({support[0].rule})",
                            facts=[drug_fact, condition_fact],
                        )
                    )
        return found
