"""Patient records as derivation sees them, read from the graph a page of patients at a
time: facts grouped into episodes (an encounter, or one day outside encounters: keyed by
``kgverify.ehr.episodes.episode_key``, the episodes both extractors read) and the assertions
about the patient, with the side each of their facts stands on."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from itertools import islice
from typing import TYPE_CHECKING, Any

from kgverify.config import Settings
from kgverify.ehr.episodes import UNDATED, episode_day, episode_key
from kgverify.graph.driver import Graph
from kgverify.runs import resolve_run
from kgverify.verify.model import EvidencePath, VerdictKind

if TYPE_CHECKING:
    from kgverify.verify.verifier import FilterPolicy


# Not frozen: a page holds about 120 facts and 40 assertions per patient, and a frozen
# dataclass's __init__ (one object.__setattr__ per field) costs about four times a plain
# one's. Nothing writes to them after ``_record`` made them.
@dataclass(slots=True)
class RecordFact:
    """A patient fact with its episode and its concept."""

    id: str
    kind: str
    display: str | None
    code_system: str | None
    code: str | None
    start: str | None
    end: str | None
    value: float | str | None
    unit: str | None
    flag: str | None
    source_table: str
    source_row: str
    episode: str
    concept: str | None
    concept_name: str | None
    names: tuple[str, ...]
    kinds: frozenset[str]
    active: bool
    stub: bool
    group: frozenset[str]
    allergy: bool
    # a health care activity (UMLS T058: a review of systems), no clue to a diagnosis
    activity: bool = False

    @property
    def grounded(self) -> bool:
        """Coded to an active concept a loaded vocabulary defines, or to a code one of them
        maps to (a LOINC code inside a UMLS concept)."""
        return self.concept is not None and self.active and (not self.stub or bool(self.group))

    def names_concept(self, concept_id: str) -> bool:
        """The fact's concept is ``concept_id`` or one MAPS_TO step from it."""
        return concept_id == self.concept or concept_id in self.group

    @property
    def text(self) -> str:
        return self.concept_name or self.display or f"{self.code_system}:{self.code}"

    @property
    def finding(self) -> bool:
        """A condition that is a finding (a symptom or sign), not a disorder."""
        return self.kind == "condition" and "finding" in self.kinds and "disorder" not in self.kinds


def _past_condition(fact: RecordFact) -> bool:
    """A fact a patient's history lists: a grounded condition that is not an allergy."""
    return fact.kind == "condition" and fact.grounded and not fact.allergy


@dataclass(slots=True)  # not frozen: see RecordFact
class RecordAssertion:
    """An assertion about the patient as written by the verifier."""

    id: str
    predicate: str
    verdict: str
    passed: bool
    score: float
    reason: str
    rule: str | None
    rule_version: str | None
    subject_id: str | None
    object_id: str | None
    subject_name: str | None
    object_name: str | None
    encounter_id: str | None
    confidence: float
    # The stored evidence paths as JSON: parsed when first asked for (``evidence``), since
    # only a passed treats-assertion's are ever read.
    evidence_json: tuple[str, ...]
    distractors: tuple[str, ...]
    facts: tuple[tuple[str, str | None], ...]  # (fact id, "subject" | "object" | None)
    # A reviewer's decision on the relation: "true" (it passes though the vocabularies do
    # not support it), "false" (it never passes), with the review's id; None when unreviewed.
    review: str | None = None
    review_id: str | None = None
    # False for an assertion a reader read only to count (``RecordReader``'s ``whole``): its
    # id, verdict, passed, score, confidence and review are filled, nothing else.
    whole: bool = True
    _paths: tuple[EvidencePath, ...] | None = field(default=None, repr=False, compare=False)

    @property
    def evidence(self) -> tuple[EvidencePath, ...]:
        """The verifier's evidence paths for the relation."""
        if self._paths is None:
            self._paths = tuple(EvidencePath.model_validate_json(e) for e in self.evidence_json)
        return self._paths

    @property
    def rule_key(self) -> str | None:
        return f"{self.rule}@{self.rule_version}" if self.rule else None

    def side_facts(self, side: str) -> list[str]:
        return [fact for fact, at in self.facts if at == side]


