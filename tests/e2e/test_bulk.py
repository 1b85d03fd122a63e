"""The bulk path (neo4j-admin import) builds the same graph as the batched path."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.synth_umls import write as write_synthetic
from kgverify.api import load_vocabulary
from kgverify.config import Settings
from kgverify.errors import LoadError
from kgverify.graph import Graph
from kgverify.server import LocalServer
from tests.conftest import free_port
from tests.e2e.helpers import differences, fingerprint, value

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif(bool(os.environ.get("NEO4J_URI")), reason="bulk needs the local server"),
]


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synthetic")
    write_synthetic(out, concepts=3_000, relationships=12_000, seed=11)
    with (out / "META" / "MRREL.RRF").open("a") as rel:  # one pair naming a missing CUI
        rel.write("C0000001|A1|SCUI|RO|C9999999|A2|SCUI|may_treat|R1||MTH|MTH||Y|N||\n")
        rel.write("C9999999|A2|SCUI|RO|C0000001|A1|SCUI|may_be_treated_by|R2||MTH|MTH||N|N||\n")
    return out


@pytest.fixture(scope="module")
def bulk_settings(
    settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Settings]:
    """A second local server with its own store: the import replaces its database."""
    s = settings.model_copy(
        update={"neo4j_home": tmp_path_factory.mktemp("bulk-home"), "bolt_port": free_port()}
    )
    yield s
    LocalServer(s).stop()


def test_bulk_and_batched_give_the_same_graph(
    fresh_graph: Graph,
    settings: Settings,
    bulk_settings: Settings,
    release: Path,
    tmp_path: Path,
) -> None:
    batched = load_vocabulary(
        "umls", release, settings=settings, graph=fresh_graph, rejects_path=tmp_path / "a.jsonl"
    )
    bulk = load_vocabulary(
        "umls", release, settings=bulk_settings, bulk=True, rejects_path=tmp_path / "b.jsonl"
    )
    assert bulk.mode == "bulk" and bulk.status == "complete"
    assert [(f.file, f.read, f.loaded, f.rejected) for f in bulk.files] == [
        (f.file, f.read, f.loaded, f.rejected) for f in batched.files
    ]
    with Graph.connect(bulk_settings) as imported:
        assert fingerprint(imported, concepts_only=True) == fingerprint(
            fresh_graph, concepts_only=True
        )
        status = value(imported, "MATCH (r:Release) RETURN r.status + '/' + r.mode")
        assert status == "complete/bulk"


def test_bulk_snomed_matches_batched(
    fresh_graph: Graph,
    settings: Settings,
    tmp_path_factory: pytest.TempPathFactory,
    tmp_path: Path,
) -> None:
    from tests.conftest import SAMPLE

    snapshot = SAMPLE / "snomed" / "SnomedCT_InternationalRF2_PRODUCTION_20250101T120000Z"
    other = settings.model_copy(
        update={"neo4j_home": tmp_path_factory.mktemp("bulk-snomed"), "bolt_port": free_port()}
    )
    try:
        load_vocabulary(
            "snomed",
            snapshot,
            settings=settings,
            graph=fresh_graph,
            rejects_path=tmp_path / "a.jsonl",
        )
        load_vocabulary(
            "snomed", snapshot, settings=other, bulk=True, rejects_path=tmp_path / "b.jsonl"
        )
        with Graph.connect(other) as imported:
            assert differences(imported, fresh_graph) == []
    finally:
        LocalServer(other).stop()


def test_bulk_refuses_a_database_that_holds_data(bulk_settings: Settings, release: Path) -> None:
    with pytest.raises(LoadError, match="needs an empty database"):
        load_vocabulary("umls", release, settings=bulk_settings, bulk=True)


def test_bulk_refuses_unsorted_concepts(bulk_settings: Settings, tmp_path: Path) -> None:
    meta = tmp_path / "2099AA" / "META"
    meta.mkdir(parents=True)
    rows = (
        "C0000002|ENG|P|L1|PF|S1|Y|A1||||MTH|PN|NOCODE|b|0|N|256|\n"
        "C0000001|ENG|P|L2|PF|S2|Y|A2||||MTH|PN|NOCODE|a|0|N|256|\n"
    )
    (meta / "MRCONSO.RRF").write_text(rows)
    (meta / "MRSTY.RRF").write_text("")
    # A release's relationship file is never empty (the pre-flight check refuses one).
    (meta / "MRREL.RRF").write_text("C0000001|A1|AUI|RB|C0000002|A2|AUI||R1||MTH||||N||\n")
    with Graph.connect(bulk_settings) as g:
        from kgverify.graph import delete_all

        delete_all(g)
    with pytest.raises(LoadError, match="sorted by id"):
        load_vocabulary("umls", tmp_path / "2099AA", settings=bulk_settings, bulk=True)
