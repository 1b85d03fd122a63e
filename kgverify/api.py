"""The Python API: one function per thing a pipeline does, each usable alone.

from kgverify.api import graph_summary, load_vocabulary

report = load_vocabulary("snomed", "path/to/SnomedCT_InternationalRF2_..._T120000Z")
report.status            # "complete", or raises RejectThresholdError
report.files[0].rejected # rows rejected in the first file, each in the rejects JSONL
graph_summary().concepts  # rows: vocab, concepts, active, retired, stubs
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pydantic import ValidationError

from kgverify.collector import batch_work
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph.driver import AdhocResult, Graph
from kgverify.jsonl import partial_path, whole_file
from kgverify.outputs import make_dirs
from kgverify.rows import RejectedRow, RejectSink, open_private, private_dir

if TYPE_CHECKING:
    from kgverify.audit import Audit, Lineage
    from kgverify.audit.catalog import Resolved
    from kgverify.derive import DeriveReport, FactsReport
    from kgverify.derive.calibrate import CalibrationReport
    from kgverify.ehr.model import Trajectory
    from kgverify.ehr.report import SourceIngestReport, TrajectoriesReport
    from kgverify.extract.relation import CandidateRelation
    from kgverify.extract.run import ExtractReport
    from kgverify.graph.summary import GraphSummary
    from kgverify.jsonl import BadLine
    from kgverify.link.index import IndexInfo
    from kgverify.link.linker import Linker
    from kgverify.link.relations import Contexts, LinkReport
    from kgverify.pipeline import (
        CountBars,
        PipelineConfig,
        PipelineReport,
        RelationsInput,
        StepListener,
        Steps,
    )
    from kgverify.runs import RunDiff, RunRecord
    from kgverify.verify.check import CheckResult, Explanation
    from kgverify.verify.report import VerifyReport
    from kgverify.verify.reverify import ReverifyReport
    from kgverify.verify.verifier import FilterPolicy, Verifier
    from loaders import LoadReport
    from loaders.pipeline import ProgressFactory


@batch_work
def load_vocabulary(
    vocabulary: str,
    path: str | Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    bulk: bool = False,
    rejects_path: Path | None = None,
    progress: ProgressFactory | None = None,
    **options: Any,
) -> LoadReport:
    """Load one release of ``vocabulary`` ("umls", "snomed", "rxnorm") from ``path``.

    ``options`` are :class:`loaders.LoadOptions` fields (languages, sources,
    include_suppressed, release, force). ``bulk=True`` imports into the empty local database
    with neo4j-admin (see docs/loaders.md); otherwise rows are written in batches.

    Returns:
        The load report: per file rows loaded, skipped and rejected, what was retired.

    Raises:
        ConfigError: an unknown vocabulary or a bad load option.
        LoadError: missing or empty files, a layout the loader does not know, an older
            release (without ``force``), or another load of the vocabulary still marked
            loading; nothing written.
        ReleaseGuardError: files much shorter than the current release's, or a release
            that would retire, inactivate or rename more than ``max_retire_share`` of the
            concepts (held, nothing written) or drop more of the relationships (held after
            the write, nothing retired); ``error.report`` when held.
        RejectThresholdError: more rows rejected than ``max_reject_share`` allows
            (``error.report`` has the counts).
    """
    # The one place kgverify reaches the top-level loaders package, which imports kgverify.
    from loaders import LoadOptions, get_loader
    from loaders.pipeline import load, no_progress

    settings = settings or Settings()
    try:
        load_options = LoadOptions(**options)
    except ValidationError as exc:
        raise ConfigError(
            f"invalid load options: {exc.errors()[0]['msg']} "
            f"({', '.join(map(str, exc.errors()[0]['loc']))})"
        ) from exc
    loader = get_loader(vocabulary)(Path(path), load_options)
    if bulk:
        from loaders.bulk import bulk_load

        return bulk_load(
            loader, settings=settings, rejects_path=rejects_path, progress=progress or no_progress
        )
    own = graph is None
    g = graph or Graph.connect(settings)
    try:
        return load(
            loader,
            g,
            settings=settings,
            rejects_path=rejects_path,
            progress=progress or no_progress,
        )
    finally:
        if own:
            g.close()


def read_trajectories(
    source: str, path: str | Path, ledger: Any, settings: Settings
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


def _cache_rejects(settings: Settings) -> Path:
    """The cache's rejects folder, owner-only: its files hold raw patient rows."""
    return private_dir(settings.cache_dir / "rejects")


@batch_work
def ingest_source(
    source: str,
    path: str | Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    rejects_path: Path | None = None,
    on_patient: Callable[[int], None] | None = None,
) -> SourceIngestReport:
    """Write an EHR source's patients, encounters and facts into Neo4j, as a new run.

    The report has the run's id (``report.run``: a ``(:Run)`` linked to the patients it
    brought, which derivation reads by default; docs/runs.md), what was written
    (``report.ingest``: an ``IngestReport``) and the source rows (``report.rows``): every
    source row is loaded, skipped or rejected, per table.

    >>> report = ingest_source("omop", sample_path("omop", "eunomia_sample"))
    >>> report.ingest.patients, report.rows[0].loaded, report.rejects
    """
    from kgverify.derive.run import settings_digest
    from kgverify.ehr import Ledger
    from kgverify.ehr.ingest import ingest
    from kgverify.ehr.report import SourceIngestReport
    from kgverify.graph.schema import ensure_schema
    from kgverify.runs import begin_run, finish_run

    settings = settings or Settings()
    sink = RejectSink(rejects_path or _cache_rejects(settings) / f"ingest-{source}.jsonl")
    ledger = Ledger(sink)
    own = graph is None
    g = graph or Graph.connect(settings)

    def refused(kind: str, row: dict[str, Any], reason: str) -> None:
        # Read and converted, but refused by the database: the rejects file names the row.
        where = f"source row {row['source_row']}" if row.get("source_row") else row["id"]
        file = f"{source}:{row.get('source_table') or kind}"
        reason = f"{kind} not written: {reason}"
        sink.write(RejectedRow(file=file, line=None, reason=reason, text=str(where)[:300]))

    try:
        check_server_source(source, path, settings)
        ensure_schema(g)
        run = begin_run(g, source, str(path), settings_digest(settings))
        report = ingest(
            read_trajectories(source, path, ledger, settings),
            g,
            batch_size=settings.batch_size,
            on_patient=on_patient,
            on_refused=refused,
            run=run,
        )
        result = SourceIngestReport(
            run=run,
            ingest=report,
            rows=ledger.reports(),
            rejects=str(sink.path) if sink.count else None,
        )
        finish_run(g, run, result)
    finally:
        sink.close()
        if own:
            g.close()
    return result


TRAJECTORY_COUNTS = (
    "patients",
    "encounters",
    "episodes",
    "items_in_encounters",
    "items_outside_encounters",
    "undated_items",
    "notes",
)


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
    from kgverify.ehr import Ledger, write_jsonl
    from kgverify.ehr.episodes import episodes, undated_items
    from kgverify.ehr.model import Note
    from kgverify.ehr.report import TrajectoriesReport

    settings = settings or Settings()
    sink = RejectSink(rejects_path or _cache_rejects(settings) / f"trajectories-{source}.jsonl")
    ledger = Ledger(sink)
    counts = dict.fromkeys(TRAJECTORY_COUNTS, 0)

    def counted(trajectories: Iterable[Trajectory]) -> Iterator[Trajectory]:
        for trajectory in trajectories:
            counts["patients"] += 1
            counts["encounters"] += len(trajectory.encounters)
            counts["episodes"] += len(episodes(trajectory))
            counts["items_in_encounters"] += sum(
                1 for e in trajectory.encounters for _ in e.items()
            )
            counts["items_outside_encounters"] += sum(
                1 for _ in trajectory.items_outside_encounters.items()
            )
            counts["undated_items"] += undated_items(trajectory)
            counts["notes"] += sum(isinstance(item, Note) for item in trajectory.items())
            yield trajectory

    try:
        with whole_file(out) as partial:
            open_private(partial).close()  # owner-only before any note text is in it
            write_jsonl(counted(read_trajectories(source, path, ledger, settings)), partial)
    finally:
        sink.close()
    return TrajectoriesReport(
        source=source,
        **counts,
        out=str(out),
        rows=ledger.reports(),
        rejects=str(sink.path) if sink.count else None,
    )


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
    from kgverify.ehr import Ledger
    from kgverify.engines import ENGINES
    from kgverify.extract.registry import EXTRACTORS
    from kgverify.extract.run import ExtractorSpec, run_extraction

    settings = settings or Settings()
    spec = ExtractorSpec(EXTRACTORS.check(extractor), model, base_url, api_key, concurrency)
    run_on = ENGINES.pick(engine)
    sink = RejectSink(rejects_path or _cache_rejects(settings) / f"extract-{source}.jsonl")
    try:
        ledger = Ledger(sink)
        trajectories = read_trajectories(source, path, ledger, settings)
        with run_on.extraction(settings, spec, progress) as extraction:
            report = run_extraction(extraction, extractor, trajectories, out)
    finally:
        sink.close()
    report.rows = ledger.reports()
    report.rejects = str(sink.path) if sink.count else None
    return report


