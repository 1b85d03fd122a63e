"""What derivation produces: QA items (diagnosis, treatment, prognosis) and fact sheets for
record-grounded simulated patients, plus the run reports. JSONL out; the schemas are these
models (docs/derivation.md, and ``schema.json`` written beside every output)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, assert_never

from pydantic import BaseModel, ConfigDict, Field


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Task(StrEnum):
    DIAGNOSIS = "diagnosis"  # an encounter's findings and tests -> the diagnosis made there
    TREATMENT = "treatment"  # a diagnosed condition in context -> the drug given for it
    PROGNOSIS = "prognosis"  # an encounter -> the condition that followed in a later one

    @property
    def rules(self) -> TaskRules:
        """How its distractors are justified (``TASK_RULES``, made once: asked per candidate
        and distractor, a new one each time cost 8 µs a call)."""
        return TASK_RULES[self]

    def _declared_rules(self) -> TaskRules:
        """The rules declared with the task (every member has its case: mypy checks the
        match is exhaustive)."""
        match self:
            case Task.DIAGNOSIS:
                return TaskRules(
                    "pointers",
                    "clues_elsewhere",
                    clues="clues (drugs started, findings seen)",
                    agent_mismatch="agent_mismatch",
                )
            case Task.TREATMENT:
                return TaskRules(
                    "drugs",
                    "indications_elsewhere",
                    contraindicated="contraindicated",
                    for_patient="contraindicated_for_patient",
                )
            case Task.PROGNOSIS:
                return TaskRules("pointers", "outcomes_elsewhere", clues="conditions")
            case _:
                assert_never(self)


@dataclass(frozen=True)
class TaskRules:
    """How a task's distractor candidates are justified, declared with the task: the
    justification (kgverify/derive/justify.py) reads it and knows no task. It sits here, not
    in the task's ``qa.TASKS`` entry, because justify.py reads it and may not import qa.py (no
    import loops); re-verification (kgverify/audit/reverify.py) reads it too.

    Attributes:
        way: ``"drugs"``: the answer and candidates are drugs for the topic condition,
            refuted by an indication near it or a class shared with its known treatments;
            ``"pointers"``: candidates are concepts, refuted by a clue pointing near them.
        elsewhere: the rule that the evidence lies elsewhere (the drug's indications,
            where the clues point), recorded as ``<task>.<elsewhere>``.
        contraindicated: the drug way's rule that the drug is contraindicated.
        clues: what a pointer reason calls the clues ("the <clues> are known to point at").
    """

    way: Literal["drugs", "pointers"]
    elsewhere: str
    contraindicated: str = ""
    clues: str = ""
    for_patient: str = ""  # the drug way's rule that a shown condition rules the drug out
    # The pointer way's rule that the drugs started that point near a candidate are
    # anti-infectives of another kind than its causative agent (an antibacterial, a virus).
    agent_mismatch: str = ""

    @property
    def distractor_slot(self) -> Literal["subject", "object"]:
        """Where a distractor stands in the relations its justification reads: a drug is
        the subject (it treats), a pointer's candidate the object (the clues point at it)."""
        return "subject" if self.way == "drugs" else "object"


TASK_RULES: dict[Task, TaskRules] = {task: task._declared_rules() for task in Task}
"""Each task's justification rules (``Task.rules``, docs/derivation.md); changing one is
changing the rules: see ``justify.RULES_VERSION``."""


Lure = Literal["patient_specific", "same_area", "other_area", "same_system", "other_system"]
LURES: dict[str, str] = {
    "patient_specific": "treats the condition, but a condition the question shows rules it out "
    "for this patient (context-necessary)",
    "same_area": "a drug of the answer's therapeutic area (a shared WHO ATC level-2 group) "
    "whose indications lie elsewhere",
    "other_area": "a drug of another therapeutic area, whose indications lie elsewhere",
    "same_system": "a condition of the answer's body system (a shared top is-a ancestor) that "
    "the clues do not point near, or only anti-infectives of another kind than its cause do",
    "other_system": "a condition of another body system that the clues do not point near",
}
"""What kind of lure a distractor is (``DistractorWhy.lure``); an item's ``difficulty`` is
the share of its distractors of the ``HARD_LURES`` kinds."""
HARD_LURES = frozenset({"patient_specific", "same_area", "same_system"})


