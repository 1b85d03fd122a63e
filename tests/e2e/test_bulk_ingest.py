"""A bulk ingest (neo4j-admin import into an empty database) then the vocabulary loads give
the graph that the vocabulary loads then the batched ingest give."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgverify.api import SAMPLE_RELEASES, ingest_source, load_vocabulary, sample_path
from kgverify.config import Settings
from kgverify.errors import LoadError, ServerError
from kgverify.graph import Graph
from kgverify.server import LocalServer
from tests.conftest import free_port
from tests.e2e.helpers import fingerprint, rows, value

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif(bool(os.environ.get("NEO4J_URI")), reason="bulk needs the local server"),
]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# Days (OMOP), offset date-times (FHIR) and local date-times (MIMIC-IV): each column type.
SOURCES = [
    ("omop", sample_path("omop", "eunomia_sample")),
    ("fhir", FIXTURES / "fhir"),
    ("mimic", FIXTURES / "mimic"),
]


@pytest.fixture(scope="module")
def bulk_settings(
    sample_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Settings]:
    """A second local server with its own store (an import replaces its database); the
    same pseudonym salt and cache as the session's server."""
    s = sample_settings.model_copy(
        update={"neo4j_home": tmp_path_factory.mktemp("bulk-ingest"), "bolt_port": free_port()}
    )
    yield s
    LocalServer(s).stop()


def _load_vocabularies(settings: Settings, graph: Graph | None = None) -> int:
    """The three sample releases loaded (batched); the facts their loads linked."""
    linked = 0
    for name, parts in SAMPLE_RELEASES.items():
        report = load_vocabulary(name, sample_path(*parts), settings=settings, graph=graph)
        linked += report.facts_linked
    return linked


def test_bulk_ingest_then_vocabularies_is_the_graph_of_vocabularies_then_ingest(
    fresh_graph: Graph, sample_settings: Settings, bulk_settings: Settings, tmp_path: Path
) -> None:
    """OMOP through the bulk path, then FHIR and MIMIC-IV batched onto the graph that has
    no concept yet, then the vocabularies; against the vocabularies first and all three
    batched. Every fact the batched path links is linked by the loads."""
    _load_vocabularies(sample_settings, fresh_graph)
    batched = [
        ingest_source(s, p, settings=sample_settings, graph=fresh_graph, rejects_path=tmp_path / s)
        for s, p in SOURCES
    ]
    assert all(r.ingest.known > 0 for r in batched)  # linking is what is compared

    (omop, omop_path), *others = SOURCES
    bulk = ingest_source(
        omop, omop_path, settings=bulk_settings, bulk=True, rejects_path=tmp_path / "bulk"
    )
    first = batched[0].ingest
    assert (bulk.ingest.patients, bulk.ingest.encounters, bulk.ingest.facts) == (
        first.patients,
        first.encounters,
        first.facts,
    )
    # An empty database holds no concept: every fact unknown until the vocabularies come.
    assert (bulk.ingest.known, bulk.ingest.unknown) == (0, first.facts)
    assert bulk.ingest.not_written == first.not_written == {}
    assert [r.model_dump() for r in bulk.rows] == [r.model_dump() for r in batched[0].rows]
    folder = bulk_settings.cache_dir / "bulk" / f"ingest-{bulk.run}"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert not list(folder.glob("*.csv"))  # patient rows never outlive the import
    assert (folder / "import.log").is_file()

    with Graph.connect(bulk_settings) as imported:
        for source, path in others:
            ingest_source(source, path, settings=bulk_settings, graph=imported)
    linked = _load_vocabularies(bulk_settings)
    assert linked == sum(r.ingest.known for r in batched)
    with Graph.connect(bulk_settings) as imported:
        assert fingerprint(imported, without_runs=True) == fingerprint(
            fresh_graph, without_runs=True
        )
        run = rows(
            imported,
            "MATCH (r:Run {id: $id}) RETURN r.status AS s, r.patients AS n, r.source AS source",
            id=bulk.run,
        )
        assert run == [{"s": "complete", "n": bulk.ingest.patients, "source": "omop"}]
        assert value(imported, "MATCH (f:Fact) WHERE f.known = false RETURN count(f)") == sum(
            r.ingest.unknown for r in batched
        )


@pytest.fixture
def patients_only(bulk_settings: Settings) -> Settings:
    """The bulk server's database holding patients (MIMIC-IV, batched) and no vocabulary."""
    from kgverify.graph import delete_all

    LocalServer(bulk_settings).start()
    with Graph.connect(bulk_settings) as g:
        delete_all(g)
        ingest_source("mimic", SOURCES[2][1], settings=bulk_settings, graph=g)
        assert value(g, "MATCH (p:Patient) RETURN count(p)") > 0
        assert value(g, "MATCH (r:Release) RETURN count(r)") == 0
    return bulk_settings


def test_bulk_ingest_refuses_a_database_that_holds_nodes(patients_only: Settings) -> None:
    """An import replaces the database: a bulk ingest onto patients (or vocabularies)
    would lose them, so it refuses before reading anything."""
    with Graph.connect(patients_only) as g:
        before = value(g, "MATCH (n) RETURN count(n)")
    with pytest.raises(ServerError, match="needs an empty database"):
        ingest_source("omop", SOURCES[0][1], settings=patients_only, bulk=True)
    with Graph.connect(patients_only) as g:
        assert value(g, "MATCH (n) RETURN count(n)") == before


def test_bulk_vocabulary_load_refuses_a_database_that_holds_patients(
    patients_only: Settings,
) -> None:
    """The vocabulary loader's bulk path checked only for releases: onto patients it would
    have replaced them."""
    umls = sample_path(*SAMPLE_RELEASES["umls"])
    with pytest.raises(LoadError, match="holds patients"):
        load_vocabulary("umls", umls, settings=patients_only, bulk=True)
    with Graph.connect(patients_only) as g:
        assert value(g, "MATCH (p:Patient) RETURN count(p)") > 0
