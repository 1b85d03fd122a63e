"""What the dialogue checker reads and writes (docs/dialogue.md): dialogues as JSONL (one
consultation per line, the turns in order) and, per dialogue, the verdict of every clinical
mention in every patient turn, with its evidence. JSONL in and out; the schemas are these
models."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kgverify.jsonl import read_models, write_models
from kgverify.link.model import LinkCandidate, LinkStatus


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Role(StrEnum):
    PATIENT = "patient"  # the turns that are checked
    DOCTOR = "doctor"  # the other side of the consultation: read as context, never judged
    SYSTEM = "system"


class Turn(_Frozen):
    role: Role
    text: str = Field(min_length=1, max_length=5_000)


class Dialogue(_Frozen):
    """One consultation of a simulated patient."""

    dialogue_id: str = Field(min_length=1, max_length=200)
    patient_id: str = Field(
        min_length=1, max_length=200, description="the fact sheet's patient_id (a pseudonym)"
    )
    encounter_id: str | None = Field(
        default=None,
        max_length=200,
        description="the fact sheet's episode key (an encounter id or 'day:YYYY-MM-DD'); "
        "None: the whole record",
    )
    turns: list[Turn] = Field(min_length=1)


Experiencer = Literal["patient", "family"]
"""Whose a mention is: the patient's own, or a relative's (family history, ConText's
experiencer)."""


class MentionVerdictKind(StrEnum):
    """What the record says about one mention in a patient turn (docs/dialogue.md)."""

    GROUNDED = "grounded"  # a patient-sayable fact of this patient and encounter
    LEAK = "leak"  # a record-only fact: the diagnosis to find, a lab value, a code
    CONTRADICTED = "contradicted"  # denies a recorded fact, a number off, or the graph forbids
    UNSUPPORTED = "unsupported"  # no fact in the record behind it (not: false)
    UNLINKED = "unlinked"  # no single concept for the words


class Number(_Frozen):
    """A number the patient said next to a mention, with its unit, and what it was compared
    with."""

    text: str = Field(description="as said, e.g. '325 mg'")
    value: float
    unit: str | None = None
    recorded: str | None = Field(default=None, description="the recorded value compared with")
    agrees: bool | None = Field(default=None, description="None: nothing recorded to compare")
    vague: bool = Field(
        default=False, description="a vague amount ('a few years', 'several'): never compared"
    )


class Evidence(_Frozen):
    """Why a mention got its verdict: the fact, and how the mention reaches it."""

    fact_id: str | None = None
    section: str | None = Field(default=None, description="the fact sheet section of the fact")
    fact_text: str | None = None
    fact_concept: str | None = None
    via: str = Field(
        description="same concept, lay synonym, is-a, morphology, named sibling, ingredient, "
        "brand, class, manifestation, code, number, negation, contraindicated, family, "
        "candidate, none"
    )
    path: list[str] = Field(
        default_factory=list, description="graph edges as 'start -TYPE-> end' (concept ids)"
    )
    detail: str = ""


class MentionVerdict(_Frozen):
    """One clinical mention of a patient turn, judged against the record and the graph."""

    turn: int = Field(ge=0, description="index of the turn in the dialogue")
    start: int = Field(ge=0, description="character offset in the turn's text")
    end: int = Field(ge=0)
    text: str
    kind: str = Field(description="what was matched: concept kinds, or 'code'")
    negated: bool = False
    hedged: bool = False
    hypothetical: bool = Field(default=False, description="said as a supposition ('if I had')")
    historical: bool = Field(default=False, description="said of the past ('years ago')")
    experiencer: Experiencer = Field(
        default="patient", description="whose it is: the patient's, or a relative's ('family')"
    )
    status: LinkStatus | None = Field(default=None, description="the linker's status")
    concept_id: str | None = None
    concept_name: str | None = None
    candidates: list[LinkCandidate] = Field(default_factory=list)
    verdict: MentionVerdictKind
    reason: str
    evidence: list[Evidence] = Field(default_factory=list)
    numbers: list[Number] = Field(default_factory=list)

    @property
    def claimed(self) -> bool:
        """Whether the patient affirms it of themself: not denied, not a supposition, not a
        relative's. Only such a mention the record does not hold is an invention."""
        return not self.negated and not self.hypothetical and self.experiencer == "patient"


class TurnVerdict(_Frozen):
    """The verdicts of one patient turn (``api.check_turn``)."""

    turn: int = Field(ge=0)
    text: str
    mentions: list[MentionVerdict]

    @property
    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for m in self.mentions:
            out[m.verdict.value] = out.get(m.verdict.value, 0) + 1
        return out

    def problems(self) -> list[MentionVerdict]:
        """What a guard asks the agent to say again: leaks, contradictions, and claims the
        record does not hold (``claimed``: a denial of something unrecorded, a supposition
        or a relative's illness is no invention)."""
        return [
            m
            for m in self.mentions
            if m.verdict in (MentionVerdictKind.LEAK, MentionVerdictKind.CONTRADICTED)
            or (m.verdict is MentionVerdictKind.UNSUPPORTED and m.claimed)
        ]


class DialogueVerdicts(_Frozen):
    """One line of the verdicts file: a dialogue's patient turns, judged."""

    dialogue_id: str
    patient_id: str
    encounter_id: str | None
    found: bool = Field(description="a fact sheet (and the encounter, when given) was found")
    turns: list[TurnVerdict]
    counts: dict[str, int] = Field(description="mentions per verdict")


class DialogueCounts(BaseModel):
    """One dialogue in the run's report."""

    dialogue_id: str
    found: bool = Field(description="its fact sheet (and encounter) was found")
    turns: int = Field(description="patient turns checked")
    counts: dict[str, int] = Field(description="mentions per verdict")


class DialogueReport(BaseModel):
    """A check-dialogue run, counted."""

    dialogues: int = 0
    turns: int = Field(default=0, description="patient turns checked")
    mentions: int = 0
    verdicts: dict[str, int] = Field(default_factory=dict, description="mentions per verdict")
    by_dialogue: list[DialogueCounts] = Field(default_factory=list)
    leaks_by_section: dict[str, int] = Field(
        default_factory=dict,
        description="leaked mentions per fact-sheet section (diagnosis, condition, lab, "
        "procedure) or 'code'",
    )
    invented_by_kind: dict[str, int] = Field(
        default_factory=dict,
        description="affirmed unsupported mentions (claims no fact is behind) per concept kind",
    )
    unknown_patients: int = Field(default=0, description="dialogues whose patient has no sheet")
    unknown_encounters: int = Field(
        default=0, description="dialogues whose encounter is not in the patient's sheet"
    )
    rejected: int = 0
    rejects: str | None = None
    written: int = Field(default=0, description="dialogues stored in the graph (text-free)")
    not_written: int = Field(default=0, description="dialogues the database refused")
    seconds: float = 0.0
    turns_per_second: float = 0.0
    out: str = ""


def read_dialogues(path: Path) -> Iterator[Dialogue]:
    """Dialogues from JSONL (a bad line raises)."""
    return read_models(path, Dialogue)


def write_dialogues(dialogues: Iterable[Dialogue], path: Path) -> int:
    return write_models(dialogues, path)


def read_verdicts(path: Path) -> Iterator[DialogueVerdicts]:
    return read_models(path, DialogueVerdicts)


class ForgetReport(BaseModel):
    """Dialogues forgotten by the graph (``kgverify forget-dialogues``); the verdicts files
    keep them."""

    dialogues: int = Field(default=0, description="(:Dialogue) nodes removed")
    mentions: int = Field(default=0, description="(:DialogueMention) nodes removed with them")