class ContextFact(_Frozen):
    """A record fact shown in an item's question."""

    fact_id: str = Field(description="graph Fact id (source:item id)")
    role: str = Field(
        description="finding, test, procedure, medication, condition, history, prior_drug"
    )
    text: str = Field(description="the vocabulary's preferred name of the fact's concept")
    concept_id: str | None = None
    start: str | None = Field(default=None, description="the fact's date, as recorded")
    end: str | None = Field(
        default=None, description="when it ended, as recorded (None: no end recorded)"
    )

    def ended_by(self, date: str | None) -> bool:
        """It ended before ``date`` (an episode's): a fact with no end recorded, or ended
        later, had not."""
        return bool(self.end and date and self.end[:10] < date[:10])


class Option(_Frozen):
    label: str = Field(description="A, B, C, ...")
    concept_id: str
    text: str


class CitedEdge(_Frozen):
    """A vocabulary edge a justification cites, with where it comes from."""

    start: str
    start_name: str | None = None
    type: str = Field(description="relationship type, e.g. MAY_TREAT, CONTRAINDICATED_FOR, IS_A")
    end: str
    end_name: str | None = None
    source: str | None = Field(
        default=None, description="the source vocabulary that asserts it (the edge's sab)"
    )
    release: str | None = Field(default=None, description="release id that loaded the edge")


class DistractorCheck(_Frozen):
    """A rule check every distractor failed: the distractor takes ``slot`` and ``fixed`` the
    other place (a treatment item checks (distractor, condition, "treats"): slot "subject",
    fixed the condition). Re-verification (kgverify/audit/reverify.py) repeats them on a
    new release."""

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


class ConceptSet(_Frozen):
    """A named set of concept ids a justification compared (one shape for every rule, so
    the dataset loads as one table)."""

    name: str = Field(
        description="neighbourhood, indications, classes, treaters, treater_classes, "
        "contraindicated_for, clue_targets, clues"
    )
    ids: list[str]


class Justification(_Frozen):
    """A positive reason from the graph that one distractor is wrong for this item: the rule
    that gave it, its version, one readable sentence, the edges it cites and the concept sets
    it compared (docs/derivation.md, "Distractor justifications")."""

    rule: str = Field(description="e.g. treatment.indications_elsewhere, treatment.contraindicated")
    version: str = Field(description="hash of the rule's Cypher and its decision code")
    reason: str = Field(description="one sentence a reviewer can read")
    edges: list[CitedEdge] = Field(default_factory=list)
    sets: list[ConceptSet] = Field(
        default_factory=list, description="the concept-id sets the rule compared"
    )

    def set_of(self, name: str) -> list[str]:
        """The ids of one named set ([] when the rule has none by that name)."""
        return next((s.ids for s in self.sets if s.name == name), [])


class DistractorWhy(_Frozen):
    """Why one option is wrong, stored beside the item."""

    label: str
    concept_id: str
    text: str
    distance: int | None = Field(
        default=None,
        description="is-a steps between the distractor (a drug: its nearest known indication) "
        "and the item's topic concept; smaller is harder; None beyond the search depth",
    )
    lure: Lure = Field(default="other_area", description="what kind of lure it is (LURES)")
    justifications: list[Justification] = Field(min_length=1)


class QAItem(_Frozen):
    """One multiple-choice item with exactly one correct option."""

    item_id: str = Field(description="content hash of task, patient, episode, question, options")
    task: Task
    split: str = Field(description="train, validation or test, by content group")
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
    topic: str = Field(
        description="concept the question is about: the condition (treatment), the diagnosis "
        "(diagnosis), the cause (prognosis); reviewer vetoes are keyed on it"
    )
    content_key: str = Field(
        description="hash of (task, clinical stem without demographics and history, answer, "
        "option set): one item per key"
    )
    content_group: str = Field(
        description="hash of (task, topic, the other stem concepts, answer): one item per "
        "group and variant"
    )
    split_group: str = Field(
        default="",
        description="hash of the unit kept in one split (derive_split_by; by default task, "
        "topic and answer, so no test or validation topic-answer pair occurs in train)",
    )
    why_wrong: list[DistractorWhy] = Field(
        description="for every distractor, the positive reasons it is wrong"
    )
    difficulty: float | None = Field(
        default=None,
        description="share of distractors that are hard lures: specific to this patient, or "
        "in the answer's therapeutic area or body system (higher is harder)",
    )
    context_necessary: bool = Field(
        default=False,
        description="a distractor is wrong only because of this patient's record (a "
        "patient_specific lure): the item cannot be solved without the context",
    )
    releases: list[str] = Field(description="vocabulary releases current when it was derived")
    policy: str = Field(
        description="the filter policy its basis passed: 'policy@hash' when derivation "
        "re-applied a given policy (its values in the dataset card and policy.json), "
        "'stored' when it used each assertion's stored passed flag"
    )
    reviewed: list[str] = Field(
        default_factory=list,
        description="reviewer decisions it rests on (e.g. a relation accepted though "
        "unsupported): review ids",
    )


