"""What derivation produces: QA items (diagnosis, treatment, prognosis) and fact sheets for
record-grounded simulated patients, plus the run reports. JSONL out; the schemas are these
models (docs/derivation.md, and ``schema.json`` written beside every output)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Task(StrEnum):
    DIAGNOSIS = "diagnosis"  # an encounter's findings and tests -> the diagnosis made there
    TREATMENT = "treatment"  # a diagnosed condition in context -> the drug given for it
    PROGNOSIS = "prognosis"  # an encounter -> the condition that followed in a later one


class ContextFact(_Frozen):
    """A record fact shown in an item's question."""

    fact_id: str = Field(description="graph Fact id (source:item id)")
    role: str = Field(description="finding, test, medication, condition, history, prior_drug")
    text: str = Field(description="the vocabulary's preferred name of the fact's concept")
    concept_id: str | None = None
    start: str | None = Field(default=None, description="the fact's date, as recorded")


class Option(_Frozen):
    label: str = Field(description="A, B, C, ...")
    concept_id: str
    text: str


class DistractorCheck(_Frozen):
    """A rule check every distractor failed: the distractor takes ``slot`` and ``fixed`` the
    other place (a treatment item checks (distractor, condition, "treats"): slot "subject",
    fixed the condition). Re-verification repeats them on a new release."""

    slot: Literal["subject", "object"] = Field(description="where the distractor goes")
    fixed: str = Field(description="concept id in the other place")
    predicate: str

    @classmethod
    def of(cls, subject: str | None, obj: str | None, predicate: str) -> DistractorCheck:
        """From a (subject, object, predicate) pattern with None for the distractor."""
        if subject is None and obj is not None:
            return cls(slot="subject", fixed=obj, predicate=predicate)
        if obj is None and subject is not None:
            return cls(slot="object", fixed=subject, predicate=predicate)
        raise ValueError("a distractor check has exactly one open place")

    def triple(self, distractor: str) -> tuple[str, str, str]:
        """The (subject, object, predicate) to judge for one distractor."""
        if self.slot == "subject":
            return distractor, self.fixed, self.predicate
        return self.fixed, distractor, self.predicate


class QAItem(_Frozen):
    """One multiple-choice item with exactly one correct option."""

    item_id: str = Field(description="content hash of task, patient, episode, question, options")
    task: Task
    split: str = Field(description="train, validation or test; a patient is in one split only")
    patient_id: str
    episode: str = Field(description="encounter id, or 'day:YYYY-MM-DD' outside encounters")
    question: str = Field(description="the rendered template")
    context: list[ContextFact]
    options: list[Option]
    answer: str = Field(description="label of the correct option")
    answer_concept: str
    basis: list[str] = Field(description="ids of the passed assertions the item rests on")
    rules: list[str] = Field(description="'<rule>@<version>' of every basis assertion")
    checks: list[DistractorCheck] = Field(
        default_factory=list, description="rule checks that found no support for any distractor"
    )
    template: str = Field(description="'<task>@<hash of the template file>'")
    seed: int


class SheetFact(_Frozen):
    """One fact of a fact sheet, with where it came from."""

    fact_id: str
    section: str = Field(
        description="patient_can_say: symptom, history, current_drug, allergy; "
        "record_only: diagnosis, condition, lab, procedure, code"
    )
    text: str = Field(description="lay words for what the patient can say, else the name")
    concept_id: str
    code: str = Field(description="CODE_SYSTEM:code as recorded")
    start: str | None = None
    end: str | None = None
    value: float | str | None = None
    unit: str | None = None
    flag: str | None = None
    source_table: str
    source_row: str
    assertions: list[str] = Field(default_factory=list, description="passed assertion ids")
    verdict: str = Field(description="'grounded' or the verdict of its passed assertion")


class EncounterSheet(_Frozen):
    episode: str
    start: str | None
    kind: str | None
    patient_can_say: list[SheetFact]
    record_only: list[SheetFact]


class SheetCheck(_Frozen):
    kind: str = Field(description="contradiction or date_order")
    detail: str
    facts: list[str]


class FactSheet(_Frozen):
    """What a simulated patient may say, kept apart from what only the record holds."""

    patient_id: str
    split: str
    age_band: str | None
    sex: str | None
    encounters: list[EncounterSheet]
    checks: list[SheetCheck] = Field(description="problems found; empty when consistent")


class DeriveReport(BaseModel):
    """A QA derivation run, counted."""

    patients: int = 0
    assertions: dict[str, int] = Field(
        default_factory=dict, description="assertions read per verdict"
    )
    filtered: dict[str, int] = Field(
        default_factory=dict, description="assertions kept out of derivation, per reason"
    )
    candidates: dict[str, int] = Field(default_factory=dict, description="item candidates per task")
    skipped: dict[str, int] = Field(
        default_factory=dict, description="item candidates dropped, per reason"
    )
    distractors_rejected: dict[str, int] = Field(default_factory=dict)
    items: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="task -> split -> items"
    )
    positions: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="task -> answer label -> items"
    )
    written: int = Field(default=0, description="items written to the graph")
    retired: int = Field(default=0, description="items of earlier runs no longer produced")
    seconds: float = 0.0
    out: str = ""


class FactsReport(BaseModel):
    """A fact-sheet run, counted."""

    patients: int = 0
    sheets: int = 0
    encounters: int = 0
    facts: dict[str, int] = Field(default_factory=dict, description="facts per section")
    excluded: dict[str, int] = Field(default_factory=dict, description="facts left out, why")
    checks: dict[str, int] = Field(default_factory=dict, description="problems per kind")
    seconds: float = 0.0
    out: str = ""
