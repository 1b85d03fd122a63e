"""The template extractor: candidate relations from a trajectory's structure alone.

Deterministic and deliberately noisy (co-occurrence is not causation): it proposes what an
LLM might, so the verifier has something to filter. Rules, per episode (an encounter; items
recorded outside any encounter are grouped by calendar day):

- ``treats``: a drug started in an episode where a condition was recorded.
- ``indicates``: an abnormal measurement (flag low / high / abnormal) in an episode, or the
  one before it, where a condition was recorded.
- ``leads_to``: a condition of an earlier episode -> a condition first recorded in one of the
  next ``horizon`` episodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TypeVar

from kgverify.__about__ import __version__
from kgverify.ehr.model import (
    CodedItem,
    Condition,
    DrugExposure,
    Measurement,
    Trajectory,
    sort_key,
)
from kgverify.extract.relation import CandidateRelation, ExtractorInfo, Mention, Predicate

_Item = TypeVar("_Item", bound=CodedItem)
EXTRACTOR = ExtractorInfo(name="template", version=__version__)
CONFIDENCE = {Predicate.TREATS: 0.5, Predicate.INDICATES: 0.4, Predicate.LEADS_TO: 0.3}


@dataclass
class Episode:
    """Items that were recorded together: one encounter, or one day outside encounters."""

    encounter_id: str | None
    when: datetime
    conditions: list[Condition] = field(default_factory=list)
    drugs: list[DrugExposure] = field(default_factory=list)
    abnormal: list[Measurement] = field(default_factory=list)


def episodes(trajectory: Trajectory) -> list[Episode]:
    """The trajectory's episodes in time order."""
    found: list[Episode] = []
    for encounter in trajectory.encounters:
        episode = Episode(encounter.encounter_id, sort_key(encounter.start))
        _fill(episode, encounter.conditions, encounter.drug_exposures, encounter.measurements)
        found.append(episode)
    outside = trajectory.items_outside_encounters
    by_day: dict[date, Episode] = {}
    for item in [*outside.conditions, *outside.drug_exposures, *outside.measurements]:
        if item.start is None:
            continue
        day = sort_key(item.start).date()
        episode = by_day.setdefault(day, Episode(None, datetime.combine(day, datetime.min.time())))
        _fill(episode, *_split([item]))
    found.extend(by_day.values())
    return sorted(found, key=lambda e: (e.when, e.encounter_id or ""))


def _split(
    items: list[CodedItem],
) -> tuple[list[Condition], list[DrugExposure], list[Measurement]]:
    return (
        [i for i in items if isinstance(i, Condition)],
        [i for i in items if isinstance(i, DrugExposure)],
        [i for i in items if isinstance(i, Measurement)],
    )


def _fill(
    episode: Episode,
    conditions: Iterable[Condition],
    drugs: Iterable[DrugExposure],
    measurements: Iterable[Measurement],
) -> None:
    episode.conditions.extend(conditions)
    episode.drugs.extend(drugs)
    episode.abnormal.extend(m for m in measurements if m.flag in ("low", "high", "abnormal"))


def mention(item: CodedItem) -> Mention:
    """The item as a relation side: its display text (or code) and its code."""
    text = (item.display or f"{item.code_system}:{item.code}").strip()
    return Mention(text=text, code_system=item.code_system, code=item.code)


class TemplateExtractor:
    """Proposes candidate relations from trajectories; see the module docstring for rules."""

    def __init__(self, *, horizon: int = 2) -> None:
        self.horizon = horizon

    def extract(self, trajectories: Iterable[Trajectory]) -> Iterator[CandidateRelation]:
        for trajectory in trajectories:
            yield from self.extract_one(trajectory)

    def extract_one(self, trajectory: Trajectory) -> Iterator[CandidateRelation]:
        patient = trajectory.patient.patient_id
        seen: set[str] = set()
        timeline = episodes(trajectory)
        for index, episode in enumerate(timeline):
            previous = timeline[index - 1] if index else None
            for condition in _distinct(episode.conditions):
                for drug in _distinct(episode.drugs):
                    yield from _once(
                        seen, self._relation(patient, episode, drug, Predicate.TREATS, condition)
                    )
                labs = episode.abnormal + (previous.abnormal if previous else [])
                for lab in _distinct(labs):
                    yield from _once(
                        seen, self._relation(patient, episode, lab, Predicate.INDICATES, condition)
                    )
            earlier = {_key(c) for e in timeline[:index] for c in e.conditions}
            for later in timeline[index + 1 : index + 1 + self.horizon]:
                for outcome in _distinct(later.conditions):
                    if _key(outcome) in earlier or any(
                        _key(outcome) == _key(c) for c in episode.conditions
                    ):
                        continue  # not new: seen before or in this very episode
                    for cause in _distinct(episode.conditions):
                        yield from _once(
                            seen, self._relation(patient, later, cause, Predicate.LEADS_TO, outcome)
                        )

    def _relation(
        self,
        patient: str,
        episode: Episode,
        subject: CodedItem,
        predicate: Predicate,
        obj: CodedItem,
    ) -> CandidateRelation:
        return CandidateRelation(
            patient_id=patient,
            encounter_id=episode.encounter_id,
            subject=mention(subject),
            predicate=predicate,
            object=mention(obj),
            evidence=[subject.item_id, obj.item_id],
            extractor=EXTRACTOR,
            confidence=CONFIDENCE[predicate],
        )


def _key(item: CodedItem) -> tuple[str, str]:
    return item.code_system, item.code


def _distinct(items: Iterable[_Item]) -> list[_Item]:
    """First item of each code, in order (a drug given twice proposes one relation)."""
    kept: dict[tuple[str, str], _Item] = {}
    for item in items:
        kept.setdefault(_key(item), item)
    return list(kept.values())


def _once(seen: set[str], relation: CandidateRelation) -> Iterator[CandidateRelation]:
    if relation.relation_id not in seen:
        seen.add(relation.relation_id)
        yield relation