SHEETS = "sheets.jsonl"
SHEETS_GZIP = "sheets.jsonl.gz"
"""The fact sheets' file in a ``derive facts`` folder, plain or (``--gzip``) compressed."""


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
    age_band: str | None = Field(
        None,
        description="the patient's age band at this encounter (moved on from the first "
        "encounter's; never above 89: '90+')",
    )
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
    age_band: str | None = Field(
        description="the age band at the first encounter; each encounter has its own"
    )
    sex: str | None
    encounters: list[EncounterSheet]
    checks: list[SheetCheck] = Field(description="problems found; empty when consistent")


class PolicyYield(BaseModel):
    """What a derivation under one filter policy gives (``api.filter_sweep``): the
    assertions it keeps out and the items per task and in all; nothing is written."""

    accept: list[str] = Field(description="the verdicts that pass, sorted")
    min_score: float
    min_confidence: float
    filtered: int = Field(description="assertions kept out of derivation")
    items: dict[str, int] = Field(description="items per task, every split")
    total: int


class DeriveReport(BaseModel):
    """A QA derivation run, counted."""

    run: str | None = Field(
        None, description="the run whose patients were read (docs/runs.md); None: every patient"
    )
    scope: str = Field("", description="whose patients, in one line")
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
    distractors_rejected: dict[str, int] = Field(
        default_factory=dict,
        description="distractor candidates refused, per reason, for the item candidates whose "
        "content reached distractor choice (a repeat of a served content counts none)",
    )
    justifications: dict[str, int] = Field(
        default_factory=dict, description="justifications of the chosen distractors, per rule"
    )
    difficulty: dict[str, int] = Field(
        default_factory=dict,
        description="chosen distractors per distance to the item's topic (is-a steps; 'none': "
        "beyond the search depth)",
    )
    lures: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="task -> lure kind -> chosen distractors"
    )
    context_necessary: dict[str, int] = Field(
        default_factory=dict,
        description="task -> items with a patient-specific lure (need the record to solve)",
    )
    split_by: str = Field(default="", description="the unit kept in one split")
    funnel: dict[str, Any] = Field(
        default_factory=dict,
        description="yield: candidates, content groups, items, drops per reason, and the "
        "limiting cause",
    )
    splits: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="task -> split -> content groups"
    )
    patients_in_several_splits: int = Field(
        default=0, description="patients with items in more than one split (splits are by content)"
    )
    releases: list[str] = Field(default_factory=list, description="vocabulary releases used")
    policy: str = Field(
        default="",
        description="filter policy: 'policy@hash' (re-applied; values in policy_values) or "
        "'stored' (each assertion's stored passed flag)",
    )
    policy_values: dict[str, Any] | None = Field(
        default=None,
        description="the re-applied policy (accept, min_score, min_confidence); None: stored",
    )
    items: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="task -> split -> items"
    )
    positions: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="task -> answer label -> items"
    )
    written: int = Field(default=0, description="items written to the graph")
    not_written: int = Field(
        default=0, description="items in the files that the database refused to store"
    )
    not_written_reasons: dict[str, int] = Field(
        default_factory=dict, description="why not written -> items"
    )
    retired: int = Field(default=0, description="items of earlier runs no longer produced")
    seconds: float = 0.0
    out: str = ""


class FactsReport(BaseModel):
    """A fact-sheet run, counted."""

    run: str | None = Field(
        None, description="the run whose patients were read (docs/runs.md); None: every patient"
    )
    scope: str = Field("", description="whose patients, in one line")
    patients: int = 0
    sheets: int = 0
    encounters: int = 0
    facts: dict[str, int] = Field(default_factory=dict, description="facts per section")
    excluded: dict[str, int] = Field(default_factory=dict, description="facts left out, why")
    checks: dict[str, int] = Field(default_factory=dict, description="problems per kind")
    seconds: float = 0.0
    out: str = ""
    file: str = Field(default="", description="the sheets file: sheets.jsonl or sheets.jsonl.gz")
    bytes: int = Field(default=0, description="its size on disk")

    def add(self, other: FactsReport) -> None:
        """Count ``other``'s sheets in too (the parts of one run built by several workers)."""
        self.patients += other.patients
        self.sheets += other.sheets
        self.encounters += other.encounters
        for name in ("facts", "excluded", "checks"):
            total = Counter(getattr(self, name)) + Counter(getattr(other, name))
            setattr(self, name, dict(sorted(total.items())))
