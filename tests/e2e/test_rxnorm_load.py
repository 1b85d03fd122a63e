"""RxNorm RRF on the shipped sample: term types as kinds, ingredients, brands, attributes,
the obsolete concept, and the update to a newer release."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgverify.api import load_vocabulary
from kgverify.config import Settings
from kgverify.graph import Graph
from tests.conftest import SAMPLE
from tests.e2e.helpers import edge, value
from tests.e2e.vocabulary_load import SampleRelease, loaded_fixture, loading_twice_changes_nothing

pytestmark = pytest.mark.neo4j
JAN = SAMPLE / "rxnorm" / "RxNorm_full_01062025"
FEB = SAMPLE / "rxnorm" / "RxNorm_full_02032025"

RELEASE = SampleRelease("rxnorm", JAN)
loaded = loaded_fixture(RELEASE)
test_loading_twice_changes_nothing = loading_twice_changes_nothing(RELEASE)


def test_counts_match_the_file(loaded: Graph) -> None:
    rows = [line.split("|") for line in (JAN / "rrf" / "RXNCONSO.RRF").read_text().splitlines()]
    kept = {r[0] for r in rows if r[1] == "ENG" and r[16] not in ("O", "E", "Y")}
    assert value(loaded, "MATCH (c:RXNORM) RETURN count(c)") == len(kept)
    assert value(loaded, "MATCH (r:Release) RETURN r.id") == "RXNORM@2025-01-06"


def test_term_types_distinguish_ingredients_and_drugs(loaded: Graph) -> None:
    kinds = dict(
        value(
            loaded,
            "MATCH (c:RXNORM) WHERE c.code IN ['6809', '861007', '202433'] "
            "RETURN collect([c.code, c.kinds])",
        )
    )
    assert kinds == {"6809": ["ingredient"], "861007": ["drug_product"], "202433": ["brand"]}
    assert value(loaded, "MATCH (c:Concept {id: 'RXNORM:861007'}) RETURN c.semantic_types") == [
        "SCD"
    ]


def test_brand_and_ingredient_paths(loaded: Graph) -> None:
    tylenol = edge(loaded, "RXNORM:202433", "TRADENAME_OF", "RXNORM:161")
    assert tylenol is not None and tylenol["source_rel"] == "tradename_of"
    assert edge(loaded, "RXNORM:161", "TRADENAME_OF", "RXNORM:202433") is None
    # Clinical drug -> component -> ingredient, as verification rules will walk it.
    ingredient = value(
        loaded,
        "MATCH (:Concept {id: 'RXNORM:861007'})-[:CONSISTS_OF]->()-[:HAS_INGREDIENT]->(i) "
        "RETURN collect(DISTINCT i.name)",
    )
    assert ingredient and all("etformin" in name for name in ingredient)
    assert edge(loaded, "RXNORM:665078", "HAS_DOSE_FORM", "RXNORM:317541") is not None


def test_a_pack_reaches_the_ingredients_of_the_drugs_it_contains(loaded: Graph) -> None:
    # RXNREL "contains" (pack -> drug) lands on CONSISTS_OF, its source name kept; before,
    # it was not modelled and a pack reached nothing.
    yaz = "RXNORM:748856"  # {24 (drospirenone 3 MG / Ethinyl Estradiol 0.02 MG ...} [Yaz 28 Day]
    walk = (
        "MATCH (:Concept {id: $id})-[:CONSISTS_OF]->()-[:CONSISTS_OF]->()-[:HAS_INGREDIENT]->(i) "
        "RETURN collect(DISTINCT i.name)"
    )
    assert sorted(value(loaded, walk, id=yaz)) == [
        "Ethinyl Estradiol",
        "Inert Ingredients",
        "drospirenone",
    ]
    contained = value(
        loaded,
        "MATCH (:Concept {id: $id})-[r:CONSISTS_OF]->(d) RETURN collect(r.source_rel)",
        id=yaz,
    )
    assert contained and set(contained) == {"contains"}
    # A name Eunomia cut at 255 characters: the whole components before the cut count.
    tri = "RXNORM:749785"  # {7 (Ethinyl Estradiol 0.035 MG / norgestimate 0.18 MG ...) / ... [Or
    assert sorted(value(loaded, walk, id=tri)) == ["Ethinyl Estradiol", "norgestimate"]
    parts = "MATCH (:Concept {id: $id})-[r:CONSISTS_OF]->() RETURN count(r)"
    assert value(loaded, parts, id=tri) == 3


def test_attributes_and_obsolete_concept(loaded: Graph, settings: Settings, tmp_path: Path) -> None:
    assert value(loaded, "MATCH (c:Concept {id: 'RXNORM:855926'}) RETURN c.ndcs") == ["00781178901"]
    assert value(loaded, "MATCH (c:Concept {id: 'RXNORM:197378'}) RETURN count(c)") == 0


def test_newer_release(loaded: Graph, settings: Settings, tmp_path: Path) -> None:
    report = load_vocabulary(
        "rxnorm", FEB, settings=settings, graph=loaded, rejects_path=tmp_path / "r.jsonl"
    )
    assert report.retired_concepts == 1
    zithromax = value(loaded, "MATCH (c:Concept {id: 'RXNORM:9900335'}) RETURN c {.*}")
    assert zithromax["active"] is False and zithromax["retired_in"] == "RXNORM@2025-02-03"
    wrong = edge(loaded, "RXNORM:665078", "HAS_DOSE_FORM", "RXNORM:317541")
    right = edge(loaded, "RXNORM:665078", "HAS_DOSE_FORM", "RXNORM:9900087")
    assert wrong is not None and wrong["active"] is False
    assert right is not None and right["active"] is True


def test_obsolete_concept_with_include_suppressed(
    fresh_graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    load_vocabulary(
        "rxnorm",
        JAN,
        settings=settings,
        graph=fresh_graph,
        rejects_path=tmp_path / "r.jsonl",
        include_suppressed=True,
    )
    name = value(fresh_graph, "MATCH (c:Concept {id: 'RXNORM:197378'}) RETURN c.name")
    assert name == "Astemizole 10 MG Oral Tablet"