@dataclass
class Episode:
    key: str
    start: str | None
    kind: str | None  # the encounter's kind; None for a day outside encounters
    facts: list[RecordFact] = field(default_factory=list)


@dataclass
class PatientRecord:
    patient_id: str
    age_band: str | None
    sex: str | None
    episodes: list[Episode]
    assertions: list[RecordAssertion]
    facts: dict[str, RecordFact]
    # Every concept a fact of the patient is coded as (the distractor guard's "patient has").
    concepts: frozenset[str] = frozenset()
    # (fact id, role) -> the fact as a question shows it, made once for the patient's
    # candidates by derivation (``qa._context_fact``): most share the patient's history.
    shown: dict[tuple[str, str], Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._at = {episode.key: at for at, episode in enumerate(self.episodes)}
        self._first: dict[str, int] | None = None
        self._problems: dict[int, list[RecordFact]] = {}
        self._conditions: dict[int, tuple[str, ...]] = {}

    def episode_index(self, key: str) -> int | None:
        return self._at.get(key)

    def first_seen(self, concept: str) -> int | None:
        """The first episode with a fact that names ``concept`` (``names_concept``): asked
        per item candidate, so the record is walked once."""
        if self._first is None:
            self._first = {}
            for at, episode in enumerate(self.episodes):
                for fact in episode.facts:
                    for named in (fact.concept, *fact.group):
                        if named is not None:
                            self._first.setdefault(named, at)
        return self._first.get(concept)

    def conditions_upto(self, upto: int) -> list[str]:
        """Concepts of the grounded conditions in episodes 0..``upto``, sorted (a new list
        each call), walked once per episode: a patient's candidates share their episodes."""
        known = self._conditions.get(upto)
        if known is None:
            known = self._conditions[upto] = tuple(
                sorted(
                    {
                        str(f.concept)
                        for e in self.episodes[: upto + 1]
                        for f in e.facts
                        if f.kind == "condition" and f.grounded
                    }
                )
            )
        return list(known)

    def problem_list(self, before: int, limit: int, skip: str | None = None) -> list[RecordFact]:
        """The conditions a question shows: the distinct grounded non-allergy conditions of
        the episodes before ``before`` (``skip``: leave out this concept), those not
        ended by episode ``before`` first, then the ended ones, each part most recent first,
        at most ``limit``. An active problem (a peptic ulcer with no end recorded, years old)
        bears on today's choice; last year's healed sinusitis does not, and ten recent acute
        episodes would otherwise push it out of view."""
        problems = self._problems.get(before)
        if problems is None:
            problems = self._problems[before] = self._problems_before(before)
        # Every occurrence of a concept names ``skip`` alike (its concept and MAPS_TO group
        # decide), so leaving it out after the list was made is leaving it out while making it.
        if skip:
            return [fact for fact in problems if not fact.names_concept(skip)][:limit]
        return problems[:limit]

    def _problems_before(self, before: int) -> list[RecordFact]:
        """``problem_list(before)`` with no limit and nothing skipped: made once per episode,
        as most of a patient's candidates ask for the same ones."""
        now = self.episodes[before].start if before < len(self.episodes) else None
        active: dict[str, RecordFact] = {}
        ended: dict[str, RecordFact] = {}
        for episode in reversed(self.episodes[:before]):
            for fact in episode.facts:
                key = str(fact.concept)
                if not _past_condition(fact) or key in active or key in ended:
                    continue  # the most recent occurrence decides
                if fact.end and now and fact.end[:10] < now[:10]:
                    ended[key] = fact
                else:
                    active[key] = fact
        return [*active.values(), *ended.values()]

    def histories(self, limit: int) -> Iterator[list[RecordFact]]:
        """``history(at, limit)`` for every episode in order, in one pass over the facts:
        the distinct conditions so far, most recent first, kept in an ordered map."""
        recent: OrderedDict[str, RecordFact] = OrderedDict()
        for episode in self.episodes:
            yield list(islice(recent.values(), limit))
            first: dict[str, RecordFact] = {}
            for fact in episode.facts:
                if _past_condition(fact):
                    first.setdefault(str(fact.concept), fact)
            # This episode's block goes in front, in its own fact order.
            for concept, fact in reversed(first.items()):
                recent.pop(concept, None)
                recent[concept] = fact
                recent.move_to_end(concept, last=False)

    def age_at(self, at: int) -> str | None:
        """The age range at episode ``at``: the stored band is the age in the year of the
        first encounter (else of the first fact), so the range moves by the years since."""
        if not self.age_band or not self.episodes:
            return self.age_band
        encounters = [e.start for e in self.episodes if e.kind is not None and e.start]
        first = min(encounters) if encounters else self.episodes[0].start
        now = self.episodes[at].start
        if not first or not now:
            return self.age_band
        return moved_band(self.age_band, int(now[:4]) - int(first[:4]))

    def episode_of(self, assertion: RecordAssertion, side: str) -> str | None:
        """The episode of the facts on one side of an assertion, else its encounter."""
        episodes = sorted(
            {self.facts[f].episode for f in assertion.side_facts(side) if f in self.facts}
        )
        if episodes:
            return episodes[0]
        if assertion.encounter_id and self.episode_index(assertion.encounter_id) is not None:
            return assertion.encounter_id
        return None


# Kept: the screen's age and sex fit asks once per (candidate, distractor) pair, over a
# few hundred distinct bands and moves.
@lru_cache(maxsize=65_536)
def moved_band(band: str, years: int) -> str | None:
    """An age band ``years`` after the year it was stated for. Ages over 89 are never
    shown (HIPAA Safe Harbor): a band reaching past 89 becomes "90+", or "<low>+" while its
    low end is under 90; "90+" stays."""
    if band.endswith("+"):
        return band
    low, high = (int(x) for x in band.split("-"))
    if high + years < 0:
        return None  # before birth: a record error, not an age
    low, high = max(0, low + years), high + years
    if high > 89:
        return "90+" if low >= 90 else f"{low}+"
    return f"{low}-{high}"


LIFE_STAGES = (
    ("child", 18.0),
    ("young adult", 40.0),
    ("middle-aged adult", 65.0),
    ("older adult", math.inf),
)
"""Life stages by the upper bound (exclusive) of the age they cover: what the age and sex
fit of distractors compares (a band is placed by its midpoint)."""


def _bounds(band: str) -> tuple[float, float | None]:
    """An age band's low and high ends; None for the high end of an open band ("90+")."""
    if band.endswith("+"):
        return float(band[:-1]), None
    low, high = band.split("-")
    return float(low), float(high)


@lru_cache(maxsize=4096)
def whole_stage(band: str | None) -> str | None:
    """The life stage that holds the whole age band; None when the band straddles two
    ("12-21": a child or a young adult) or is unknown. What the cohort's evidence of a
    concept at a stage counts: by the midpoint, an emphysema first seen at 21 in a band
    "12-21" made the condition fit children."""
    if not band:
        return None
    low, high = _bounds(band)
    lower = 0.0
    for name, upper in LIFE_STAGES:
        # an open band ("85+") lies wholly only in the stage with no upper end
        if lower <= low and (upper == math.inf if high is None else high < upper):
            return name
        lower = upper
    return None


@lru_cache(maxsize=4096)  # asked once per (candidate, distractor) pair, as moved_band
def life_stage(band: str | None) -> str | None:
    """The life stage of an age band ("40-49", "90+"), by its midpoint; None when unknown."""
    if not band:
        return None
    low, high = _bounds(band)
    middle = low if high is None else (low + high) / 2
    return next(name for name, upper in LIFE_STAGES if middle < upper)


CONCEPT_CACHE = 100_000
"""Concepts whose details are kept between pages (bounded by the vocabularies, not the
patients; cleared when full)."""


def scoped_run(graph: Graph, settings: Settings) -> str | None:
    """The run whose patients a derivation reads (None: every patient), from the
    ``derive_run`` setting; "latest" is looked up (``derive.run`` resolves it once per run,
    so its pages do not: this is for a part used on its own)."""
    return resolve_run(graph, settings.derive_run).run


def patient_pages(graph: Graph, page: int = 200, run: str | None = None) -> Iterator[list[str]]:
    """The patient ids of ``run`` (None: every patient) in id order, ``page`` ids at a
    time (keyset pagination)."""
    after = ""
    while True:
        found = graph.read("derive/patients_page", after=after, limit=page, run=run)
        ids = [row["id"] for row in found]
        if not ids:
            return
        yield ids
        after = ids[-1]


class RecordReader:
    """Reads the records of a page of patients by id, two round trips per page. With a
    ``policy``, whether an assertion passes is decided by it, not read from the graph."""

    def __init__(
        self,
        graph: Graph,
        *,
        allergy_roots: list[str],
        policy: FilterPolicy | None = None,
        whole: list[str] | None = None,
    ) -> None:
        self.graph = graph
        self.allergy_roots = allergy_roots
        self.policy = policy
        # Verdicts whose assertions are read whole besides the passed ones (None: every
        # assertion); the others come with what counting them needs (``RecordAssertion``).
        self.whole = whole
        # Facts share few concepts: their details (names, group, allergy walk) are read once
        # per concept, not once per fact.
        self.concepts: dict[str, FactConcept] = {}

    def read(self, ids: list[str]) -> list[PatientRecord]:
        """The records of ``ids`` (patients the graph does not hold are left out), in the
        order of ``ids``."""
        rows = self.graph.read("derive/patient_records", patients=ids, whole=self.whole)
        used = {f["concept"] for row in rows for f in row["facts"] if f["concept"] is not None}
        if len(self.concepts) + len(used - self.concepts.keys()) > CONCEPT_CACHE:
            self.concepts.clear()
        wanted = sorted(used - self.concepts.keys())
        if wanted:
            for c in self.graph.read(
                "derive/fact_concepts", ids=wanted, allergy_roots=self.allergy_roots
            ):
                self.concepts[c["id"]] = FactConcept.of(c)
        return [_record(row, self.policy, self.concepts) for row in rows]


def read_records(
    graph: Graph,
    *,
    allergy_roots: list[str],
    page: int = 200,
    policy: FilterPolicy | None = None,
    run: str | None = None,
) -> Iterator[PatientRecord]:
    """The records of ``run``'s patients (None: every patient) in id order, ``page``
    patients per round trip. With a ``policy``, whether an assertion passes is decided by
    it, not read from the graph."""
    reader = RecordReader(graph, allergy_roots=allergy_roots, policy=policy)
    for ids in patient_pages(graph, page, run):
        yield from reader.read(ids)


def _record(
    row: dict[str, Any],
    policy: FilterPolicy | None,
    concepts: dict[str, FactConcept] | None = None,
) -> PatientRecord:
    """One patient's record from its ``patient_records`` row and the details of its facts'
    concepts (``fact_concepts`` rows by id)."""
    concepts = concepts or {}
    patient = row["patient"]
    facts = [_fact(f, concepts.get(f["concept"]) if f["concept"] else None) for f in row["facts"]]
    episodes: dict[str, Episode] = {}
    for raw, fact in zip(row["facts"], facts, strict=True):
        episode = episodes.get(fact.episode)
        if episode is None:
            day = _day(raw["encounter_start"]) or episode_day(fact.episode)
            episode = episodes[fact.episode] = Episode(fact.episode, day, None)
        episode.kind = episode.kind or raw["encounter_kind"]
        episode.facts.append(fact)
    ordered = sorted(
        (e for e in episodes.values() if e.key != UNDATED),
        key=lambda e: (e.start or "", e.key),
    )
    return PatientRecord(
        patient_id=patient["id"],
        age_band=patient.get("age_band"),
        sex=patient.get("sex"),
        episodes=ordered,
        assertions=[_assertion(a, policy) for a in row["assertions"]],
        facts={f.id: f for f in facts},
        concepts=frozenset(f.concept for f in facts if f.concept is not None),
    )


def _day(value: Any) -> str | None:
    return str(value)[:10] if value else None


@lru_cache(maxsize=65_536)  # a patient's facts outside encounters share few days
def _day_episode(day: str) -> str:
    """The episode of a fact outside encounters whose start the query sent as a date's text."""
    return episode_key(None, date.fromisoformat(day))


def _native(value: Any) -> Any:
    """A Neo4j temporal value as Python's ``date`` / ``datetime`` (a date the query sends
    as text goes through ``_day_episode``)."""
    return value.to_native() if hasattr(value, "to_native") else value


@dataclass(frozen=True, slots=True)
class FactConcept:
    """What a fact takes from its concept (a ``derive/fact_concepts`` row), made once per
    concept: a page's facts share few concepts."""

    name: str | None
    names: tuple[str, ...]
    kinds: frozenset[str]
    active: bool
    stub: bool
    group: frozenset[str]
    allergy: bool
    activity: bool

    @classmethod
    def of(cls, row: dict[str, Any]) -> FactConcept:
        return cls(
            name=row["name"],
            names=tuple(row["names"]),
            kinds=frozenset(row["kinds"]),
            active=bool(row["active"]),
            stub=bool(row["stub"]),
            group=frozenset(row["group"]),
            allergy=bool(row["allergy"]),
            activity=bool(row["activity"]),
        )


_NO_CONCEPT = FactConcept(None, (), frozenset(), True, False, frozenset(), False, False)


def _fact(raw: dict[str, Any], concept: FactConcept | None) -> RecordFact:
    # An encounter's id is its episode: the start's date is parsed only outside encounters.
    start = raw["start"]
    episode = raw["encounter"] or (
        _day_episode(start) if isinstance(start, str) else episode_key(None, _native(start))
    )
    c = concept or _NO_CONCEPT
    return RecordFact(
        id=raw["id"],
        kind=raw["kind"],
        display=raw["display"],
        code_system=raw["code_system"],
        code=raw["code"],
        start=str(raw["start"]) if raw["start"] else None,
        end=str(raw["end"]) if raw["end"] else None,
        value=raw["value"],
        unit=raw["unit"],
        flag=raw["flag"],
        source_table=raw["source_table"] or "",
        source_row=str(raw["source_row"] or ""),
        episode=episode,
        concept=raw["concept"],
        concept_name=c.name,
        names=c.names,
        kinds=c.kinds,
        active=c.active,
        stub=c.stub,
        group=c.group,
        allergy=c.allergy,
        activity=c.activity,
    )


# What an assertion read only to be counted (``derive/patient_records`` with ``$whole``)
# comes without.
_COUNTED_ONLY: dict[str, Any] = {
    "predicate": "",
    "reason": None,
    "rule": None,
    "rule_version": None,
    "subject_id": None,
    "object_id": None,
    "subject_name": None,
    "object_name": None,
    "encounter_id": None,
    "evidence": [],
    "distractors": [],
    "facts": [],
}


def _assertion(raw: dict[str, Any], policy: FilterPolicy | None) -> RecordAssertion:
    score = float(raw["score"] or 0.0)
    confidence = float(raw["confidence"] or 0.0)
    passed = (
        bool(raw["passed"])
        if policy is None
        else policy.passes(VerdictKind(raw["verdict"]), score, confidence)
    )
    review = raw.get("review")
    if review is not None:
        passed = review == "true"
    if not raw["whole"]:
        raw = _COUNTED_ONLY | raw
    return RecordAssertion(
        id=raw["id"],
        predicate=raw["predicate"],
        verdict=raw["verdict"],
        passed=passed,
        score=score,
        reason=raw["reason"] or "",
        rule=raw["rule"],
        rule_version=raw["rule_version"],
        subject_id=raw["subject_id"],
        object_id=raw["object_id"],
        subject_name=raw["subject_name"],
        object_name=raw["object_name"],
        encounter_id=raw["encounter_id"],
        confidence=confidence,
        evidence_json=tuple(raw["evidence"]),
        distractors=tuple(raw["distractors"]),
        facts=tuple((f["id"], f["side"]) for f in raw["facts"]),
        review=review,
        review_id=raw.get("review_id"),
        whole=raw["whole"],
    )
