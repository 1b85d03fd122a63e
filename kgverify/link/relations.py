"""Linking candidate relations: both mentions of every relation, in batches, with the
relation's predicate fixing each slot's kinds and the patient's notes as context for
abbreviations. Every input line is linked or rejected with its line number; the report's
counts reconcile (``read == linked_relations + rejected``)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field

from kgverify.ehr.model import Trajectory
from kgverify.errors import ConfigError
from kgverify.extract.relation import CandidateRelation, Mention
from kgverify.jsonl import BadLine, read_models_or_rejects
from kgverify.link.linker import MentionQuery
from kgverify.link.model import LinkedRelation, MentionLink
from kgverify.link.slots import Slot, slot_kinds


class LinkReport(BaseModel):
    """What a linking run did."""

    read: int = 0
    rejected: int = 0
    linked_relations: int = Field(default=0, description="relations written (either status)")
    both_linked: int = Field(default=0, description="relations whose two mentions are linked")
    by_status: dict[str, int] = Field(default_factory=dict, description="mentions per status")
    by_method: dict[str, int] = Field(
        default_factory=dict, description="linked mentions per stage that linked them"
    )
    expanded: int = Field(default=0, description="mentions expanded from an abbreviation")
    seconds: float = 0.0
    mentions_per_second: float = 0.0
    index: str = ""
    out: str = ""
    rejects: str | None = None

    def add(self, other: LinkReport) -> None:
        """Add the counts of a run done elsewhere (an engine's actor) to these; the runs
        went side by side, so the time is the longer one."""
        self.read += other.read
        self.rejected += other.rejected
        self.linked_relations += other.linked_relations
        self.both_linked += other.both_linked
        self.expanded += other.expanded
        self.by_status = dict(sorted((Counter(self.by_status) + Counter(other.by_status)).items()))
        self.by_method = dict(sorted((Counter(self.by_method) + Counter(other.by_method)).items()))
        self.index = self.index or other.index
        self.seconds = max(self.seconds, other.seconds)
        mentions = 2 * self.linked_relations
        self.mentions_per_second = round(mentions / self.seconds, 1) if self.seconds else 0.0


class BatchLinker(Protocol):
    """What linking a relation stream needs: a batch call, one result per query in order,
    and the key of the index it links against (a ``Linker``, or an engine's fan-out)."""

    @property
    def index_key(self) -> str: ...

    def link(self, queries: Sequence[MentionQuery]) -> list[MentionLink]: ...


class Contexts:
    """Note text per (patient, encounter) from a trajectories file, for abbreviations.

    A relation seen in an encounter gets that encounter's notes; one without an encounter
    gets all of the patient's notes. Text stays in memory only, never in logs."""

    def __init__(self, trajectories: Iterable[Trajectory]) -> None:
        self._text: dict[tuple[str, str | None], str] = {}
        for trajectory in trajectories:
            patient = trajectory.patient.patient_id
            every: list[str] = []
            for encounter in trajectory.encounters:
                notes = [note.text for note in encounter.notes]
                if notes:
                    self._text[(patient, encounter.encounter_id)] = "\n".join(notes)
                    every.extend(notes)
            every.extend(note.text for note in trajectory.items_outside_encounters.notes)
            if every:
                self._text[(patient, None)] = "\n".join(every)

    @classmethod
    def from_file(cls, path: Path) -> Contexts:
        """Contexts from trajectories JSONL; a bad line is one error with its number."""

        def trajectories() -> Iterator[Trajectory]:
            for item in read_models_or_rejects(path, Trajectory):
                if isinstance(item, BadLine):
                    raise ConfigError(f"trajectories {path}: line {item.line}: {item.reason}")
                yield item

        return cls(trajectories())

    def of(self, relation: CandidateRelation) -> str | None:
        found = self._text.get((relation.patient_id, relation.encounter_id))
        return found if found is not None else self._text.get((relation.patient_id, None))

    def __len__(self) -> int:
        return len(self._text)


def _query(relation: CandidateRelation, slot: Slot, context: str | None) -> MentionQuery:
    mention: Mention = relation.subject if slot == "subject" else relation.object
    return MentionQuery(
        text=mention.text,
        code_system=mention.code_system,
        code=mention.code,
        allowed=slot_kinds(relation.predicate, slot),
        context=context,
    )


def link_relations(
    relations: Iterable[CandidateRelation | tuple[int, str] | tuple[int, str, str]],
    linker: BatchLinker,
    report: LinkReport,
    *,
    contexts: Contexts | None = None,
    on_reject: Callable[[int, str, str], None] | None = None,
    batch_size: int = 2_000,
    progress: Callable[[int], None] | None = None,
) -> Iterator[LinkedRelation]:
    """Linked relations, in input order; ``(line, reason[, text])`` items are counted as
    rejects and handed to ``on_reject(line, reason, text)`` (text: the raw line, or "")."""
    # A report may be passed to several calls (one per batch): counts accumulate.
    started = time.perf_counter() - report.seconds
    statuses: Counter[str] = Counter(report.by_status)
    methods: Counter[str] = Counter(report.by_method)
    report.index = linker.index_key
    batch: list[CandidateRelation] = []

    def flush() -> Iterator[LinkedRelation]:
        queries = []
        for relation in batch:
            context = contexts.of(relation) if contexts is not None else None
            queries += [_query(relation, "subject", context), _query(relation, "object", context)]
        links = linker.link(queries)
        for at, relation in enumerate(batch):
            subject, obj = links[2 * at], links[2 * at + 1]
            _count(report, statuses, methods, subject, obj)
            yield LinkedRelation(relation=relation, subject=subject, object=obj, index=report.index)
        batch.clear()
        report.seconds = round(time.perf_counter() - started, 3)
        if progress is not None:
            progress(report.read)

    for item in relations:
        report.read += 1
        if isinstance(item, tuple):
            report.rejected += 1
            if on_reject is not None:
                on_reject(item[0], item[1], item[2] if len(item) == 3 else "")
            continue
        batch.append(item)
        if len(batch) >= batch_size:
            yield from flush()
    if batch:
        yield from flush()
    report.seconds = round(time.perf_counter() - started, 3)
    report.by_status = dict(sorted(statuses.items()))
    report.by_method = dict(sorted(methods.items()))
    mentions = 2 * report.linked_relations
    report.mentions_per_second = round(mentions / report.seconds, 1) if report.seconds else 0.0


def _count(
    report: LinkReport,
    statuses: Counter[str],
    methods: Counter[str],
    *links: MentionLink,
) -> None:
    report.linked_relations += 1
    if all(link.concept_id is not None for link in links):
        report.both_linked += 1
    for link in links:
        statuses[link.status.value] += 1
        if link.concept_id is not None and link.method is not None:
            methods[link.method.value] += 1
        if link.expanded_from is not None:
            report.expanded += 1
