"""EHR ingest into the real Neo4j: the shipped OMOP sample (39 Eunomia patients, CSV)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify.api import (
    extract_relations,
    ingest_and_extract,
    ingest_source,
    load_vocabulary,
    sample_path,
)
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.ehr.report import SourceIngestReport
from kgverify.graph import Graph
from tests.e2e.helpers import fingerprint, rows, value

pytestmark = pytest.mark.neo4j
OMOP = sample_path("omop", "eunomia_sample")
EVENTS = ("condition_occurrence", "drug_exposure", "measurement", "procedure_occurrence")


def _rows(table: str) -> list[dict[str, str]]:
    with (OMOP / f"{table}.csv").open(newline="") as handle:  # Eunomia's headers are upper case
        return [{k.lower(): v for k, v in row.items()} for row in csv.DictReader(handle)]


@pytest.fixture(scope="module")
def ingested(
    graph: Graph, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> SourceIngestReport:
    tmp = tmp_path_factory.mktemp("ingest")
    load_vocabulary(
        "rxnorm",
        sample_path("rxnorm", "RxNorm_full_01062025"),
        settings=settings,
        graph=graph,
        rejects_path=tmp / "v.jsonl",
    )
    load_vocabulary(
        "snomed",
        sample_path("snomed", "SnomedCT_InternationalRF2_PRODUCTION_20250101T120000Z"),
        settings=settings,
        graph=graph,
        rejects_path=tmp / "s.jsonl",
    )
    return ingest_source("omop", OMOP, settings=settings, graph=graph, rejects_path=tmp / "r.jsonl")


def test_counts_reconcile_with_the_files(ingested: SourceIngestReport, graph: Graph) -> None:
    report = ingested.ingest
    assert (
        report.patients == len(_rows("person")) == value(graph, "MATCH (p:Patient) RETURN count(p)")
    )
    assert report.encounters == len(_rows("visit_occurrence"))
    assert (
        report.facts
        == sum(len(_rows(t)) for t in EVENTS)
        == value(graph, "MATCH (f:Fact) RETURN count(f)")
    )
    assert report.facts == report.known + report.unknown
    rows = {r.file: r for r in ingested.rows}
    for table in ("person", *EVENTS):
        assert rows[table].read == rows[table].loaded + rows[table].skipped + rows[table].rejected


def test_facts_link_to_loaded_concepts_and_keep_unknown_codes(graph: Graph) -> None:
    drug = _rows("drug_exposure")[0]["drug_concept_id"]
    concept = next(c for c in _rows("concept") if c["concept_id"] == drug)
    linked = value(
        graph,
        "MATCH (f:Fact {kind: 'drug', code: $code})-[:CODED_AS]->(c) RETURN collect(DISTINCT c.id)",
        code=concept["concept_code"],
    )
    assert linked == [f"RXNORM:{concept['concept_code']}"]
    # CVX vaccines are not a loaded vocabulary: kept, marked unknown, no CODED_AS edge.
    cvx = value(graph, "MATCH (f:Fact {code_system: 'CVX'}) RETURN count(f)")
    assert cvx > 0
    assert (
        value(
            graph,
            "MATCH (f:Fact {code_system: 'CVX'}) WHERE f.known OR "
            "(f)-[:CODED_AS]->() RETURN count(f)",
        )
        == 0
    )
    # No source identifier reaches the graph: patients carry a pseudonym and an age band.
    person_ids = {r["person_id"] for r in _rows("person")}
    ids = value(graph, "MATCH (p:Patient) RETURN collect(p.id)")
    assert not person_ids & set(ids) and all(len(i) == 16 for i in ids)


def test_ingesting_twice_changes_nothing(
    ingested: SourceIngestReport, graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    before = fingerprint(graph, without_runs=True)
    runs = "MATCH (r:Run) RETURN r.id AS id, COUNT { (:Patient)-[:IN_RUN]->(r) } AS n"
    earlier = rows(graph, runs)
    again = ingest_source(
        "omop", OMOP, settings=settings, graph=graph, rejects_path=tmp_path / "r.jsonl"
    )
    assert fingerprint(graph, without_runs=True) == before
    # Only a second run is added, holding the same patients as the first.
    now = {r["id"]: r["n"] for r in rows(graph, runs)}
    assert set(now) == {r["id"] for r in earlier} | {again.run}
    assert now[again.run] == ingested.ingest.patients


def test_one_read_ingests_and_extracts_as_the_two_steps_do(
    ingested: SourceIngestReport, graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    """``ingest_and_extract`` (the pipeline's one read of the source) writes the graph, the
    run and the relations file that ``ingest_source`` then ``extract_relations`` write."""
    before = fingerprint(graph, without_runs=True)
    two = tmp_path / "two.jsonl"
    ingest = ingest_source(
        "omop", OMOP, settings=settings, graph=graph, rejects_path=tmp_path / "r1.jsonl"
    )
    extract = extract_relations(
        "omop", OMOP, two, settings=settings, rejects_path=tmp_path / "r2.jsonl"
    )
    one = tmp_path / "one.jsonl"
    ingest_once, extract_once = ingest_and_extract(
        "omop", OMOP, one, settings=settings, graph=graph, rejects_path=tmp_path / "r3.jsonl"
    )
    assert fingerprint(graph, without_runs=True) == before
    assert one.read_bytes() == two.read_bytes() and extract.relations > 0
    assert ingest_once.ingest == ingest.ingest and ingest_once.rows == ingest.rows
    assert extract_once.model_dump(exclude={"out", "rejects"}) == extract.model_dump(
        exclude={"out", "rejects"}
    )
    runs = "MATCH (r:Run {id: $id}) RETURN r.status AS s, COUNT { (:Patient)-[:IN_RUN]->(r) } AS n"
    assert rows(graph, runs, id=ingest_once.run) == [
        {"s": "complete", "n": ingested.ingest.patients}
    ]


def test_parallel_writers_in_small_batches_write_the_same_graph(
    ingested: SourceIngestReport, graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    """Batches of about 100 facts, three written at once on writer threads, onto a graph
    without the patients (every node and edge created, none merged): the graph and the
    counts of one batch written alone."""
    before = fingerprint(graph, without_runs=True)
    graph.run_adhoc(
        "MATCH (n) WHERE n:Patient OR n:Encounter OR n:Fact DETACH DELETE n", {}, write=True
    )
    assert value(graph, "MATCH (f:Fact) RETURN count(f)") == 0
    small = settings.model_copy(update={"batch_size": 100, "ingest_parallel": 3})
    again = ingest_source("omop", OMOP, settings=small, graph=graph, rejects_path=tmp_path / "r")
    assert again.ingest == ingested.ingest and again.rows == ingested.rows
    assert again.ingest.facts > 10 * small.batch_size  # many batches, several in flight
    assert fingerprint(graph, without_runs=True) == before


@pytest.mark.usefixtures("cli_env", "ingested")
def test_cli_ingest_and_extract(tmp_path: Path) -> None:
    runner = CliRunner()
    ingest = runner.invoke(cli, ["ingest", "omop", str(OMOP), "--json"])
    assert ingest.exit_code == 0, ingest.output
    assert json.loads(ingest.stdout)["ingest"]["patients"] == len(_rows("person"))
    out = tmp_path / "relations.jsonl"
    extract = runner.invoke(cli, ["extract", "omop", str(OMOP), "-o", str(out), "--json"])
    assert extract.exit_code == 0, extract.output
    result = json.loads(extract.stdout)
    lines = out.read_text().splitlines()
    assert result["relations"] == len(lines) == sum(result["by_predicate"].values()) > 0
    assert result["patients"] == len(_rows("person"))
    # --relations: the same relations from the ingest's own read of the source.
    once = tmp_path / "once.jsonl"
    both = runner.invoke(cli, ["ingest", "omop", str(OMOP), "--relations", str(once), "--json"])
    assert both.exit_code == 0, both.output
    report = json.loads(both.stdout)
    assert report["ingest"]["patients"] == len(_rows("person"))
    assert report["extract"]["relations"] == result["relations"]
    assert once.read_bytes() == out.read_bytes()
