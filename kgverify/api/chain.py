"""The whole chain in one call: ``pipeline`` (keyword parameters), ``pipeline_from_config``
(a TOML file), ``run_sample`` / ``sample_pipeline`` (the shipped sample); each step told to
``on_step``, ``run.json`` written beside the outputs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgverify.api.bookkeeping import graph_of, sample_path
from kgverify.api.derivation import derive_facts, derive_qa
from kgverify.api.dialogues import check_dialogues, sample_dialogues
from kgverify.api.graphs import graph_summary
from kgverify.api.linking import link_relations_file
from kgverify.api.sources import ingest_and_extract
from kgverify.api.verification import verify_relations_file
from kgverify.api.vocabularies import load_vocabulary
from kgverify.collector import batch_work
from kgverify.config import Settings
from kgverify.graph.driver import Graph

if TYPE_CHECKING:
    from kgverify.derive import DeriveReport
    from kgverify.link.relations import LinkReport
    from kgverify.pipeline import (
        CountBars,
        GraphAddress,
        PipelineConfig,
        PipelineReport,
        RelationsInput,
        StepListener,
        Steps,
    )
    from kgverify.verify.report import VerifyReport
    from loaders import LoadReport
    from loaders.pipeline import ProgressFactory


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
    are), the EHR ``source`` at ``source_path`` ingested and, in the same read of it,
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
    with graph_of(settings, graph) as g:
        loads = [
            steps.run(
                f"load {name}",
                partial(_load_step, name, folder, settings, g, progress),
                lambda r: f"{r.release} {r.status}, {sum(f.loaded for f in r.files):,} rows",
            )
            for name, folder in config.vocabularies.items()
        ]
        # One read of the source: each patient ingested and handed to the extractor.
        ingested, extracted = steps.run(
            "ingest and extract",
            lambda tick: ingest_and_extract(
                config.source,
                config.source_path,
                out / "relations.jsonl",
                settings=settings,
                graph=g,
                extractor=config.extractor,
                model=config.model,
                base_url=config.base_url,
                api_key=config.api_key,
                concurrency=config.concurrency,
                engine=config.engine,
                on_patient=tick,
            ),
            lambda r: (
                f"run {r[0].run}: {r[0].ingest.patients} patients, "
                f"{r[0].ingest.encounters} encounters, {r[0].ingest.facts} facts; "
                f"{r[1].relations} candidate relations"
            ),
            unit="patients",
        )
        patients = ingested.ingest.patients
        # This run's outputs derive from the patients it brought, and no others.
        own = settings.model_copy(update={"derive_run": ingested.run or "all"})
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


def server_facts(settings: Settings) -> GraphAddress:
    """Where the graph is, for the run record.

    Bolt's address, Neo4j Browser's (when the local server serves it) and the command that
    stops the local server (None for a server of your own).
    """
    from kgverify.pipeline import GraphAddress

    if settings.neo4j_uri is not None:
        return GraphAddress(bolt=settings.neo4j_uri, browser=None, stop=None)
    from kgverify.server import LocalServer

    status = LocalServer(settings).status()
    return GraphAddress(bolt=status.uri, browser=status.browser, stop="kgverify neo4j stop")


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
