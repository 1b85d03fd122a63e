"""The template extractor: candidate relations from a trajectory's structure alone.

Deterministic and deliberately noisy (co-occurrence is not causation): it proposes what an
LLM might, so the verifier has something to filter. Rules, per episode
(``kgverify.ehr.episodes``: an encounter, or one day of the items recorded outside
encounters; the LLM extractor prompts per the same episodes):

- ``treats``: a drug started in an episode where a condition was recorded.
- ``indicates``: an abnormal measurement (flag low / high / abnormal) in an episode, or the
  one before it, where a condition was recorded.
- ``leads_to``: a condition of an earlier episode -> a condition first recorded in one of the
  next ``horizon`` episodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

from kgverify.__about__ import __version__
from kgverify.ehr.episodes import Episode, episodes
from kgverify.ehr.model import CodedItem, Measurement, Trajectory
from kgverify.extract.relation import CandidateRelation, ExtractorInfo, Mention, Predicate

_Item = TypeVar("_Item", bound=CodedItem)
EXTRACTOR = ExtractorInfo(name="template", version=__version__)
CONFIDENCE = {Predicate.TREATS: 0.5, Predicate.INDICATES: 0.4, Predicate.LEADS_TO: 0.3}
ABNORMAL = ("low", "high", "abnormal")


def mention(item: CodedItem) -> Mention:
    """The item as a relation side: its display text (or code) and its code."""
    text = (item.display or f"{item.code_system}:{item.code}").strip()
    return Mention(text=text, code_system=item.code_system, code=item.code)


class TemplateExtractor:
    """Proposes candidate relations from trajectories; see the module docstring for rules."""

    def __init__(self, *, horizon: int = 2) -> None:
        self.horizon = horizon
        self.patients = 0  # trajectories read so far
        self.episodes = 0  # their episodes

    def extract(self, trajectories: Iterable[Trajectory]) -> Iterator[CandidateRelation]:
        for trajectory in trajectories:
            yield from self.extract_one(trajectory)

    def extract_one(self, trajectory: Trajectory) -> Iterator[CandidateRelation]:
        patient = trajectory.patient.patient_id
        seen: set[str] = set()
        timeline = episodes(trajectory)
        self.patients += 1
        self.episodes += len(timeline)
        abnormal = [_abnormal(e.measurements) for e in timeline]
        for index, episode in enumerate(timeline):
            for condition in _distinct(episode.conditions):
                for drug in _distinct(episode.drug_exposures):
                    yield from _once(
                        seen, self._relation(patient, episode, drug, Predicate.TREATS, condition)
                    )
                labs = abnormal[index] + (abnormal[index - 1] if index else [])
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


def _abnormal(measurements: list[Measurement]) -> list[Measurement]:
    return [m for m in measurements if m.flag in ABNORMAL]


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
