"""The review loop's models: a parsed sheet row, a review as written to the graph, what the
graph says about a reviewed item, and the export and import reports (docs/review.md)."""

from __future__ import annotations

import hashlib
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Decision(StrEnum):
    """What one ``(:Review)`` node records."""

    ACCEPT = "accept"  # the item is good as it stands
    REJECT = "reject"  # the item must go (its content key is kept out of derivation)
    VETO = "veto"  # a distractor is a defensible answer for this task and topic
    RELATION_TRUE = "relation_true"  # a basis relation is true (even if the rules had no support)
    RELATION_FALSE = "relation_false"  # a basis relation is false (even if the rules supported it)
    COMMENT = "comment"  # notes with no decision: kept, decides nothing


ITEM_DECISIONS = (Decision.ACCEPT, Decision.REJECT)


def review_id(item: str, decision: Decision, target: str, reviewer: str) -> str:
    """The id of a review: a hash of item, decision, vetoed concept or judged assertion (""
    for an item decision or a comment) and reviewer, so the same sheet imported twice writes
    the same nodes."""
    key = "\x1f".join((item, decision.value, target, reviewer))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


class SheetRow(_Frozen):
    """One data row of a review sheet, checked for form (not yet against the graph): an
    item's row (``assertion`` None: accept or reject, vetoes) or one of its relation rows
    (``assertion`` set: the relation judged true or false)."""

    row: int = Field(ge=2, description="the row a spreadsheet shows (the header is row 1)")
    item_id: str
    task: str | None = None
    assertion: str | None = Field(default=None, description="a relation row's assertion id")
    decision: Decision | None = Field(
        default=None,
        description="accept or reject (an item's row), relation_true or relation_false (a "
        "relation row), or None",
    )
    veto_labels: list[str] = Field(default_factory=list)
    veto_reason: str | None = None
    reviewer: str | None = None
    notes: str | None = None

    @property
    def blank(self) -> bool:
        """Nothing decided and nothing said: the row was not reviewed."""
        return (
            self.decision is None
            and not self.veto_labels
            and not self.veto_reason
            and not self.notes
        )


class ItemOption(_Frozen):
    label: str
    concept: str
    name: str | None = None


class ItemFacts(_Frozen):
    """What import needs to know about a reviewed item, read from the graph."""

    id: str
    task: str
    topic: str | None = None
    content_key: str | None = None
    answer: str
    answer_concept: str
    current: bool
    options: list[ItemOption]
    basis: list[str]

    def option(self, label: str) -> ItemOption | None:
        return next((o for o in self.options if o.label == label), None)


class Review(_Frozen):
    """One reviewer decision, as written to ``(:Review)`` (``round`` and ``at`` are set by the
    graph when the node is first created)."""

    id: str
    item: str
    reviewer: str
    decision: Decision
    reason: str | None = None
    notes: str | None = None
    task: str
    topic: str | None = None
    concept: str | None = Field(default=None, description="the vetoed distractor; else the answer")
    content_key: str | None = None
    label: str | None = Field(default=None, description="the vetoed option's label")
    assertion: str | None = Field(default=None, description="the judged basis assertion")
    row: int = Field(description="the sheet row it came from (as a spreadsheet shows it)")


class RejectedSheetRow(_Frozen):
    row: int = Field(description="the row a spreadsheet shows (the header is row 1)")
    item_id: str | None = None
    reason: str
    reviewer: str | None = Field(
        default=None, description="the row's reviewer, where it names one (or --reviewer)"
    )


class ReviewExportReport(BaseModel):
    """What ``kgverify review export`` wrote."""

    out: str
    qa: str
    seed: int
    sample: int | None = Field(description="items per task asked for; None: every item")
    items_read: int = Field(0, description="items in the QA folder (of the chosen tasks)")
    exported: dict[str, int] = Field(default_factory=dict, description="task -> items exported")
    skipped: dict[str, int] = Field(
        default_factory=dict, description="items read but not exported, per reason"
    )
    edges: int = Field(0, description="distinct evidence edges drawn with their sources")
    pages: int = 0
    sheet: str = ""
    index: str = ""
    seconds: float = 0.0


class ReviewImportReport(BaseModel):
    """What ``kgverify review import`` did; ``rows == imported + blank + rejected``."""

    sheet: str
    round: int | None = Field(default=None, description="round given to reviews created now")
    rows: int = Field(0, description="data rows in the sheet")
    imported: int = Field(0, description="rows whose decisions were written")
    blank: int = Field(0, description="rows with nothing decided (not reviewed)")
    rejected: int = Field(0, description="rows refused, each in rejects with row and reason")
    rejects: list[RejectedSheetRow] = Field(default_factory=list)
    rejects_path: str | None = None
    reviews: dict[str, int] = Field(
        default_factory=dict, description="reviews written (created or confirmed), per decision"
    )
    created: int = Field(0, description="reviews new to the graph")
    retracted: int = Field(
        0, description="earlier reviews of the same reviewer and item the sheet no longer makes"
    )
    assertions_judged: int = Field(0, description="assertions whose review mark was set")
    items_flagged: int = Field(0, description="current items given a new review flag")
    items_unflagged: int = Field(0, description="items that lost the flag of a retracted review")
    seconds: float = 0.0
