"""What the agent-action check reads and writes (docs/fhir.md, "Agent actions" and "Task
checkpoints"): an actions JSONL line per thing an agent did in the EHR (a FHIR R4 resource),
a verdict per action with its evidence, task files of checkpoints, and the graded tasks.
JSONL and JSON in and out; the schemas are these models."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from kgverify.verify.check import NamedPath

_ID = Field(min_length=1, max_length=200)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ActionRecord(_Frozen):
    """One line of an actions JSONL file: one thing an agent did, as the FHIR R4 resource it
    created or updated (MedicationRequest, ServiceRequest, Condition, DocumentReference or
    Communication)."""

    action_id: str = _ID
    task_id: str | None = Field(default=None, max_length=200, description="the task it served")
    patient_id: str | None = Field(
        default=None,
        max_length=200,
        description="the graph's patient id (a pseudonym); None: the resource's subject",
    )
    at: date | None = Field(
        default=None,
        description="the day the action was taken: the record is read as of it (default: "
        "the task's as_of, else the resource's authoredOn / recordedDate / date / sent)",
    )
    resource: dict[str, Any] = Field(description="the FHIR R4 resource, as JSON")


ActionKind = Literal["medication", "service", "condition", "note"]

RESOURCE_KINDS: dict[str, ActionKind] = {
    "MedicationRequest": "medication",
    "ServiceRequest": "service",
    "Condition": "condition",
    "DocumentReference": "note",
    "Communication": "note",
}
"""The resources an agent's action may be, and what each is judged as."""


class Coding(_Frozen):
    """A code of the resource, its system as the graph's namespace (``RXNORM``, ``LNC``)."""

    system: str
    code: str
    display: str | None = None

    @property
    def concept_id(self) -> str:
        return f"{self.system}:{self.code}"


class ParsedAction(_Frozen):
    """An action read from its resource. ``text`` is a note's text: matched for mentions,
    never written anywhere."""

    action_id: str
    task_id: str | None
    patient_id: str
    at: date | None
    resource_type: str
    resource_id: str | None
    kind: ActionKind
    codes: list[Coding] = Field(default_factory=list)
    text: str | None = Field(default=None, repr=False)


class ActionVerdictKind(StrEnum):
    """What the graph says of one action (docs/fhir.md, "Verdicts")."""

    CONTRAINDICATED = "contraindicated"  # a vocabulary edge against a recorded condition
    INTERACTS = "interacts"  # reserved: the vocabularies carry no interaction relation
    DUPLICATE_THERAPY = "duplicate_therapy"  # an ingredient or drug class already active
    INDICATED = "indicated"  # treats an active condition, or one the task names
    UNSUPPORTED = "unsupported"  # no evidence either way: not in the vocabularies
    NOT_JUDGED = "not_judged"  # a known code of an order no rule judges (a lab, a note)
    UNKNOWN_CODE = "unknown_code"  # no code of the resource is in the vocabularies
    MALFORMED = "malformed"  # not a resource this check can read


SEVERITY: tuple[ActionVerdictKind, ...] = (
    ActionVerdictKind.MALFORMED,
    ActionVerdictKind.UNKNOWN_CODE,
    ActionVerdictKind.CONTRAINDICATED,
    ActionVerdictKind.INTERACTS,
    ActionVerdictKind.DUPLICATE_THERAPY,
    ActionVerdictKind.INDICATED,
    ActionVerdictKind.UNSUPPORTED,
    ActionVerdictKind.NOT_JUDGED,
)
"""The action's verdict is its gravest finding: a contraindicated order that also treats
something is contraindicated."""


class Finding(_Frozen):
    """One thing the graph says of an action, with its evidence."""

    verdict: ActionVerdictKind
    text: str = Field(description="the finding in words, with the evidence path")
    concept: str | None = Field(
        default=None, description="the other end: the condition, or the active drug"
    )
    fact: str | None = Field(default=None, description="the record fact it rests on (Fact id)")
    named_in_task: bool = Field(default=False, description="the condition is the task's")
    evidence: list[NamedPath] = Field(default_factory=list)


