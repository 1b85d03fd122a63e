"""An item candidate before its distractors are chosen (``Candidate``), what the distractor
screen admitted for it (``Screened``), and the clinical content it is grouped by (and the
contents a run has served: ``ServedContents``)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

from kgverify.derive.justify import Outcome
from kgverify.derive.model import ContextFact, DistractorCheck, Task
from kgverify.derive.records import PatientRecord, life_stage


@dataclass
class Candidate:
    """An item before its distractors are chosen."""

    task: Task
    patient: PatientRecord
    episode: str
    answer: str
    answer_text: str
    context: list[ContextFact]
    basis: list[str]
    rules: list[str]
    # Rule checks that must find no support for a distractor, which takes the check's slot:
    # (distractor, condition, "treats") or (clue, distractor, "indicates").
    checks: list[DistractorCheck]
    values: dict[str, str]
    dedupe: str
    # What the question is about (the condition, the diagnosis, the cause): reviewer vetoes
    # are keyed on it. ``stem``: the concepts the question shows, without demographics and
    # history; with task and answer it names the clinical content.
    topic: str
    stem: list[str]
    # (concept, predicate) pairs the justification rules read: where the clues point.
    clues: list[tuple[str, str]]
    conditions: list[str]  # the patient's recorded conditions up to the episode
    pool: list[str] = field(default_factory=list)
    reviewed: list[str] = field(default_factory=list)  # reviews its basis passed by
    age: str | None = None  # the patient's age band at the episode ("40-49", "90+")
    date: str | None = None  # the episode's date

    @property
    def stage(self) -> str | None:
        """The patient's life stage at the episode (the age and sex fit compares it)."""
        return life_stage(self.age)

    @property
    def shown_conditions(self) -> list[ContextFact]:
        """The patient's conditions the question shows (this visit's and earlier ones) that
        had not ended by the episode: what a patient-specific distractor may be ruled out by,
        so the reader can see it (a peptic ulcer healed years ago rules out nothing)."""
        return [
            f
            for f in self.context
            if f.role in ("condition", "history") and f.concept_id and not f.ended_by(self.date)
        ]

    @property
    def key(self) -> str:
        return f"{self.task.value}|{self.patient.patient_id}|{self.episode}|{self.answer}"

    @cached_property  # asked per distractor in the choice order; stem and answer never change
    def content_group(self) -> str:
        """The clinical content: task, topic, the other stem concepts and answer (one item
        per group and variant). The topic stays apart: "asthma, with rhinitis" and
        "rhinitis, with asthma" are two contents."""
        rest = sorted(set(self.stem) - {self.topic})
        return digest([self.task.value, self.topic, rest, self.answer])

    def split_group(self, split_by: str) -> str:
        """The unit kept in one split (``derive_split_by``): by default (task, topic,
        answer), so no test or validation pair of topic and answer occurs in train."""
        if split_by == "content":
            return self.content_group
        if split_by == "patient":
            return digest(["patient", self.patient.patient_id])
        if split_by == "topic":
            return digest([self.task.value, self.topic])
        return digest([self.task.value, self.topic, self.answer])


def content_group_of(candidate: Candidate, screened: Screened) -> str:
    """The candidate's content group, and for an item whose lures a shown condition rules
    out, those conditions too: osteoarthritis after a peptic ulcer is another question than
    osteoarthritis alone, though stem and answer agree."""
    ruled = sorted({c for o in screened.outcomes.values() for c in o.ruled_by})
    return digest([candidate.content_group, ruled]) if ruled else candidate.content_group


class ServedContents:
    """The content groups the run's item store holds as many items of as it keeps
    (``derive_variants``), added as they fill. A worker in the run's own process leaves a
    candidate whose content is here unscreened when screening could not change what the run
    does with it (``DistractorScreen.settled``): the run drops it as a duplicate, screened
    or not. Most candidates are such repeats (on full Eunomia, 15,369 candidates served 273
    contents). A Ray actor holds the empty copy its job was pickled with and screens every
    candidate: the same items and counts."""

    def __init__(self) -> None:
        self._groups: set[str] = set()

    def add(self, group: str) -> None:
        self._groups.add(group)

    def __contains__(self, group: object) -> bool:
        return group in self._groups


def digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value).encode()).hexdigest()[:20]


@dataclass
class Screened:
    """A candidate's admissible distractors: id -> (name, outcome with its justifications)."""

    names: dict[str, str] = field(default_factory=dict)
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    answer_name: str = ""
    # Why the answer itself is wrong for this patient (a recorded condition contraindicates
    # it): the item is not made, whatever its distractors.
    conflict: str | None = None
    # Distractors refused, why: counted in the run's report only for a candidate whose
    # content reaches distractor choice, so a screening skipped changes no count.
    rejected: Counter[str] = field(default_factory=Counter)
    # Not screened: its content was served before its page was worked on (``ServedContents``).
    served: bool = False
