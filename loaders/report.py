"""What a load says about every row it read: loaded, skipped by policy, or rejected.

``read == loaded + skipped + rejected`` holds per file; the report and the rejects file
are the pydantic models below and in :mod:`kgverify.rows` (where the row accounting every
reader shares lives), written as JSON / JSONL (see docs/loaders.md).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from kgverify.rows import FileReport, RejectedRow, RejectSink, Tally, open_private, private_dir

# The row accounting moved to kgverify.rows; these names stay importable from here.
__all__ = [
    "FileReport",
    "LoadReport",
    "RejectSink",
    "RejectedRow",
    "Tally",
    "open_private",
    "private_dir",
]


class LoadReport(BaseModel):
    """The outcome of one ``kgverify load``."""

    loader: str
    release: str
    mode: str
    status: str = "loading"
    files: list[FileReport] = Field(default_factory=list)
    retired_concepts: int = 0
    retired_relationships: int = 0
    would_retire_concepts: int = Field(
        default=0, description="what the release drops (retired unless the guard held it)"
    )
    would_retire_relationships: int = 0
    would_inactivate_concepts: int = Field(
        default=0, description="active concepts the release marks inactive (SNOMED CT active=0)"
    )
    would_rename_concepts: int = Field(
        default=0, description="active concepts whose name the release changes"
    )
    would_retire_examples: list[str] = Field(
        default_factory=list, description="some of the concepts it would retire (id name)"
    )
    facts_linked: int = Field(
        default=0,
        description="patient facts ingested before this release whose code it brings, "
        "linked to their concept now (load/link_facts)",
    )
    rejects_path: str | None = None
    seconds: float = 0.0

    @property
    def read(self) -> int:
        return sum(f.read for f in self.files)

    @property
    def rejected(self) -> int:
        return sum(f.rejected for f in self.files)

    @property
    def reject_share(self) -> float:
        return self.rejected / self.read if self.read else 0.0
