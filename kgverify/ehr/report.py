"""What a run over an EHR source did: an ingest into the graph (``SourceIngestReport``) or
trajectories written to JSONL (``TrajectoriesReport``), each with its source rows."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pydantic import BaseModel, Field

from kgverify.ehr.episodes import episodes, undated_items
from kgverify.ehr.ingest import IngestReport
from kgverify.ehr.model import Note, Trajectory
from kgverify.rows import FileReport

TRAJECTORY_COUNTS = (
    "patients",
    "encounters",
    "episodes",
    "items_in_encounters",
    "items_outside_encounters",
    "undated_items",
    "notes",
)
"""The counts of a ``TrajectoriesReport``, in the order ``kgverify trajectories`` shows them."""


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

    def counts(self) -> dict[str, int]:
        """The counts (``TRAJECTORY_COUNTS``), in order."""
        return {key: getattr(self, key) for key in TRAJECTORY_COUNTS}

    def count(self, trajectories: Iterable[Trajectory]) -> Iterator[Trajectory]:
        """``trajectories`` passed on, each counted into this report as it goes by."""
        for trajectory in trajectories:
            self.patients += 1
            self.encounters += len(trajectory.encounters)
            self.episodes += len(episodes(trajectory))
            self.items_in_encounters += sum(1 for e in trajectory.encounters for _ in e.items())
            self.items_outside_encounters += sum(
                1 for _ in trajectory.items_outside_encounters.items()
            )
            self.undated_items += undated_items(trajectory)
            self.notes += sum(isinstance(item, Note) for item in trajectory.items())
            yield trajectory
