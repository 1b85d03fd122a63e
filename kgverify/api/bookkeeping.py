"""What every API run shares, so each user action in this package is its steps alone: the
graph (the caller's, or one opened and closed here), the rejects and the row accounting of a
run over an EHR source (``source_run``), and the output of a run over a relation or dialogue
file, written under a temporary name and renamed when the run completes (``file_run``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph
from kgverify.jsonl import partial_path
from kgverify.outputs import make_dirs
from kgverify.rows import FileReport, RejectedRow, RejectSink, private_dir

if TYPE_CHECKING:
    from kgverify.ehr import Ledger
    from kgverify.ehr.model import Trajectory


@contextmanager
def graph_of(settings: Settings, graph: Graph | None) -> Iterator[Graph]:
    """The caller's graph, or one opened (and closed) here."""
    if graph is not None:
        yield graph
        return
    with Graph.connect(settings) as opened:
        yield opened


def sample_path(*parts: str) -> Path:
    """A path inside the shipped sample data (``kgverify/sample``)."""
    return Path(str(resources.files("kgverify").joinpath("sample").joinpath(*parts)))


def relation_batch(settings: Settings) -> int:
    """Relations per linking / verification round trip."""
    return max(1, min(settings.batch_size, 5_000))


def read_trajectories(
    source: str, path: str | Path, ledger: Ledger, settings: Settings
) -> Iterator[Trajectory]:
    """Trajectories from an EHR source, one patient at a time.

    ``source`` is a name of ``kgverify.ehr.EHR_SOURCES`` ("omop", "mimic", "fhir",
    "fhir-rest"); ``path`` a file or folder, or for "fhir-rest" the server's URL.
    """
    from kgverify.ehr.sources import EHR_SOURCES

    entry = EHR_SOURCES.pick(source)
    return entry.read(
        str(path) if entry.takes == "url" else Path(path),
        ledger,
        salt=settings.salt(),
        memory_limit=settings.ehr_memory_limit or None,
        settings=settings,
    )


def check_server_source(source: str, path: str | Path, settings: Settings) -> None:
    """Ask a URL source once whether it answers, before a run writes anything.

    A path source is checked by its reader.
    """
    from kgverify.ehr.sources import EHR_SOURCES, source_descriptor

    if EHR_SOURCES.pick(source).takes == "url":
        source_descriptor(source, path, settings, probe=True)


def cache_rejects(settings: Settings) -> Path:
    """The cache's rejects folder, owner-only: its files hold raw patient rows."""
    return private_dir(settings.cache_dir / "rejects")


class SourceRows(Protocol):
    """A report that carries the source rows of its run (``rows``, ``rejects``)."""

    rows: list[FileReport]
    rejects: str | None


R = TypeVar("R", bound=SourceRows)


class SourceRun:
    """A run over an EHR source: its rejects file, the ledger of its source rows, and the
    trajectories it reads. ``stamp`` puts the rows' reports on the run's report."""

    def __init__(self, sink: RejectSink, ledger: Ledger, settings: Settings) -> None:
        self.sink = sink
        self.ledger = ledger
        self.settings = settings

    def trajectories(self, source: str, path: str | Path) -> Iterator[Trajectory]:
        return read_trajectories(source, path, self.ledger, self.settings)

    @property
    def rejects(self) -> str | None:
        """The rejects file, when a row went there."""
        return str(self.sink.path) if self.sink.count else None

    def stamp(self, report: R) -> R:
        report.rows = self.ledger.reports()
        report.rejects = self.rejects
        return report


@contextmanager
def source_run(
    step: str, source: str, settings: Settings, rejects_path: Path | None
) -> Iterator[SourceRun]:
    """The rejects and ledger of a run over an EHR source, the sink closed on leaving.

    Rejected rows go to ``rejects_path``, else to the cache's owner-only rejects folder as
    ``<step>-<source>.jsonl`` (its files hold raw patient rows).
    """
    from kgverify.ehr import Ledger

    folder = rejects_path or cache_rejects(settings) / f"{step}-{source}.jsonl"
    sink = RejectSink(folder)
    try:
        yield SourceRun(sink, Ledger(sink), settings)
    finally:
        sink.close()


class FileRun:
    """Where a run over a relation or dialogue file writes.

    Rejects with their line, and the output under a temporary name until the run completes.
    """

    def __init__(self, relations: Path, out: Path, rejects_path: Path | None) -> None:
        self.relations = relations
        self.partial = partial_path(out)  # a .gz output is gzip while partial, too
        self.sink = RejectSink(rejects_path or out.with_suffix(".rejects.jsonl"))

    def reject(self, line: int, reason: str, text: str = "") -> None:
        """One bad input line; ``text`` is the raw line, cut like every reject's text."""
        row = RejectedRow(file=str(self.relations), line=line, reason=reason, text=text[:300])
        self.sink.write(row)

    @property
    def rejects(self) -> str | None:
        return str(self.sink.path) if self.sink.count else None


@contextmanager
def file_run(relations: Path, out: Path, rejects_path: Path | None) -> Iterator[FileRun]:
    """Check the input exists; rename the output into place on success, remove it on failure.

    So ``out`` is never half-written.
    """
    if not relations.is_file():
        raise ConfigError(f"no such relations file: {relations}")
    make_dirs(out.parent)
    run = FileRun(relations, out, rejects_path)
    try:
        yield run
        run.partial.replace(out)
    finally:
        run.sink.close()
        run.partial.unlink(missing_ok=True)
