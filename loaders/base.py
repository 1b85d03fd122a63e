"""The shared base of the vocabulary loaders.

A loader only knows its file format: it names its release and lists :class:`Step` s, each
turning one file into rows for one or more named queries. Everything else (batching,
progress, dangling references, rejects, release bookkeeping, retirement, bulk CSV) is
done once, in :mod:`loaders.pipeline`, for all of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from kgverify.errors import LoadError
from kgverify.graph.model import Vocab
from kgverify.rows import Tally

Row = dict[str, Any]
StepKind = Literal["nodes", "edges", "update"]
RowSource = Callable[[Tally], Iterator[Row]]


class LoadOptions(BaseModel):
    """What a user can choose about a load (CLI flags map one to one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    languages: tuple[str, ...] = Field(default=("ENG",), description="UMLS/RxNorm LAT codes kept")
    sources: tuple[str, ...] | None = Field(
        default=None, description="UMLS SABs kept (all when None)"
    )
    include_suppressed: bool = Field(
        default=False, description="keep atoms with SUPPRESS in O, E, Y (suppressible/obsolete)"
    )
    snomed_language_refset: str = Field(
        default="900000000000509007", description="preferred terms from this refset (US English)"
    )
    release: str | None = Field(default=None, description="override the detected release version")
    force: bool = Field(default=False, description="load even if an older release than current")
    abandon_interrupted: bool = Field(
        default=False,
        description="mark another release of the vocabulary left loading (an interrupted "
        "load) abandoned instead of refusing to start",
    )
    allow_retire: bool = Field(
        default=False,
        description="retire what the release drops even beyond max_retire_share (the guard "
        "against damaged releases)",
    )

    def selecting(self) -> dict[str, Any]:
        """The options that choose which rows are loaded (so are part of what a release
        holds in the graph, ``pipeline.content_hash``); the others say how to load."""
        return self.model_dump(
            include={"languages", "sources", "include_suppressed", "snomed_language_refset"}
        )


@dataclass(frozen=True)
class Release:
    """One release of one vocabulary; ``id`` is what concepts and edges point back to."""

    vocab: Vocab
    version: str
    sort_key: str  # comparable across releases of the same vocabulary

    @property
    def id(self) -> str:
        return f"{self.vocab.value}@{self.version}"


@dataclass
class Step:
    """One pass over one file: rows for ``queries``, each query getting every batch."""

    label: str
    file: Path
    queries: tuple[str, ...]
    kind: StepKind
    rows: RowSource
    # Row fields naming concepts that must exist; a query returning ``written`` below the
    # batch size makes the pipeline find the dangling rows and reject them.
    references: tuple[str, ...] = ()
    # Concept rows assembled from consecutive lines (RRF atoms): one concept may come as
    # two rows when its lines are not contiguous, which the bulk path must refuse.
    grouped: bool = False
    # The file must hold rows (an update step whose rows the concepts need: the files names
    # come from, RxNorm's attributes); concept and relationship files always must.
    required: bool = False

    @classmethod
    def concepts(cls, file: Path, rows: RowSource, *, mappings: bool) -> Step:
        """Concept rows; RRF sources (``mappings``) group atoms and carry code mappings."""
        queries = (
            ("load/upsert_concepts", "load/upsert_mappings")
            if mappings
            else ("load/upsert_concepts",)
        )
        return cls("concepts", file, queries, "nodes", rows, grouped=mappings)

    @classmethod
    def update(
        cls, label: str, file: Path, query: str, rows: RowSource, *, required: bool = False
    ) -> Step:
        """Rows that add properties to existing concepts (row field ``id``)."""
        return cls(label, file, (query,), "update", rows, references=("id",), required=required)

    @classmethod
    def relationships(cls, file: Path, rows: RowSource) -> Step:
        """Edge rows between existing concepts (row fields ``start`` and ``end``)."""
        return cls(
            "relationships",
            file,
            ("load/upsert_relationships",),
            "edges",
            rows,
            references=("start", "end"),
        )


class VocabularyLoader(ABC):
    """Base of every loader; subclasses are registered in :data:`loaders.LOADERS`."""

    name: ClassVar[str]
    vocab: ClassVar[Vocab]
    source_format: ClassVar[str]
    license: ClassVar[str]
    # Lines before the first row in every file (RF2's header); a file with no more is empty.
    header_lines: ClassVar[int] = 0

    def __init__(self, path: Path, options: LoadOptions | None = None) -> None:
        self.path = Path(path)
        self.options = options or LoadOptions()
        if not self.path.exists():
            raise LoadError(f"{self.path} does not exist")

    @abstractmethod
    def release(self) -> Release:
        """The release found at ``path`` (or given in options)."""

    @abstractmethod
    def steps(self) -> list[Step]:
        """The passes of this load, in the order they must run."""

    def check_release(self) -> None:  # noqa: B027 (optional hook)
        """Checks of the release's content that must pass before anything is written (a
        concept its files leave without a name); raises ReleaseGuardError. Called by the
        pre-flight check after the files themselves are checked."""

    def close(self) -> None:  # noqa: B027 (optional hook, most loaders hold nothing)
        """Release temporary resources (staging files); called by the pipeline."""

    def require(self, pattern: str) -> Path:
        """The one file under ``path`` matching ``pattern``; LoadError when there is none."""
        found = self.find(pattern, required=True)
        assert found is not None
        return found

    def find(self, pattern: str, *, required: bool = False) -> Path | None:
        """The one file under ``path`` whose name matches ``pattern`` (a glob)."""
        if self.path.is_file():
            matches = [self.path] if self.path.match(pattern) else []
        else:
            matches = sorted(self.path.rglob(pattern))
        if len(matches) > 1:
            names = ", ".join(str(m) for m in matches)
            raise LoadError(f"more than one file matches {pattern} under {self.path}: {names}")
        if not matches:
            if required:
                raise LoadError(f"no {pattern} under {self.path}")
            return None
        return matches[0]