def graph_summary(settings: Settings | None = None, graph: Graph | None = None) -> GraphSummary:
    """What the graph holds, as ``kgverify summary`` shows it.

    Releases, concept counts per vocabulary, relationship counts per type and patient facts
    per kind, each a list of rows.

    >>> summary = graph_summary()
    >>> summary.concepts[0]["vocab"], summary.relationships[0]["type"]
    """
    from kgverify.graph.summary import read_summary

    with _graph(settings or Settings(), graph) as g:
        return read_summary(g)


def runs(
    settings: Settings | None = None, graph: Graph | None = None, *, limit: int = 100
) -> list[RunRecord]:
    """The runs the graph holds, newest first (docs/runs.md).

    Each with its source, times, settings hash, patients and the items derived from them.

    >>> [(r.id, r.patients, r.items) for r in runs()]
    """
    from kgverify.runs import list_runs

    with _graph(settings or Settings(), graph) as g:
        return list_runs(g, limit)


def diff_runs(
    a: str, b: str, settings: Settings | None = None, graph: Graph | None = None
) -> RunDiff:
    """Two runs compared: the figures that differ, and how their patients and items overlap.

    An id the graph does not hold is one :class:`~kgverify.errors.ConfigError` line.

    >>> first, second = runs()[1].id, runs()[0].id
    >>> diff = diff_runs(first, second)
    >>> diff.differences, diff.items.only_b
    """
    from kgverify.runs import diff_runs as compare

    with _graph(settings or Settings(), graph) as g:
        return compare(g, a, b)


def build_linker_index(
    settings: Settings | None = None, graph: Graph | None = None, *, rebuild: bool = False
) -> IndexInfo:
    """The linker index of the graph's current releases, built only if they changed.

    ``rebuild`` builds it anyway. Cached under ``<cache_dir>/linker/<key>``; see
    docs/linking.md.
    """
    from kgverify.link.index import IndexInfo, ensure_index

    settings = settings or Settings()
    with _graph(settings, graph) as g:
        directory = ensure_index(g, settings, rebuild=rebuild)
    return IndexInfo.model_validate_json((directory / "meta.json").read_text())


def open_linker(
    settings: Settings | None = None, graph: Graph | None = None, *, rebuild: bool = False
) -> Linker:
    """A ``Linker`` over the graph's index (built first when needed).

    Codes are mapped through ``graph``, which must stay open while the linker is used.

    >>> from kgverify.link import MentionQuery
    >>> linker = open_linker(settings, graph)
    >>> [link] = linker.link([MentionQuery("heart attack")])
    >>> link.status, link.concept_id
    ('linked', 'UMLS:C0027051')
    """
    from kgverify.link.linker import Linker

    settings = settings or Settings()
    return Linker.open(settings, graph or Graph.connect(settings), rebuild=rebuild)


def find_concepts(
    text: str, *, limit: int = 10, settings: Settings | None = None, graph: Graph | None = None
) -> list[dict[str, Any]]:
    """Concepts for a name, as the linker sees it (``kgverify find``).

    The linker's candidates come first, in its order, with its method (``found_by``
    "linker"), then the full-text matches over names and synonyms it did not list
    (``method`` "fulltext", ``found_by`` "full-text search"). Every row's ``score`` is on
    the linker's scale, 0 to 1: a full-text match gets the score the linker's TF-IDF stage
    would give its nearest name (``Linker.name_score``; Lucene's own score, unbounded, is
    not comparable). ``close`` says whether the score reaches ``link_threshold``: when no
    row is close, the text is not in the loaded vocabularies and the rows are only its
    nearest names. With no release loaded there is no index: only the full-text search
    runs, its scores are Lucene's divided by the best one, and no row is close.
    """
    from kgverify.link.index import LinkerIndexError
    from kgverify.link.linker import MentionQuery
    from kgverify.link.normalize import fold_accents

    settings = settings or Settings()
    rows: list[dict[str, Any]] = []
    with _graph(settings, graph) as g:
        try:
            # An auditor looking a name up wants its neighbours even when the name matched.
            linker = open_linker(settings.model_copy(update={"link_alternatives": True}), g)
        except LinkerIndexError:
            linker = None
        try:
            if linker is not None:
                [link] = linker.link([MentionQuery(text)])
                for candidate in link.candidates:
                    rows.append(
                        {
                            "id": candidate.concept_id,
                            "name": candidate.name,
                            "vocab": candidate.vocab,
                            "kinds": candidate.kinds,
                            "active": True,  # the index holds active concepts only
                            "score": candidate.score,
                            "method": candidate.method.value,
                            "found_by": "linker",
                            "linked": candidate.concept_id == link.concept_id,
                        }
                    )
            listed = {row["id"] for row in rows}
            # The full-text index does not fold accents as the linker does: the folded words
            # are searched beside the text's own ("népafénac" finds "Nepafenac").
            words = lucene_words(text)
            if (folded := fold_accents(text)) != text:
                words = f"{words} {lucene_words(folded)}"
            found = [
                row
                for row in g.read("summary/find_concepts_by_name", text=words, limit=limit)
                if row["id"] not in listed
            ]
            best = max((row["score"] for row in found), default=0.0) or 1.0
            for row in found:
                names = row.pop("names")
                score = (
                    linker.name_score(text, names) if linker is not None else row["score"] / best
                )
                rows.append(
                    row
                    | {
                        "score": round(score, 4),
                        "method": "fulltext",
                        "found_by": "full-text search",
                        "linked": False,
                    }
                )
        finally:
            if linker is not None:
                linker.index.close()
    # Without an index nothing is loaded to be close to, and Lucene's relative scores say
    # nothing about closeness.
    return [
        row | {"close": linker is not None and row["score"] >= settings.link_threshold}
        for row in rows[:limit]
    ]


_LUCENE_SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/')


def lucene_words(text: str) -> str:
    """Search text as plain words for the full-text index.

    Lucene's operators are escaped and AND / OR / NOT lower-cased (the index lower-cases
    anyway), so quotes, slashes and the like are searched for instead of failing to parse.
    """
    return "".join("\\" + c if c in _LUCENE_SPECIAL else c for c in text.lower())


@batch_work
def link_relations_file(
    relations: Path,
    out: Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    trajectories: Path | None = None,
    rejects_path: Path | None = None,
    rebuild_index: bool = False,
    engine: str = "local",
    progress: Callable[[int], None] | None = None,
) -> LinkReport:
    """Link both mentions of every candidate relation in a JSONL file.

    Links against the loaded vocabularies and writes ``LinkedRelation`` JSONL to ``out``
    (replaced only when the run completes). ``trajectories`` (JSONL) gives note text for
    abbreviations. Bad lines go, with their line number, to the rejects file. ``engine``
    (``kgverify.engines.ENGINES``): "local", or "ray" to split each batch over Ray actors
    (the same output).

    Raises:
        ConfigError: ``relations`` does not exist, or ``engine`` is unknown.
        RejectThresholdError: more lines were rejected than ``max_reject_share`` allows.
    """
    from kgverify.engines import ENGINES
    from kgverify.firstseen import FirstSeen
    from kgverify.link.index import ensure_index
    from kgverify.link.model import write_linked
    from kgverify.link.relations import Contexts, LinkReport, link_relations
    from kgverify.verify.report import read_relations_any

    settings = settings or Settings()
    run_on = ENGINES.pick(engine)
    report = LinkReport(out=str(out))
    contexts = Contexts.from_file(trajectories) if trajectories is not None else None
    with (
        _file_run(relations, out, rejects_path) as run,
        _graph(settings, graph) as g,
        FirstSeen() as seen,
    ):
        if rebuild_index:
            ensure_index(g, settings, rebuild=True)
        with run_on.linker(settings, g) as linker:
            linked = link_relations(
                # A repeated relation_id is a rejected line: ids stay one relation each.
                cast(
                    "Iterator[CandidateRelation | BadLine]",
                    read_relations_any(relations, seen=seen, candidates_only=True),
                ),
                linker,
                report,
                contexts=contexts,
                on_reject=run.reject,
                batch_size=_relation_batch(settings),
                progress=progress,
            )
            write_linked(linked, run.partial)
    report.rejects = run.rejects
    return report