class ActionVerdict(_Frozen):
    """The verdict of one action (one line of the verdicts JSONL)."""

    action_id: str
    task_id: str | None = None
    patient_id: str | None = None
    resource_type: str | None = None
    kind: ActionKind | None = None
    as_of: date | None = Field(default=None, description="the day the record was read as of")
    code: str | None = Field(default=None, description="the judged code, NAMESPACE:code")
    concept: str | None = Field(default=None, description="the concept it denotes")
    concept_name: str | None = None
    verdict: ActionVerdictKind
    reason: str = Field(description="one sentence; never a note's text")
    findings: list[Finding] = Field(default_factory=list)
    releases: list[str] = Field(default_factory=list, description="the releases judged against")


class ActionsReport(BaseModel):
    """``kgverify check-actions``: counts and where the verdicts went."""

    source: str = ""
    actions: int = 0
    rejected: int = 0
    verdicts: dict[str, int] = Field(default_factory=dict)
    stored: int = 0
    out: str | None = None
    rejects: str | None = None
    seconds: float = 0.0


# -- tasks and checkpoints ----------------------------------------------------------------


class CodeRef(_Frozen):
    """A code a task names: ``system`` a graph namespace (SNOMEDCT, RXNORM, LNC, ICD10CM) or
    a FHIR system URI."""

    system: str = Field(min_length=1, max_length=200)
    code: str = Field(min_length=1, max_length=200)
    display: str | None = None


CheckpointKind = Literal["indicated_order", "no_verdict", "order_exists", "note_mentions"]


class Checkpoint(_Frozen):
    """One thing a task requires of the agent (docs/fhir.md, "Task checkpoints"):

    * ``indicated_order``: a MedicationRequest whose drug the vocabularies say treats
      ``condition`` (through its ingredient or class) exists;
    * ``no_verdict``: no action of the task has ``verdict`` (e.g. contraindicated);
    * ``order_exists``: a ``resource`` (ServiceRequest by default) with one of ``codes``
      (the code itself, or the concept it denotes) exists;
    * ``note_mentions``: a note (DocumentReference, Communication) mentions ``condition``
      or a narrower concept of it.
    """

    id: str = _ID
    kind: CheckpointKind
    description: str = Field(default="", max_length=500)
    condition: CodeRef | None = None
    codes: list[CodeRef] = Field(default_factory=list)
    verdict: ActionVerdictKind | None = None
    resource: str = "ServiceRequest"

    @model_validator(mode="after")
    def _needs(self) -> Checkpoint:
        need = {
            "indicated_order": self.condition is not None,
            "note_mentions": self.condition is not None,
            "no_verdict": self.verdict is not None,
            "order_exists": bool(self.codes),
        }
        if not need[self.kind]:
            what = {"no_verdict": "verdict", "order_exists": "codes"}.get(self.kind, "condition")
            raise ValueError(f"a {self.kind} checkpoint needs {what}")
        if self.resource not in RESOURCE_KINDS:
            raise ValueError(f"resource must be one of {', '.join(RESOURCE_KINDS)}")
        return self


class Task(_Frozen):
    """A task file (JSON): the patient, the day the agent works on, the conditions the task
    names, and its checkpoints."""

    task_id: str = _ID
    patient_id: str = _ID
    as_of: date = Field(description="the day the record is read as of")
    instruction: str = Field(default="", max_length=2_000, description="what the agent is asked")
    conditions: list[CodeRef] = Field(
        default_factory=list, description="conditions the task names (an order may treat them)"
    )
    checkpoints: list[Checkpoint] = Field(min_length=1)


class CheckpointResult(_Frozen):
    task_id: str
    checkpoint: str
    kind: CheckpointKind
    description: str
    passed: bool
    reason: str
    actions: list[str] = Field(default_factory=list, description="the actions it rests on")


class TaskGrade(_Frozen):
    task_id: str
    patient_id: str
    actions: int
    passed: int
    checkpoints: int
    score: float = Field(description="share of checkpoints passed")
    results: list[CheckpointResult]


class GradeReport(BaseModel):
    """``kgverify grade``: every task's checkpoints, per-task and overall scores."""

    source: str = ""
    tasks: list[TaskGrade] = Field(default_factory=list)
    passed: int = 0
    checkpoints: int = 0
    score: float = Field(default=0.0, description="share of all checkpoints passed")
    mean_task_score: float = 0.0
    verdicts: list[ActionVerdict] = Field(default_factory=list)
    stored: int = 0
