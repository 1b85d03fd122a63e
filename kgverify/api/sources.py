"""EHR sources: ingested into the graph (``ingest_source``), written as trajectory JSONL
(``write_trajectories``), or read for candidate relations (``extract_relations``); each a
run over the source (``bookkeeping.source_run``) whose rows are all accounted for."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgverify.api.bookkeeping import SourceRun, check_server_source, graph_of, source_run
from kgverify.collector import batch_work
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph
from kgverify.jsonl import whole_file
from kgverify.rows import RejectedRow, open_private

if TYPE_CHECKING:
    from kgverify.ehr.bulk import BulkIngester
    from kgverify.ehr.ingest import Ingester
    from kgverify.ehr.model import Trajectory
    from kgverify.ehr.report import SourceIngestReport, TrajectoriesReport
    from kgverify.extract.run import ExtractReport


@batch_work
def ingest_source(
    source: str,
    path: str | Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    rejects_path: Path | None = None,
    on_patient: Callable[[int], None] | None = None,
    bulk: bool = False,
) -> SourceIngestReport:
    """Write an EHR source's patients, encounters and facts into Neo4j, as a new run.

    The report has the run's id (``report.run``: a ``(:Run)`` linked to the patients it
    brought, which derivation reads by default; docs/runs.md), what was written
    (``report.ingest``: an ``IngestReport``) and the source rows (``report.rows``): every
    source row is loaded, skipped or rejected, per table.

    ``bulk=True`` is a first load into the local server's empty database through
    neo4j-admin (``kgverify.ehr.bulk``; no ``graph``): faster at scale, and the same graph
    once the vocabularies are loaded after it (each load links the facts it can).

    >>> report = ingest_source("omop", sample_path("omop", "eunomia_sample"))
    >>> report.ingest.patients, report.rows[0].loaded, report.rejects
    """
    settings = settings or Settings()
    with (
        source_run("ingest", source, settings, rejects_path) as rows,
        _ingest_graph(settings, graph, bulk) as g,
    ):
        run, ingester = _begin_ingest(source, path, settings, g, rows)
        for _ in _ingested(ingester, rows.trajectories(source, path), on_patient):
            pass
        return _finish_ingest(g, run, ingester, rows, settings)


@batch_work
def ingest_and_extract(
    source: str,
    path: str | Path,
    out: Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    rejects_path: Path | None = None,
    extractor: str = "template",
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    concurrency: int = 4,
    engine: str = "local",
    on_patient: Callable[[int], None] | None = None,
    bulk: bool = False,
) -> tuple[SourceIngestReport, ExtractReport]:
    """:func:`ingest_source` and :func:`extract_relations` from one read of the source:
    each patient is read and pseudonymized once, written to the graph and handed to the
    extractor. The same run, graph and relations file as the two one after the other (the
    source's rows are counted once, both reports carry them; rejected rows go to the
    ingest's rejects file). ``api.pipeline`` runs its source this way; ``bulk`` as for
    :func:`ingest_source`.

    >>> ingested, extracted = ingest_and_extract("omop", sample_path("omop", "eunomia_sample"),
    ...                                          Path("relations.jsonl"))
    >>> ingested.run, ingested.ingest.patients, extracted.relations
    """
    from kgverify.engines import ENGINES
    from kgverify.extract.registry import EXTRACTORS
    from kgverify.extract.run import ExtractorSpec, run_extraction

    settings = settings or Settings()
    spec = ExtractorSpec(EXTRACTORS.check(extractor), model, base_url, api_key, concurrency)
    run_on = ENGINES.pick(engine)
    with (
        source_run("ingest", source, settings, rejects_path) as rows,
        _ingest_graph(settings, graph, bulk) as g,
    ):
        run, ingester = _begin_ingest(source, path, settings, g, rows)
        trajectories = _ingested(ingester, rows.trajectories(source, path), on_patient)
        with run_on.extraction(settings, spec, None) as extraction:
            extracted = run_extraction(extraction, extractor, trajectories, out)
        return _finish_ingest(g, run, ingester, rows, settings), rows.stamp(extracted)


@contextmanager
def _ingest_graph(settings: Settings, graph: Graph | None, bulk: bool) -> Iterator[Graph | None]:
    """The graph the batched ingest writes through; none for a bulk ingest, which imports
    into the stopped local server and connects after."""
    if not bulk:
        with graph_of(settings, graph) as g:
            yield g
        return
    if graph is not None:
        raise ConfigError("bulk ingest imports into the local server's store: pass no graph")
    yield None


def _begin_ingest(
    source: str, path: str | Path, settings: Settings, graph: Graph | None, rows: SourceRun
) -> tuple[str, Ingester | BulkIngester]:
    """A new run over the source (its id) and its ingester (``graph`` None: the bulk one);
    a row the database refuses goes to the run's rejects file, named by its source row."""
    from kgverify.derive.run import settings_digest
    from kgverify.ehr.bulk import BulkIngester
    from kgverify.ehr.ingest import Ingester
    from kgverify.graph.schema import ensure_schema
    from kgverify.runs import begin_run, new_run_id

    def refused(kind: str, row: dict[str, Any], reason: str) -> None:
        # Read and converted, but refused by the database: the rejects file names the row.
        where = f"source row {row['source_row']}" if row.get("source_row") else row["id"]
        file = f"{source}:{row.get('source_table') or kind}"
        reason = f"{kind} not written: {reason}"
        rows.sink.write(RejectedRow(file=file, line=None, reason=reason, text=str(where)[:300]))

    check_server_source(source, path, settings)
    if graph is None:
        run = new_run_id()
        bulk = BulkIngester(
            settings,
            run=run,
            source=source,
            source_path=str(path),
            settings_hash=settings_digest(settings),
            on_refused=refused,
        )
        return run, bulk
    ensure_schema(graph)
    run = begin_run(graph, source, str(path), settings_digest(settings))
    ingester = Ingester(
        graph,
        batch_size=settings.batch_size,
        on_refused=refused,
        run=run,
        parallel=settings.ingest_parallel,
    )
    return run, ingester


def _ingested(
    ingester: Ingester | BulkIngester,
    trajectories: Iterable[Trajectory],
    on_patient: Callable[[int], None] | None,
) -> Iterator[Trajectory]:
    """Each trajectory written by the ingester as it passes, then handed on. Whatever ends
    the pass, the write in flight is waited for (``finish`` writes the rest)."""
    try:
        for count, trajectory in enumerate(trajectories, start=1):
            ingester.add(trajectory)
            if on_patient is not None:
                on_patient(count)
            yield trajectory
    finally:
        ingester.close()


def _finish_ingest(
    graph: Graph | None,
    run: str,
    ingester: Ingester | BulkIngester,
    rows: SourceRun,
    settings: Settings,
) -> SourceIngestReport:
    """The last writes (or the import), the report with the source rows' accounting, the
    run finished."""
    from kgverify.ehr.report import SourceIngestReport
    from kgverify.runs import finish_run

    report = ingester.finish()
    result = rows.stamp(SourceIngestReport(run=run, ingest=report))
    with graph_of(settings, graph) as g:
        finish_run(g, run, result)
    return result


@batch_work
def write_trajectories(
    source: str,
    path: str | Path,
    out: Path,
    *,
    settings: Settings | None = None,
    rejects_path: Path | None = None,
) -> TrajectoriesReport:
    """Write an EHR source's trajectories as JSONL at ``out`` (gzip for ``.gz``).

    This is the file ``link --trajectories`` and ``verify --trajectories`` read for note
    context (docs/trajectories.md).

    Owner-only (it holds note text), written under ``<stem>.partial<suffix>`` and renamed
    when every patient is written. Returns the counts (patients, encounters, episodes, items inside
    and outside encounters, undated items, notes) and the source rows' reports.
    """
    from kgverify.ehr import write_jsonl
    from kgverify.ehr.report import TrajectoriesReport

    settings = settings or Settings()
    report = TrajectoriesReport(source=source, out=str(out))
    with (
        source_run("trajectories", source, settings, rejects_path) as rows,
        whole_file(out) as partial,
    ):
        open_private(partial).close()  # owner-only before any note text is in it
        write_jsonl(report.count(rows.trajectories(source, path)), partial)
    return rows.stamp(report)


@batch_work
def extract_relations(
    source: str,
    path: str | Path,
    out: Path,
    *,
    settings: Settings | None = None,
    rejects_path: Path | None = None,
    extractor: str = "template",
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    concurrency: int = 4,
    progress: Callable[[int, int], None] | None = None,
    engine: str = "local",
) -> ExtractReport:
    """Candidate relations from an EHR source as JSONL at ``out``.

    ``extractor``: a name of ``kgverify.extract.registry.EXTRACTORS``: "template"
    (deterministic rules), "openai" (any OpenAI-compatible server such as ``vllm serve``:
    needs ``base_url`` and ``model``) or "vllm" (the offline engine: needs ``model`` and the
    ``llm`` extra). LLM extraction failures go, with the raw answer and the reason, to
    ``out`` with suffix ``.failures.jsonl``. Both kinds read the same episodes
    (``kgverify.ehr.episodes``: encounters, and days of the items outside them). The report
    has the patients and episodes read, counts per predicate and the source rows' reports
    (``kgverify.extract.run.run_extraction`` does the run). ``engine``
    (``kgverify.engines.ENGINES``): "local", or "ray" to extract each page of trajectories
    on Ray actors, each with its own extractor (docs/scale.md); the source is read and the
    relations written here, in the same order.

    >>> report = extract_relations("omop", sample_path("omop", "eunomia_sample"), out)
    >>> report.relations, report.by_predicate, report.failures
    """
    from kgverify.engines import ENGINES
    from kgverify.extract.registry import EXTRACTORS
    from kgverify.extract.run import ExtractorSpec, run_extraction

    settings = settings or Settings()
    spec = ExtractorSpec(EXTRACTORS.check(extractor), model, base_url, api_key, concurrency)
    run_on = ENGINES.pick(engine)
    with source_run("extract", source, settings, rejects_path) as rows:
        trajectories = rows.trajectories(source, path)
        with run_on.extraction(settings, spec, progress) as extraction:
            report = run_extraction(extraction, extractor, trajectories, out)
    return rows.stamp(report)


def source_location(source: str, given: str | Path) -> Path | str:
    """``given`` checked as what EHR source ``source`` reads (an existing file or folder, or
    a server's http(s) URL); one ``SourceError`` line otherwise."""
    from kgverify.ehr.sources import source_descriptor

    return source_descriptor(source, given)


def reads_url(source: str) -> bool:
    """Whether EHR source ``source`` reads a server (a URL) rather than files."""
    from kgverify.ehr.sources import EHR_SOURCES

    return EHR_SOURCES.pick(source).takes == "url"