def open_verifier(
    settings: Settings | None = None,
    graph: Graph | None = None,
    *,
    write: bool = False,
    contexts: Contexts | None = None,
) -> Verifier:
    """A ``Verifier`` over ``graph``, which must stay open while it is used.

    Rules come from ``queries/verify/``, the filter policy from ``settings``, the linker is
    opened on first need. It judges without writing; ``write=True`` also writes each
    verdict back as an ``(:Assertion)`` about the relation's patient (what
    ``verify_relations_file`` does). It keeps the rules' evidence per triple between
    batches (``verify_cache``), so it reflects the vocabularies as they were when it read
    them: after loading a release, open a new one.

    >>> with open_verifier(settings, graph) as verifier:
    ...     [verdict] = verifier.verify([relation])
    >>> verdict.verdict, verdict.rule, verdict.evidence[0].edges
    """
    from kgverify.graph.schema import ensure_schema
    from kgverify.verify.verifier import Verifier

    settings = settings or Settings()
    graph = graph or Graph.connect(settings)
    if write:
        ensure_schema(graph)
    return Verifier(graph, settings, write=write, contexts=contexts)


def check(
    subject: str,
    predicate: str,
    obj: str,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> CheckResult:
    """What the vocabularies say about one relation, by name.

    ``check("metformin", "treats", "type 2 diabetes mellitus")``: both names are linked,
    the verification rules run, and the answer comes back with the linked concepts and the
    evidence paths named (each edge with the source that asserts it and its release).
    Nothing is written. An ``unsupported`` verdict means *not in the vocabularies*, not
    false.

    Raises:
        ConfigError: ``predicate`` is not one of indicates, treats, leads_to,
            contraindicated_for.

    >>> result = check("metformin", "treats", "type 2 diabetes mellitus")
    >>> result.verdict, result.evidence[0].text
    ('supported', 'Metformin -[MAY_TREAT, MED-RT, UMLS 2025AA]-> Diabetes Mellitus, ...')
    """
    return _check(subject, predicate, obj, settings, graph, explain=False)


def explain(
    subject: str,
    predicate: str,
    obj: str,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> Explanation:
    """:func:`check` with how the verdict was reached.

    Each side's link (stage, score, the linker's candidates) and every evidence path
    found, one line each (``Explanation.steps``; ``str(result)`` prints them). Nothing is
    written.
    """
    from kgverify.verify.check import Explanation

    result = _check(subject, predicate, obj, settings, graph, explain=True)
    assert isinstance(result, Explanation)
    return result


def _check(
    subject: str,
    predicate: str,
    obj: str,
    settings: Settings | None,
    graph: Graph | None,
    *,
    explain: bool,
) -> CheckResult:
    from kgverify.verify.check import question, run_check

    relation = question(subject, predicate, obj)  # a bad predicate fails before connecting
    settings = settings or Settings()
    with _graph(settings, graph) as g, open_verifier(settings, g, write=False) as verifier:
        verifier.enrich = False
        return run_check(verifier, relation, explain=explain)


@batch_work
def verify_relations_file(
    relations: Path,
    out: Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    trajectories: Path | None = None,
    rejects_path: Path | None = None,
    write: bool = True,
    engine: str = "local",
    progress: Callable[[int], None] | None = None,
) -> VerifyReport:
    """Verify every relation in a JSONL file and write ``Verdict`` JSONL to ``out``.

    ``relations`` holds candidate or linked relations (what is not linked is linked
    first). ``out`` is replaced only when the run completes; verdicts are written back to
    the graph as assertions unless ``write`` is false. Bad lines go, with their line
    number, to the rejects file. ``engine`` as for :func:`link_relations_file` ("ray":
    each batch split by patient over Ray actors, each writing its patients' assertions).

    Raises:
        ConfigError: ``relations`` does not exist, or ``engine`` is unknown.
        RejectThresholdError: more lines were rejected than ``max_reject_share`` allows.
    """
    import time

    from kgverify.engines import ENGINES
    from kgverify.firstseen import FirstSeen
    from kgverify.verify.model import Verdict, write_verdicts
    from kgverify.verify.report import VerifyReport, read_relations_any

    settings = settings or Settings()
    run_on = ENGINES.pick(engine)
    report = VerifyReport(out=str(out))
    started = time.perf_counter()
    with (
        _file_run(relations, out, rejects_path) as run,
        _graph(settings, graph) as g,
        FirstSeen() as seen,
    ):

        def good() -> Iterator[Any]:
            # A repeated relation_id is a rejected line, so one line is one assertion.
            for item in read_relations_any(relations, seen=seen):
                report.read += 1
                if isinstance(item, tuple):
                    report.rejected += 1
                    run.reject(*item)
                    continue
                yield item
                if progress is not None:
                    progress(report.read)

        def refused(verdict: Verdict, reason: str) -> None:
            # Verified but not in the graph: the rejects file says which line and why.
            line = seen.line_of(verdict.relation_id)
            run.reject(line, f"assertion not written: {reason}", verdict.relation.model_dump_json())

        with run_on.verifier(settings, g, write, trajectories) as verifier:
            verifier.on_refused = refused
            verdicts = verifier.iter_verify(good(), _relation_batch(settings))
            write_verdicts(report.count(verdicts), run.partial)
    report.written = verifier.written
    report.not_written = verifier.not_written
    report.not_written_reasons = dict(sorted(verifier.not_written_reasons.items()))
    report.unknown_patients = verifier.unknown_patients
    report.unknown_encounters = verifier.unknown_encounters
    report.evidence_read = verifier.evidence_read
    report.evidence_cached = verifier.evidence_cached
    report.link = verifier.link_report if verifier.link_report.read else None
    report.seconds = round(time.perf_counter() - started, 3)
    if report.seconds:
        report.relations_per_second = round(report.verified / report.seconds, 1)
    report.rejects = run.rejects
    return report


@batch_work
def derive_qa(
    out: Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    tasks: Iterable[str] | None = None,
    write: bool = True,
    progress: Callable[[int], None] | None = None,
    policy: FilterPolicy | None = None,
    engine: str = "local",
) -> DeriveReport:
    """Derive QA items from the passed assertions in the graph into the folder ``out``.

    The tasks are diagnosis, treatment and prognosis, or the ``tasks`` named. ``out`` gets
    a Hugging Face ``datasets`` layout (``out/<task>/<split>.jsonl``, README.md,
    schema.json) and, unless ``write`` is false, the graph gets ``(:Item)`` provenance.
    Same graph and seed, same bytes.

    The filter policy: ``policy``, else the settings' when a policy setting was given
    (``verify_accept``, ``verify_min_score``, ``verify_min_confidence`` set by the
    environment, the config file or ``Settings(...)``), is re-applied to every assertion's
    stored verdict, score and confidence; with neither, each assertion's stored ``passed``
    decides. ``report.policy`` (``policy@<hash>`` or ``stored``), the dataset card and
    ``out/policy.json`` record which.

    ``engine`` (``kgverify.engines.ENGINES``): "local", or "ray" to work on each page of
    patients on Ray actors (docs/scale.md); the items are the same, byte for byte.

    >>> report = derive_qa(Path("qa"), settings=settings, graph=graph)
    >>> report.items["treatment"]["train"], report.distractors_rejected
    >>> datasets.load_dataset("qa", "treatment")
    """
    from kgverify.derive import Task, run_qa
    from kgverify.derive.qa import TASKS
    from kgverify.engines import ENGINES

    settings = settings or Settings()
    chosen = {Task(TASKS.check(t)) for t in tasks} if tasks else None
    pages = ENGINES.pick(engine).qa_pages
    with _graph(settings, graph) as g:
        return run_qa(
            g,
            settings,
            out,
            tasks=chosen,
            write=write,
            progress=progress,
            policy=policy,
            pages=pages,
        )


@batch_work
def derive_facts(
    out: Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    progress: Callable[[int], None] | None = None,
    gzip: bool = False,
    engine: str = "local",
) -> FactsReport:
    """Fact sheets for record-grounded simulated patients, one per patient.

    Written to ``out/sheets.jsonl`` (``out/sheets.jsonl.gz`` with ``gzip``) with
    ``out/schema.json`` (docs/derivation.md). ``engine`` as for :func:`derive_qa` ("ray":
    each page of patients built on Ray actors, the same bytes).
    """
    from kgverify.derive import run_facts
    from kgverify.engines import ENGINES

    settings = settings or Settings()
    pages = ENGINES.pick(engine).sheet_pages
    with _graph(settings, graph) as g:
        return run_facts(g, settings, out, progress=progress, gzip=gzip, sheet_pages=pages)


def calibrate_items(
    qa_dir: Path,
    *,
    models: Sequence[str],
    base_url: str | None = None,
    out: Path | None = None,
    backend: str = "openai",
    tasks: Iterable[str] | None = None,
    splits: Iterable[str] | None = None,
    limit: int | None = None,
    api_key: str | None = None,
    concurrency: int = 4,
    timeout_s: float = 120.0,
    seed: int = 0,
    max_tokens: int = 16,
    cache: bool = True,
    engine_kwargs: dict[str, Any] | None = None,
    settings: Settings | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> CalibrationReport:
    """Ask every QA item of ``qa_dir`` of each model of a panel; how hard is each item?

    ``qa_dir`` is a folder of ``derive_qa`` (``<task>/<split>.jsonl``), narrowed to
    ``tasks``, ``splits`` and the first ``limit`` items of each task. ``backend``: "openai"
    (any OpenAI-compatible server such as ``vllm serve`` at ``base_url``, ``concurrency``
    requests at a time) or "vllm" (the offline engine, each model loaded in turn in this
    process; ``engine_kwargs`` go to ``vllm.LLM``). Each item is asked once per model with
    the calibration prompt (the letter only), temperature 0, ``seed``, ``max_tokens``; only
    ``B``, ``B.``, ``(B)`` and ``Answer: B`` are read as a label, anything else is counted
    unparsed. Answers are cached in ``<cache_dir>/llm-cache.sqlite`` (``cache=False``: not
    read, not written). Written, owner-only, to ``out`` (default: ``<qa_dir>-calibration``
    beside it): ``calibration.jsonl`` (item, model, parsed label, correct; no answer text)
    and ``report.json``. ``progress(done, total)`` over every answer (items x models).

    Raises:
        ConfigError: a missing or empty ``qa_dir``, an unknown task, split or backend, no
            ``base_url`` for "openai" or one that is not http(s).
        LLMUnavailableError: the server cannot be reached, or vllm is not installed.
        LLMRequestError: the server refuses the requests (unknown model, credentials).

    >>> report = calibrate_items(Path("qa"), models=["Qwen/Qwen2.5-7B-Instruct"],
    ...                          base_url="http://127.0.0.1:8000/v1", splits=["test"])
    >>> report.totals[0].accuracy, len(report.solved_by_all), report.unparsed
    """
    from kgverify.derive.calibrate import calibrate, open_panel, read_qa_items
    from kgverify.extract.cache import CACHE_FILE, ResponseCache

    settings = settings or Settings()
    qa_dir = Path(qa_dir)
    items = read_qa_items(
        qa_dir, list(tasks) if tasks else None, list(splits) if splits else None, limit
    )
    if max_tokens < 1:
        raise ConfigError(f"max_tokens must be at least 1, not {max_tokens}")
    params: dict[str, Any] = {"temperature": 0.0, "max_tokens": max_tokens, "seed": seed}
    panel = open_panel(
        backend,
        base_url=base_url,
        api_key=api_key,
        concurrency=concurrency,
        timeout_s=timeout_s,
        params=params,
        engine_kwargs=engine_kwargs,
    )
    folder = Path(out) if out is not None else qa_dir.with_name(qa_dir.name + "-calibration")
    responses = ResponseCache(settings.cache_dir / CACHE_FILE) if cache else None
    try:
        return calibrate(
            items,
            [models] if isinstance(models, str) else list(models),
            panel,
            folder,
            qa_dir=qa_dir,
            params=params,
            cache=responses,
            progress=progress,
        )
    finally:
        if responses is not None:
            responses.close()


# -- dialogues (docs/dialogue.md) -------------------------------------------------------------
if TYPE_CHECKING:
    from kgverify.derive.model import FactSheet
    from kgverify.dialogue import DialogueReport, ForgetReport, TurnVerdict
    from kgverify.dialogue.checker import DialogueChecker
    from kgverify.dialogue.patient import SimulatedPatient


def open_dialogue_checker(
    settings: Settings | None = None, graph: Graph | None = None
) -> DialogueChecker:
    """A ``DialogueChecker`` over ``graph``, which must stay open while it is used.

    It holds the mention dictionary built from the graph's names, the linker and a
    read-only verifier. Open it once and hand it to :func:`check_turn` inside an agent
    loop.
    """
    from kgverify.dialogue.checker import DialogueChecker

    settings = settings or Settings()
    graph = graph or Graph.connect(settings)
    verifier = open_verifier(settings, graph, write=False)
    verifier.enrich = False
    return DialogueChecker(verifier)


def check_turn(
    text: str,
    sheet: FactSheet,
    encounter_id: str | None = None,
    *,
    checker: DialogueChecker | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> TurnVerdict:
    """Judge every clinical mention of one patient turn against the record and the graph.

    The record is the patient's fact sheet at ``encounter_id`` (None: the whole record).
    Each mention is grounded, leak, contradicted, unsupported (no fact in the record
    behind it, not false) or unlinked, with evidence. ``result.problems()`` is what a guard
    asks the agent to say again. Nothing is written.

    >>> verdict = check_turn("I think it's strep throat", sheet, "day:1990-02-08")
    >>> [(m.text, m.verdict) for m in verdict.mentions]
    [('strep throat', 'leak')]
    """
    from kgverify.dialogue.record import view

    record = view(sheet, encounter_id)
    if record is None:
        raise ConfigError(f"patient {sheet.patient_id} has no encounter {encounter_id!r}")
    if checker is not None:
        return checker.check_turn(text, record)
    settings = settings or Settings()
    with _graph(settings, graph) as g:
        return open_dialogue_checker(settings, g).check_turn(text, record)


@batch_work
def check_dialogues(
    dialogues: Path,
    out: Path,
    *,
    facts: Path | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
    rejects_path: Path | None = None,
    progress: Callable[[int], None] | None = None,
    write: bool = True,
) -> DialogueReport:
    """Judge every patient turn of a dialogue JSONL file (docs/dialogue.md).

    Turns are judged against the fact sheets in ``facts`` (a ``derive facts`` folder;
    default: the sample's, ``<cache_dir>/sample/facts``) and the graph; one
    ``DialogueVerdicts`` line per dialogue goes to ``out`` (replaced only when the run
    completes). Bad lines go, with their line number, to the rejects file. With ``write``,
    each dialogue is also stored in the graph, text-free (a ``(:Dialogue)`` and its
    ``(:DialogueMention)`` nodes, replaced on a re-check) for the ``dialogue_*`` audit
    queries.
    """
    from kgverify.dialogue.run import check_file
    from kgverify.dialogue.store import VerdictStore

    if not dialogues.is_file():
        raise ConfigError(f"no such dialogues file: {dialogues}")
    settings = settings or Settings()
    folder = facts if facts is not None else settings.cache_dir / "sample" / "facts"
    with _file_run(dialogues, out, rejects_path) as run, _graph(settings, graph) as g:
        checker = open_dialogue_checker(settings, g)
        store = VerdictStore(g, min(settings.batch_size, 500)) if write else None
        try:
            report = check_file(
                checker, dialogues, folder, run.partial, run.reject, progress, store
            )
        finally:
            checker.verifier.close()
    report.out = str(out)
    report.rejects = run.rejects
    return report


def forget_dialogues(
    ids: Sequence[str] | None = None,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> ForgetReport:
    """Remove checked dialogues from the graph (the verdicts files keep them).

    Removes the ``(:Dialogue)`` nodes of ``ids`` (every stored one when ``ids`` is None)
    with their ``(:DialogueMention)`` nodes, in batches, so the ``dialogue_*`` audit
    queries stop counting them; a dialogue checked again is stored again.

    Raises:
        DialogueNotFoundError: an id the graph does not hold (nothing is removed then).

    Example:
        >>> forget_dialogues(["sample-01"])                   # doctest: +SKIP
        ForgetReport(dialogues=1, mentions=4)
    """
    from kgverify.dialogue.store import forget

    settings = settings or Settings()
    with _graph(settings, graph) as g:
        return forget(g, ids, min(settings.batch_size, 500))


def simulated_patient(
    sheet: FactSheet,
    encounter_id: str | None = None,
    *,
    base_url: str,
    model: str,
    api_key: str | None = None,
    params: dict[str, Any] | None = None,
    retries: int = 2,
    checker: DialogueChecker | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> SimulatedPatient:
    """A reference simulated patient on an OpenAI-compatible server (``vllm serve``).

    It is prompted only with the sheet's patient-sayable facts at ``encounter_id``; every
    reply is checked by :func:`check_turn` and asked again (up to ``retries`` times, with
    the reasons) while it leaks, contradicts or invents. ``graph`` (or the checker's) must
    stay open while the patient talks.

    >>> patient = simulated_patient(sheet, "day:1990-02-08", base_url=url, model="m")
    >>> turn = patient.reply("What brings you in today?")
    >>> turn.text, turn.accepted, len(turn.attempts)
    """
    from kgverify.dialogue.patient import REPLY_SCHEMA, SimulatedPatient
    from kgverify.extract.backends import OpenAIBackend

    backend = OpenAIBackend(
        base_url, model, api_key=api_key, concurrency=1, params=params, schema=REPLY_SCHEMA
    )
    if checker is None:
        settings = settings or Settings()
        checker = open_dialogue_checker(settings, graph or Graph.connect(settings))
    return SimulatedPatient(backend, sheet, encounter_id, checker, retries=retries)


def sample_dialogues(out: Path | None = None, *, settings: Settings | None = None) -> Path:
    """Write the shipped sample dialogues with this installation's patient pseudonyms.

    From ``kgverify/sample/dialogues`` to ``out`` (default
    ``<cache_dir>/sample/dialogues.jsonl``), for :func:`check_dialogues` against the
    sample's fact sheets.
    """
    from kgverify.dialogue.model import write_dialogues
    from kgverify.dialogue.sample import read_sample, resolve

    settings = settings or Settings()
    out = out or settings.cache_dir / "sample" / "dialogues.jsonl"
    make_dirs(out.parent)
    shipped = read_sample(sample_path("dialogues", "dialogues.jsonl"))
    write_dialogues(resolve(shipped, settings), out)
    return out


def filter_sweep(
    policies: Iterable[FilterPolicy],
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> list[dict[str, Any]]:
    """How the benchmark changes with the filter policy.

    For each policy, a derivation (nothing written to the graph, files in a temporary
    folder) and what it gives: the assertions kept out, the items per task and in all.

    >>> from kgverify.verify.verifier import FilterPolicy
    >>> strict = FilterPolicy(accept={"supported"}, min_score=0.9, min_confidence=0.0)
    >>> filter_sweep([strict])[0]["items"]
    """
    import tempfile

    settings = settings or Settings()
    out = []
    with _graph(settings, graph) as g, tempfile.TemporaryDirectory() as tmp:
        for n, policy in enumerate(policies):
            report = derive_qa(
                Path(tmp) / str(n), settings=settings, graph=g, write=False, policy=policy
            )
            per_task = {task: sum(splits.values()) for task, splits in report.items.items()}
            out.append(
                {
                    "accept": sorted(v.value for v in policy.accept),
                    "min_score": policy.min_score,
                    "min_confidence": policy.min_confidence,
                    "filtered": sum(report.filtered.values()),
                    "items": per_task,
                    "total": sum(per_task.values()),
                }
            )
    return out


def audit(
    name: str,
    params: dict[str, Any] | None = None,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    resolved: Callable[[Resolved], None] | None = None,
) -> list[dict[str, Any]]:
    """Run an audit query from ``queries/audit/`` (read-only) and return its rows.

    Values are checked and converted against the query's declared parameters; one that
    does not fit is a ``ConfigError`` naming the parameter. A concept parameter may name
    the concept instead of giving its id: the name is linked (as ``find_concepts`` looks it
    up), the link is passed to ``resolved``, and a name that links nothing is a
    ``ConfigError``.

    >>> audit("items_on_concept", {"concept": "SNOMEDCT:43878008"})[0]["role"]
    'answer'
    >>> audit("items_on_concept", {"concept": "metformin"}, resolved=print)
    >>> audit("rejected_relations", {"verdict": "unsupported", "limit": 5})
    """
    from kgverify.audit import run_audit

    settings = settings or Settings()
    with _graph(settings, graph) as g:
        return run_audit(g, name, settings=settings, resolved=resolved, **(params or {}))


def audits() -> list[Audit]:
    """Every audit query with what it does and its parameters (``kgverify audit --list``)."""
    from kgverify.audit import list_audits

    return list_audits()


def lineage(
    item_id: str, *, settings: Settings | None = None, graph: Graph | None = None
) -> Lineage:
    """Why an item exists, as one model.

    Its assertions, their evidence paths, concepts, source rows and extractors (what
    ``kgverify audit item_lineage --param item=ID`` shows).

    >>> lin = lineage("8fa4f73c707f9c1d1d75")
    >>> lin.assertions[0].rule, lin.assertions[0].facts[0].table
    """
    from kgverify.audit import item_lineage

    with _graph(settings or Settings(), graph) as g:
        return item_lineage(g, item_id)


def export_prov(
    item_id: str,
    fmt: str = "turtle",
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> str:
    """An item's lineage as W3C PROV-O, serialized as Turtle or JSON-LD (``fmt``)."""
    from kgverify.audit import serialize_prov

    return serialize_prov(lineage(item_id, settings=settings, graph=graph), fmt)


@batch_work
def reverify(
    releases: Iterable[str] | None = None,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    progress: Callable[[int], None] | None = None,
) -> ReverifyReport:
    """Re-verify the assertions a newer vocabulary release could change (docs/audit.md).

    After the release is loaded: re-run the rules for the assertions whose evidence could
    touch what the ``releases`` changed (default: every current release not re-verified
    yet that some assertion was judged before), record the new verdicts beside the old,
    and flag the items that no longer stand.

    >>> load_vocabulary("umls", "path/to/2025AB")
    >>> report = reverify()
    >>> report.rechecked, report.items_flagged, report.flags
    """
    from kgverify.derive.justify import Justifier, recheck_items
    from kgverify.graph.schema import ensure_schema
    from kgverify.verify.reverify import Reverifier

    settings = settings or Settings()
    with _graph(settings, graph) as g, open_verifier(settings, g, write=False) as verifier:
        ensure_schema(g)  # the run's indexes (concept_touched, assertion_touched)
        justifier = Justifier(g, verifier.hubs, settings.derive_near_depth)
        return Reverifier(
            verifier, progress=progress, justify=lambda items: recheck_items(justifier, items)
        ).run(list(releases) if releases is not None else None)


def _relation_batch(settings: Settings) -> int:
    """Relations per linking / verification round trip."""
    return max(1, min(settings.batch_size, 5_000))


class _FileRun:
    """Where a relation-file run writes.

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
def _file_run(relations: Path, out: Path, rejects_path: Path | None) -> Iterator[_FileRun]:
    """Check the input exists; rename the output into place on success, remove it on failure.

    So ``out`` is never half-written.
    """
    if not relations.is_file():
        raise ConfigError(f"no such relations file: {relations}")
    make_dirs(out.parent)
    run = _FileRun(relations, out, rejects_path)
    try:
        yield run
        run.partial.replace(out)
    finally:
        run.sink.close()
        run.partial.unlink(missing_ok=True)


@contextmanager
def _graph(settings: Settings, graph: Graph | None) -> Iterator[Graph]:
    """The caller's graph, or one opened (and closed) here."""
    if graph is not None:
        yield graph
        return
    with Graph.connect(settings) as opened:
        yield opened


def sample_path(*parts: str) -> Path:
    """A path inside the shipped sample data (``kgverify/sample``)."""
    return Path(str(resources.files("kgverify").joinpath("sample").joinpath(*parts)))


SAMPLE_EHR = ("omop", ("omop", "eunomia_sample"))
SAMPLE_RELEASES = {
    "umls": ("umls", "2025AA"),
    "snomed": ("snomed", "SnomedCT_InternationalRF2_PRODUCTION_20250101T120000Z"),
    "rxnorm": ("rxnorm", "RxNorm_full_01062025"),
}


def run_sample(
    settings: Settings | None = None,
    progress: ProgressFactory | None = None,
    on_step: StepListener | None = None,
    bars: CountBars | None = None,
) -> PipelineReport:
    """Run the main job on the shipped sample.

    Local Neo4j up, sample vocabularies loaded, the sample EHR ingested, candidate
    relations extracted to ``<cache_dir>/sample``, linked (with the shipped LLM-style
    relations that hold the hard linking cases), verified, QA items and fact sheets
    derived to ``<cache_dir>/sample/qa`` and ``.../facts``, and the shipped
    simulated-patient dialogues checked against those sheets. ``on_step`` hears of each
    step as it starts and ends (:class:`~kgverify.pipeline.StepEvent`).
    """
    from kgverify.server import LocalServer

    settings = settings or Settings()
    if settings.neo4j_uri is None:
        LocalServer(settings).start()
    with Graph.connect(settings) as graph:
        return sample_pipeline(graph, settings, progress, on_step, bars)


def sample_pipeline(
    graph: Graph,
    settings: Settings,
    progress: ProgressFactory | None = None,
    on_step: StepListener | None = None,
    bars: CountBars | None = None,
) -> PipelineReport:
    """The steps of :func:`run_sample` on an open graph (the tests and notebooks use it).

    :func:`pipeline` with the sample's parameters, its outputs in ``<cache_dir>/sample``.
    """
    from kgverify.pipeline import RelationsInput

    kind, parts = SAMPLE_EHR
    return pipeline(
        vocabularies={name: sample_path(*folders) for name, folders in SAMPLE_RELEASES.items()},
        source=kind,
        source_path=sample_path(*parts),
        out=settings.cache_dir / "sample",
        relations=[
            RelationsInput(
                path=sample_path("relations", "llm_style.jsonl"),
                trajectories=sample_path("relations", "llm_style_trajectories.jsonl"),
            )
        ],
        # The shipped simulated-patient turns, checked against the sheets the run derives.
        dialogues=sample_dialogues(settings=settings),
        settings=settings,
        graph=graph,
        progress=progress,
        on_step=on_step,
        bars=bars,
    )


@batch_work
def pipeline(
    *,
    source: str,
    source_path: str | Path,
    out: str | Path,
    vocabularies: Mapping[str, str | Path] | None = None,
    extractor: str = "template",
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    concurrency: int = 4,
    relations: Iterable[RelationsInput | Mapping[str, Any]] = (),
    tasks: Iterable[str] | None = None,
    facts: bool = True,
    dialogues: str | Path | None = None,
    engine: str = "local",
    settings: Settings | None = None,
    graph: Graph | None = None,
    progress: ProgressFactory | None = None,
    on_step: StepListener | None = None,
    bars: CountBars | None = None,
) -> PipelineReport:
    """Run the whole chain in one call, from vocabularies to QA items and dialogue verdicts.

    ``vocabularies`` loaded (name -> release folder, in order; none: the graph's as they
    are), the EHR ``source`` at ``source_path`` ingested,
    candidate relations extracted (``extractor``, with ``model``, ``base_url``, ``api_key``,
    ``concurrency`` for the LLM ones) to ``out/relations.jsonl``, linked
    (``out/linked.jsonl``) and verified (``out/verdicts.jsonl``, assertions written back),
    each of ``relations`` (other relation files, :class:`~kgverify.pipeline.RelationsInput`)
    linked and verified beside them (``out/linked_<stem>.jsonl``,
    ``out/verdicts_<stem>.jsonl``), QA items derived (``tasks``; default every task) to
    ``out/qa``, fact sheets (unless ``facts`` is false) to ``out/facts``, and ``dialogues``
    (dialogue JSONL), when given, checked against them to ``out/dialogue_verdicts.jsonl``.
    The ingest is a run (``report.run``; docs/runs.md): items and sheets derive from its
    patients only, and ``out/run.json`` records each step, its time and what it gave, and
    where the graph is. ``on_step`` hears of each step as it starts and ends
    (:class:`~kgverify.pipeline.StepEvent`); ``bars`` (a ``pipeline.CountBars``) draws a bar
    of the records each step has done, ``progress`` the loads' bars by bytes.

    Every parameter is checked before anything runs (``kgverify.pipeline.PipelineConfig``):
    a wrong name or value is one :class:`~kgverify.errors.ConfigError` line naming it.
    ``engine`` (``kgverify.engines.ENGINES``) says where linking and verification run:
    "local" (this process) or "ray" (each batch split over Ray actors; settings
    ``ray_address``, ``ray_workers``); the outputs are the same.
    :func:`pipeline_from_config` reads the same parameters from TOML.

    >>> report = pipeline(source="omop", source_path=sample_path("omop", "eunomia_sample"),
    ...                   out=Path("run"), tasks=["treatment"], facts=False)
    >>> report.extract.relations, report.verify[0].by_predicate, report.derive.qa.items
    """
    from kgverify.pipeline import pipeline_config

    given = {
        "source": source,
        "source_path": source_path,
        "out": out,
        "vocabularies": dict(vocabularies or {}),
        "extractor": extractor,
        "model": model,
        "base_url": base_url,
        "api_key": api_key,
        "concurrency": concurrency,
        "relations": list(relations),
        "tasks": list(tasks) if tasks is not None else None,
        "facts": facts,
        "dialogues": dialogues,
        "engine": engine,
    }
    config = pipeline_config(given, "pipeline")
    return _run_pipeline(config, settings or Settings(), graph, progress, on_step, bars)


def pipeline_from_config(
    path: str | Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    engine: str | None = None,
    progress: ProgressFactory | None = None,
    on_step: StepListener | None = None,
    bars: CountBars | None = None,
) -> PipelineReport:
    """:func:`pipeline` with its parameters read from the TOML file ``path``.

    The keys are the same; relative paths start at the file's folder. An unknown key, a
    missing one or a bad value is one :class:`~kgverify.errors.ConfigError` line naming the
    key. The connection and the other settings come from ``settings`` (default: the environment and
    ``kgverify.toml``, docs/configuration.md), not from this file. ``engine``, when given,
    replaces the file's.

    >>> report = pipeline_from_config("run.toml")
    >>> report.link[0].by_status, report.derive.qa.written
    """
    from kgverify.engines import ENGINES
    from kgverify.pipeline import read_pipeline_config

    config = read_pipeline_config(Path(path))
    if engine is not None:
        config = config.model_copy(update={"engine": ENGINES.check(engine)})
    return _run_pipeline(config, settings or Settings(), graph, progress, on_step, bars)


def _run_pipeline(
    config: PipelineConfig,
    settings: Settings,
    graph: Graph | None,
    progress: ProgressFactory | None,
    on_step: StepListener | None = None,
    bars: CountBars | None = None,
) -> PipelineReport:
    """The stages one after another in this process (the "local" engine).

    Each is told to ``on_step`` as it starts and ends, with a bar of what it counts when
    ``bars`` is given (loads draw theirs by bytes, through ``progress``); derivation reads
    only the patients this run's ingest brought; ``run.json`` is written beside the outputs.
    """
    from kgverify.pipeline import DerivedReports, PipelineReport, Steps

    out = config.out
    steps = Steps(on_step, bars)
    with _graph(settings, graph) as g:
        loads = [
            steps.run(
                f"load {name}",
                partial(_load_step, name, folder, settings, g, progress),
                lambda r: f"{r.release} {r.status}, {sum(f.loaded for f in r.files):,} rows",
            )
            for name, folder in config.vocabularies.items()
        ]
        ingested = steps.run(
            "ingest",
            lambda tick: ingest_source(
                config.source, config.source_path, settings=settings, graph=g, on_patient=tick
            ),
            lambda r: (
                f"run {r.run}: {r.ingest.patients} patients, "
                f"{r.ingest.encounters} encounters, {r.ingest.facts} facts"
            ),
            unit="patients",
        )
        patients = ingested.ingest.patients
        # This run's outputs derive from the patients it brought, and no others.
        own = settings.model_copy(update={"derive_run": ingested.run or "all"})
        extracted = steps.run(
            "extract",
            lambda tick: extract_relations(
                config.source,
                config.source_path,
                out / "relations.jsonl",
                settings=settings,
                extractor=config.extractor,
                model=config.model,
                base_url=config.base_url,
                api_key=config.api_key,
                concurrency=config.concurrency,
                engine=config.engine,
                progress=lambda done, _total: tick(done),
            ),
            lambda r: f"{r.relations} candidate relations from {r.patients} patients",
            unit="patients",
            total=patients,
        )
        inputs = [
            (Path(extracted.out), None, "linked.jsonl", "verdicts.jsonl"),
            *(
                (r.path, r.trajectories, f"linked_{r.stem}.jsonl", f"verdicts_{r.stem}.jsonl")
                for r in config.relations
            ),
        ]
        linked = [
            steps.run(
                f"link {Path(source).name}",
                partial(_link_step, source, out / name, notes, settings, g, config.engine),
                lambda r: f"{r.both_linked} of {r.linked_relations} relations linked both ways",
                unit="relations",
            )
            for source, notes, name, _ in inputs
        ]
        verified = [
            steps.run(
                f"verify {Path(report.out).name}",
                partial(_verify_step, Path(report.out), out / name, settings, g, config.engine),
                lambda r: f"{r.passed} of {r.verified} relations passed",
                unit="relations",
                total=report.linked_relations,
            )
            for report, (*_, name) in zip(linked, inputs, strict=True)
        ]
        qa = steps.run(
            "derive qa",
            lambda tick: derive_qa(
                out / "qa",
                settings=own,
                graph=g,
                tasks=config.tasks,
                engine=config.engine,
                progress=tick,
            ),
            lambda r: (
                f"{sum(sum(s.values()) for s in r.items.values())} items from "
                f"{r.patients} patients of run {r.run}"
            ),
            unit="patients",
            total=patients,
        )
        sheets = (
            steps.run(
                "derive facts",
                lambda tick: derive_facts(
                    out / "facts", settings=own, graph=g, engine=config.engine, progress=tick
                ),
                lambda r: f"{r.sheets} fact sheets of {r.patients} patients",
                unit="patients",
                total=patients,
            )
            if config.facts
            else None
        )
        dialogues = config.dialogues
        checked = (
            steps.run(
                "check dialogues",
                lambda tick: check_dialogues(
                    dialogues,
                    out / "dialogue_verdicts.jsonl",
                    facts=out / "facts",
                    settings=own,
                    graph=g,
                    progress=tick,
                ),
                lambda r: f"{r.turns} patient turns of {r.dialogues} dialogues checked",
                unit="dialogues",
            )
            if dialogues is not None
            else None
        )
        summary = graph_summary(graph=g)
    run_file = out / "run.json"
    write_run_file(run_file, config, settings, ingested.run, steps, qa)
    return PipelineReport(
        run=ingested.run,
        steps=steps.records,
        run_file=str(run_file),
        loads=loads,
        ingest=ingested,
        extract=extracted,
        link=linked,
        verify=verified,
        derive=DerivedReports(qa=qa, facts=sheets),
        dialogues=checked,
        summary=summary,
    )


def _load_step(
    name: str,
    folder: Path,
    settings: Settings,
    graph: Graph,
    progress: ProgressFactory | None,
    _tick: Callable[[int], None],
) -> LoadReport:
    """A pipeline's load step: its own bar, by bytes read (``progress``)."""
    return load_vocabulary(name, folder, settings=settings, graph=graph, progress=progress)


def _link_step(
    source: Path,
    out: Path,
    notes: Path | None,
    settings: Settings,
    graph: Graph,
    engine: str,
    tick: Callable[[int], None],
) -> LinkReport:
    """A pipeline's link step (``steps.run`` hands it the bar's ``tick``)."""
    return link_relations_file(
        source,
        out,
        settings=settings,
        graph=graph,
        trajectories=notes,
        engine=engine,
        progress=tick,
    )


def _verify_step(
    linked: Path,
    out: Path,
    settings: Settings,
    graph: Graph,
    engine: str,
    tick: Callable[[int], None],
) -> VerifyReport:
    """A pipeline's verify step (``steps.run`` hands it the bar's ``tick``)."""
    return verify_relations_file(
        linked, out, settings=settings, graph=graph, engine=engine, progress=tick
    )


def server_facts(settings: Settings) -> dict[str, str | None]:
    """Where the graph is, for the run record.

    Bolt's address, Neo4j Browser's (when the local server serves it) and the command that
    stops the local server (None for a server of your own).
    """
    if settings.neo4j_uri is not None:
        return {"bolt": settings.neo4j_uri, "browser": None, "stop": None}
    from kgverify.server import LocalServer

    status = LocalServer(settings).status()
    return {"bolt": status.uri, "browser": status.browser, "stop": "kgverify neo4j stop"}


def write_run_file(
    path: Path,
    config: PipelineConfig,
    settings: Settings,
    run: str | None,
    steps: Steps,
    qa: DeriveReport,
) -> None:
    """``run.json``: the run record (``pipeline.RunFile``), owner-only."""
    from kgverify.outputs import write_private
    from kgverify.pipeline import RunFile

    finished = datetime.now(UTC)
    record = RunFile(
        run=run,
        source=config.source,
        source_path=str(config.source_path),
        out=str(config.out),
        started_at=steps.started.isoformat(timespec="seconds"),
        finished_at=finished.isoformat(timespec="seconds"),
        seconds=round((finished - steps.started).total_seconds(), 1),
        steps=steps.records,
        counts={
            "patients": qa.patients,
            "items": sum(sum(s.values()) for s in qa.items.values()),
        },
        graph=server_facts(settings),
    )
    write_private(path, record.model_dump_json(indent=2) + "\n")


# -- review -----------------------------------------------------------------------------------
if TYPE_CHECKING:
    from kgverify.review import ReviewExportReport, ReviewImportReport, ReviewState


def review_export(
    out: Path,
    *,
    qa: Path | None = None,
    tasks: Iterable[str] | None = None,
    sample: int | None = None,
    seed: int | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> ReviewExportReport:
    """Write clinician review pages for derived items (docs/review.md).

    From the QA folder ``qa`` (default: the sample's, ``<cache_dir>/sample/qa``), per task
    the first ``sample`` items (all when None) in an order seeded by ``seed`` (default
    ``derive_seed``), written to the new folder ``out``: ``items/<item_id>.html``,
    ``index.html``, ``sheet.csv`` to fill, ``README.txt``.

    >>> report = review_export(Path("review"), sample=10)
    >>> report.exported, report.sheet
    """
    from kgverify.derive import Task
    from kgverify.derive.qa import TASKS
    from kgverify.review.export import check_paths, default_qa, export_review

    settings = settings or Settings()
    chosen = {Task(TASKS.check(t)) for t in tasks} if tasks else None
    folder = Path(qa) if qa is not None else default_qa(settings.cache_dir)
    check_paths(Path(out), folder, sample)
    with _graph(settings, graph) as g:
        return export_review(
            g,
            Path(out),
            folder,
            tasks=chosen,
            sample=sample,
            seed=settings.derive_seed if seed is None else seed,
            dates=settings.date_shift(),
        )


def review_import(
    sheet: Path,
    *,
    reviewer: str | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> ReviewImportReport:
    """Import a filled review sheet as ``(:Review)`` provenance (docs/review.md).

    The items the decisions take away are flagged. ``reviewer`` fills rows whose reviewer
    column is empty. Rejected rows are in ``report.rejects`` with their row (as a spreadsheet
    shows it) and reason; the other rows are imported (the CLI then exits 3).

    Raises:
        ReviewSheetError: the sheet cannot be read, or nothing in it is valid.

    >>> report = review_import(Path("review/sheet.csv"), reviewer="jd")
    >>> report.imported, report.rejected, report.items_flagged
    """
    from kgverify.review.importer import import_sheet

    settings = settings or Settings()
    if not Path(sheet).is_file():
        raise ConfigError(f"no such review sheet: {sheet}")
    with _graph(settings, graph) as g:
        return import_sheet(
            g, Path(sheet), reviewer=reviewer, batch=max(1, min(settings.batch_size, 1_000))
        )


def review_state(*, settings: Settings | None = None, graph: Graph | None = None) -> ReviewState:
    """The standing reviewer decisions, for derivation to respect (``ReviewState``)."""
    from kgverify.review import ReviewState

    with _graph(settings or Settings(), graph) as g:
        return ReviewState.read(g)


_INT = re.compile(r"[+-]?(0|[1-9]\d*)")  # "007" stays a string
_FLOAT = re.compile(r"[+-]?((0|[1-9]\d*)(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def cypher_param(text: str) -> tuple[str, Any]:
    """One ``KEY=VALUE`` of ``kgverify cypher -p``, the value typed.

    ``true``/``false`` (booleans), ``null``, integers (not ``007``), decimals (``1.5``,
    ``1e-3``), JSON lists, maps and quoted strings (``[1, 2]``, ``{"a": 1}``, ``"42"``);
    anything else is a string.

    >>> cypher_param("limit=5"), cypher_param('ids=["a", "b"]'), cypher_param("code=007")
    (('limit', 5), ('ids', ['a', 'b']), ('code', '007'))
    >>> cypher_param('code="42"'), cypher_param("name=type 2 diabetes")
    (('code', '42'), ('name', 'type 2 diabetes'))
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"a parameter is KEY=VALUE, got {text!r}")
    value = raw.strip()
    lowered = value.lower()
    if lowered in ("true", "false"):
        return key, lowered == "true"
    if lowered == "null":
        return key, None
    if _INT.fullmatch(value):
        return key, int(value)
    if _FLOAT.fullmatch(value):
        return key, float(value)
    if value[:1] in ("[", "{", '"'):
        try:
            return key, json.loads(value)
        except ValueError as exc:
            raise ConfigError(f"parameter {key}: {value[:40]!r} is not valid JSON ({exc})") from exc
    return key, raw


def cypher(
    statement: str,
    params: dict[str, Any] | None = None,
    *,
    write: bool = False,
    max_rows: int = 0,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> AdhocResult:
    """Run one ad-hoc Cypher statement (``kgverify cypher``) in a managed transaction.

    A read transaction, or a write one with ``write=True``; a write in a read transaction
    is refused (nothing changes) with a :class:`~kgverify.errors.QueryError`, as is a
    statement Neo4j rejects.

    The engine's own statements are named queries in ``queries/``; this is for looking at
    the graph while auditing it.

    >>> result = cypher("MATCH (c:Concept) RETURN c.id, c.name LIMIT $n", {"n": 5})
    >>> result.columns, len(result.rows)
    (['c.id', 'c.name'], 5)
    """
    if not statement.strip():
        raise ConfigError("the Cypher statement is empty")
    with _graph(settings or Settings(), graph) as g:
        return g.run_adhoc(statement, params or {}, write=write, max_rows=max_rows)


# -- FHIR server (docs/fhir.md) -------------------------------------------------------------


if TYPE_CHECKING:
    from kgverify.ehr.fhir_write import FhirLoadReport


@batch_work
def load_fhir(
    source: str,
    path: str | Path,
    *,
    url: str | None = None,
    settings: Settings | None = None,
    rejects_path: Path | None = None,
    on_patient: Callable[[int], None] | None = None,
) -> FhirLoadReport:
    """Write an EHR source's patients into a FHIR server (``kgverify fhir load``).

    The source is read by its reader (pseudonyms, age bands; docs/fhir.md), each patient
    written as Patient, Encounter, Condition, MedicationRequest, Observation and Procedure
    resources with stable ids, ``fhir_load_batch`` patients per transaction bundle. ``url``:
    the server's base URL; default the ``fhir_url`` setting, else the local server of
    ``kgverify fhir start``. Loading twice updates in place.

    >>> report = load_fhir("omop", sample_path("omop", "eunomia_sample"))
    >>> report.patients, report.resources["Condition"]
    """
    from kgverify.ehr import Ledger
    from kgverify.ehr.fhir_http import FhirClient
    from kgverify.ehr.fhir_write import FhirLoadReport, write_trajectories
    from kgverify.server.fhir import local_url

    settings = settings or Settings()
    base = (url or local_url(settings)).rstrip("/")
    client = FhirClient.from_settings(base, settings)
    client.get("metadata")  # one error line for a server that does not answer, before reading
    sink = RejectSink(rejects_path or _cache_rejects(settings) / f"fhir-load-{source}.jsonl")
    ledger = Ledger(sink)
    try:
        writer = write_trajectories(
            read_trajectories(source, path, ledger, settings),
            client,
            batch=settings.fhir_load_batch,
            rejects=sink,
            on_patient=on_patient,
        )
    finally:
        sink.close()
    return FhirLoadReport(
        url=base,
        source=source,
        patients=writer.patients,
        resources=dict(sorted(writer.counts.items())),
        bundles=writer.bundles,
        refused_patients=writer.refused,
        notes_not_written=writer.notes,
        requests=client.requests,
        retried=client.retried,
        rows=ledger.reports(),
        rejects=str(sink.path) if sink.count else None,
    )


# -- agent actions and task checkpoints (docs/fhir.md; issue 36) ----------------------------

if TYPE_CHECKING:
    from kgverify.actions.model import ActionRecord, ActionsReport, GradeReport


def check_actions(
    actions: Path | None,
    out: Path,
    *,
    server: str | None = None,
    since: str | None = None,
    tasks: Path | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
    rejects_path: Path | None = None,
    progress: Callable[[int], None] | None = None,
    write: bool = True,
) -> ActionsReport:
    """Judge every agent action (docs/fhir.md, "Checking an agent's actions").

    The actions come from an actions JSONL file (``actions``: one ``ActionRecord`` per
    line, the FHIR R4 resource the agent wrote), or from a FHIR server (``server``, its base
    URL): the resources tagged with the ``tasks``' ids, else those changed ``since`` a FHIR
    instant or date. One ``ActionVerdict`` line per action goes to ``out`` (replaced only
    when the run completes): indicated, contraindicated, duplicate_therapy, unsupported
    (not in the vocabularies), not_judged, unknown_code or malformed, with evidence paths
    in words. ``tasks`` (task files) give each action its day and the conditions its task
    names. Lines that are not records go, with their number, to the rejects file. With
    ``write``, the verdicts are stored text-free as ``(:AgentAction)`` nodes for the
    ``actions_by_verdict`` audit.

    Example:
        >>> check_actions(Path("actions.jsonl"), Path("verdicts.jsonl")).verdicts  # doctest: +SKIP
        {'contraindicated': 1, 'indicated': 1}
    """
    from kgverify.actions.judge import ActionJudge
    from kgverify.actions.run import check_records, read_actions, read_tasks
    from kgverify.actions.store import ActionStore

    if (actions is None) == (server is None):
        raise ConfigError("give an actions file or a FHIR server URL (one of them)")
    settings = settings or Settings()
    task_list = read_tasks(tasks) if tasks is not None else []
    source = str(actions) if actions is not None else str(server)
    if actions is not None and not actions.is_file():
        raise ConfigError(f"no such actions file: {actions}")
    with _actions_run(actions, out, rejects_path) as run, _graph(settings, graph) as g:
        if actions is not None:
            records = read_actions(actions, run.reject)
        else:
            records = _server_actions(str(server), settings, [t.task_id for t in task_list], since)
        judge = ActionJudge(g, settings)
        store = ActionStore(g, min(settings.batch_size, 500)) if write else None
        try:
            report = check_records(
                judge, records, run.partial, tasks=task_list, store=store, progress=progress
            )
        finally:
            judge.close()
        report.rejected = run.sink.count
    report.source = source
    report.out = str(out)
    report.rejects = run.rejects
    return report


@contextmanager
def _actions_run(actions: Path | None, out: Path, rejects_path: Path | None) -> Iterator[_FileRun]:
    """``_file_run`` for a file of actions, or for actions read from a server."""
    if actions is not None:
        with _file_run(actions, out, rejects_path) as run:
            yield run
        return
    make_dirs(out.parent)
    run = _FileRun(out, out, rejects_path)
    try:
        yield run
        run.partial.replace(out)
    finally:
        run.sink.close()
        run.partial.unlink(missing_ok=True)


def _server_actions(
    url: str, settings: Settings, task_ids: list[str], since: str | None
) -> Iterator[ActionRecord]:
    from kgverify.actions.server import read_server_actions
    from kgverify.ehr.fhir_http import FhirClient

    if not task_ids and since is None:
        raise ConfigError("reading actions from a server needs task files (--tasks) or --since")
    client = FhirClient.from_settings(url, settings)
    client.get("metadata")  # one error line for a server that does not answer
    yield from read_server_actions(
        client, settings.salt(), tasks=task_ids, since=since, count=settings.fhir_count
    )


def grade_tasks(
    tasks: Path,
    actions: Path | None = None,
    *,
    server: str | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
    rejects_path: Path | None = None,
    write: bool = True,
) -> GradeReport:
    """Grade task files against an agent's actions (docs/fhir.md, "Task checkpoints").

    ``tasks`` is a task file (JSON) or a folder of them; the actions come from an actions
    JSONL file (``actions``) or from a FHIR server (``server``: the resources tagged with
    each task's id). Every checkpoint passes or fails with its reason; the report has each
    task's score (share of its checkpoints passed), the overall share and the mean task
    score, and every action's verdict. With ``write``, actions and checkpoints are stored
    text-free for the ``actions_by_verdict`` and ``task_checkpoints`` audit queries. Lines
    that are not action records go to the rejects file (default: beside ``actions``).
    """
    from kgverify.actions.judge import ActionJudge
    from kgverify.actions.run import Grader, read_actions, read_tasks
    from kgverify.actions.store import ActionStore

    if (actions is None) == (server is None):
        raise ConfigError("give an actions file or a FHIR server URL (one of them)")
    task_list = read_tasks(tasks)
    if actions is not None and not actions.is_file():
        raise ConfigError(f"no such actions file: {actions}")
    settings = settings or Settings()
    where = actions if actions is not None else settings.cache_dir / "actions"
    sink = RejectSink(rejects_path or where.with_suffix(".rejects.jsonl"))

    def reject(line: int, reason: str, text: str = "") -> None:
        sink.write(RejectedRow(file=str(actions), line=line, reason=reason, text=text[:300]))

    try:
        with _graph(settings, graph) as g:
            if actions is not None:
                records: Iterable[ActionRecord] = read_actions(actions, reject)
            else:
                ids = [t.task_id for t in task_list]
                records = _server_actions(str(server), settings, ids, None)
            judge = ActionJudge(g, settings)
            store = ActionStore(g, min(settings.batch_size, 500)) if write else None
            try:
                report = Grader(judge).grade(task_list, records, store)
            finally:
                judge.close()
    finally:
        sink.close()
    report.source = str(actions) if actions is not None else str(server)
    return report


def sample_actions(
    out: Path | None = None, *, settings: Settings | None = None, server: bool = False
) -> tuple[Path, Path]:
    """The shipped sample tasks and planted actions, with this installation's pseudonyms.

    Written under ``out`` (default ``<cache_dir>/sample/actions``) from
    ``kgverify/sample/actions``: the tasks folder and the actions JSONL, for ``grade_tasks``
    once the sample EHR is ingested. With ``server``, the tasks name the patients as
    ``fhir-rest`` ingest names them after ``load_fhir`` of the sample (the FHIR leg).
    """
    from kgverify.actions.sample import write_resolved

    settings = settings or Settings()
    folder = out if out is not None else settings.cache_dir / "sample" / "actions"
    return write_resolved(sample_path("actions"), folder, settings.salt(), server=server)


def sample_fhir_grades(
    *,
    url: str | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
    write: bool = True,
) -> GradeReport:
    """The sample's FHIR leg (docs/fhir.md), graded from the server.

    The sample EHR is loaded into the FHIR server (``url``; default the local one of
    ``kgverify fhir start``, started when not running), ingested back through
    ``fhir-rest``, the planted actions are written into the server as an agent would, and
    the sample tasks are graded from the server's resources.
    """
    from kgverify.actions.model import ActionRecord as Record
    from kgverify.actions.server import post_actions
    from kgverify.ehr.fhir_http import FhirClient
    from kgverify.jsonl import read_models
    from kgverify.server.fhir import LocalFhirServer, local_url

    settings = settings or Settings()
    if url is None and settings.fhir_url is None:
        LocalFhirServer(settings).start()
    base = (url or local_url(settings)).rstrip("/")
    load_fhir("omop", sample_path(*SAMPLE_EHR[1]), url=base, settings=settings)
    with _graph(settings, graph) as g:
        ingest_source("fhir-rest", base, settings=settings, graph=g)
        folder = settings.cache_dir / "sample" / "actions-fhir"
        tasks, actions = sample_actions(folder, settings=settings, server=True)
        posted = post_actions(
            FhirClient.from_settings(base, settings), read_models(actions, Record)
        )
        report = grade_tasks(tasks, server=base, settings=settings, graph=g, write=write)
    report.source = f"{base} ({len(posted.written)} actions written, {len(posted.refused)} refused)"
    return report
