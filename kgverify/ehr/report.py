"""What a run over an EHR source did: an ingest into the graph (``SourceIngestReport``) or
trajectories written to JSONL (``TrajectoriesReport``), each with its source rows."""

from __future__ import annotations

from pydantic import BaseModel, Field

from kgverify.ehr.ingest import IngestReport
from kgverify.rows import FileReport


class SourceIngestReport(BaseModel):
    """An EHR source ingested (``kgverify ingest --json`` prints it): every source row is
    loaded, skipped or rejected, per table."""

    run: str | None = Field(
        None, description="the (:Run) this ingest is, with the patients it brought (docs/runs.md)"
    )
    ingest: IngestReport = Field(description="what was written to the graph")
    rows: list[FileReport] = Field(default_factory=list, description="the source rows, per table")
    rejects: str | None = Field(None, description="the rejected source rows, when any")


class TrajectoriesReport(BaseModel):
    """An EHR source's trajectories written as JSONL (``kgverify trajectories --json``)."""

    source: str
    patients: int = 0
    encounters: int = 0
    episodes: int = 0
    items_in_encounters: int = 0
    items_outside_encounters: int = 0
    undated_items: int = 0
    notes: int = 0
    out: str
    rows: list[FileReport] = Field(default_factory=list, description="the source rows, per table")
    rejects: str | None = Field(None, description="the rejected source rows, when any")
