"""UMLS RRF on the shipped sample: counts match the files, direction, options, releases."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgverify.api import load_vocabulary
from kgverify.config import Settings
from kgverify.errors import LoadError
from kgverify.graph import Graph
from kgverify.graph.model import CODE_NAMESPACES
from tests.conftest import SAMPLE
from tests.e2e.helpers import edge, rows, value
from tests.e2e.vocabulary_load import SampleRelease, loaded_fixture, loading_twice_changes_nothing

pytestmark = pytest.mark.neo4j
AA = SAMPLE / "umls" / "2025AA"
AB = SAMPLE / "umls" / "2025AB"


def _atoms(release: Path) -> list[list[str]]:
    with (release / "META" / "MRCONSO.RRF").open(encoding="utf-8") as rows:
        return [line.rstrip("\n").split("|") for line in rows]


RELEASE = SampleRelease("umls", AA)
loaded = loaded_fixture(RELEASE)
test_loading_twice_changes_nothing = loading_twice_changes_nothing(RELEASE)


def test_counts_match_the_files(loaded: Graph) -> None:
    atoms = _atoms(AA)
    kept = [a for a in atoms if a[1] == "ENG" and a[16] not in ("O", "E", "Y")]
    assert value(loaded, "MATCH (c:UMLS) RETURN count(c)") == len({a[0] for a in kept})
    maps = {(a[0], a[11], a[13]) for a in kept if a[11] in CODE_NAMESPACES and a[13] != "NOCODE"}
    assert value(loaded, "MATCH (:UMLS)-[r:MAPS_TO]->() RETURN count(r)") == len(maps)
    # Both directions of each pair collapse onto one edge: as many MAY_TREAT edges as rows
    # of either direction.
    rels = (AA / "META" / "MRREL.RRF").read_text().splitlines()
    forward = sum(1 for r in rels if r.split("|")[7] == "may_treat")
    inverse = sum(1 for r in rels if r.split("|")[7] == "may_be_treated_by")
    assert forward == inverse
    assert value(loaded, "MATCH ()-[r:MAY_TREAT {source: 'UMLS'}]->() RETURN count(r)") == forward
    release = value(loaded, "MATCH (r:Release {id: 'UMLS@2025AA'}) RETURN r {.*}")
    assert release["status"] == "complete" and release["rows_read"] == sum(
        len((AA / "META" / f).read_text().splitlines())
        for f in ("MRCONSO.RRF", "MRSTY.RRF", "MRREL.RRF", "MRDEF.RRF", "MRSAB.RRF")
    )


def test_rel_direction_on_known_pairs(loaded: Graph) -> None:
    # MRREL: C0011860 (T2DM) | RO | C0025598 (metformin) | may_treat = "metformin may_treat T2DM"
    treat = edge(loaded, "UMLS:C0025598", "MAY_TREAT", "UMLS:C0011860")
    assert treat is not None and treat["source_rel"] == "may_treat" and treat["sab"] == "MED-RT"
    assert edge(loaded, "UMLS:C0011860", "MAY_TREAT", "UMLS:C0025598") is None
    assert edge(loaded, "UMLS:C0011860", "IS_A", "UMLS:C0011849") is not None
    assert edge(loaded, "UMLS:C0011849", "IS_A", "UMLS:C0011860") is None
    assert edge(loaded, "UMLS:C0020740", "CONTRAINDICATED_FOR", "UMLS:C0030920") is not None
    assert edge(loaded, "UMLS:C0011860", "HAS_MANIFESTATION", "UMLS:C0032617") is not None
    assert edge(loaded, "UMLS:C0032285", "FINDING_SITE", "UMLS:C0024109") is not None


def test_atc_classes_carry_their_codes_on_every_level(loaded: Graph) -> None:
    # Amoxicillin climbs IS_A through the ATC classes J01CA -> J01C -> J01 -> J; each class
    # concept's ATC code is the code of the ATC concept its ATC atom maps to (the length of the
    # code gives the level: 1, 3, 4, 5 characters = levels 1 to 4; 7 = level 5, the ingredient).
    chain = rows(
        loaded,
        "MATCH p = (:Concept {id: 'UMLS:C0002645'})-[:IS_A*4]->(top:UMLS) "
        "WHERE all(n IN tail(nodes(p)) "
        "          WHERE (n)-[:MAPS_TO {sab: 'ATC'}]->(:Concept {vocab: 'ATC'})) "
        "UNWIND tail(nodes(p)) AS c "
        "MATCH (c)-[:MAPS_TO {sab: 'ATC'}]->(atc:Concept {vocab: 'ATC'}) "
        "RETURN atc.id AS id, atc.code AS code, c.name AS name",
    )
    assert [r["code"] for r in chain] == ["J01CA", "J01C", "J01", "J"]
    assert [r["id"] for r in chain] == ["ATC:J01CA", "ATC:J01C", "ATC:J01", "ATC:J"]
    assert chain[2]["name"] == "ANTIBACTERIALS FOR SYSTEMIC USE"
    assert chain[3]["name"] == "ANTIINFECTIVES FOR SYSTEMIC USE"
    level5 = value(
        loaded,
        "MATCH (:Concept {id: 'UMLS:C0002645'})-[:MAPS_TO {sab: 'ATC'}]->(a) RETURN a.code",
    )
    assert level5 == "J01CA04"
    # a documented cause (MTH due_to) and a label contraindication added for derivation
    assert edge(loaded, "UMLS:C0027051", "DUE_TO", "UMLS:C0010054") is not None
    assert edge(loaded, "UMLS:C0070166", "CONTRAINDICATED_FOR", "UMLS:C0030920") is not None
    # an Eunomia ingredient placed in UMLS for derivation: diazepam, by its RxNorm code
    diazepam = value(
        loaded,
        "MATCH (c:UMLS)-[:MAPS_TO {sab: 'RXNORM'}]->(:Concept {id: 'RXNORM:3322'}) RETURN c.id",
    )
    assert edge(loaded, diazepam, "MAY_TREAT", "UMLS:C0014544") is not None


def test_names_types_and_mappings(loaded: Graph) -> None:
    t2dm = value(loaded, "MATCH (c:Concept {id: 'UMLS:C0011860'}) RETURN c {.*}")
    preferred = [
        a[14]
        for a in _atoms(AA)
        if a[0] == "C0011860" and a[1] == "ENG" and a[2:7:2] == ["P", "PF", "Y"]
    ]
    assert [t2dm["name"]] == preferred == ["Diabetes Mellitus, Type 2"]
    assert "Type 2 diabetes mellitus" in t2dm["names"]
    assert "T047" in t2dm["tuis"] and t2dm["kinds"] == ["disorder"]
    assert t2dm["definition"]
    assert edge(loaded, "UMLS:C0011860", "MAPS_TO", "SNOMEDCT:44054006") is not None
    assert edge(loaded, "UMLS:C0025598", "MAPS_TO", "RXNORM:6809") is not None
    stub = value(loaded, "MATCH (c:Concept {id: 'SNOMEDCT:44054006'}) RETURN c {.*}")
    assert stub["stub"] is True and stub["vocab"] == "SNOMEDCT"


def test_hard_cases(loaded: Graph) -> None:
    mi = value(loaded, "MATCH (c:UMLS) WHERE 'MI' IN c.names RETURN collect(c.code)")
    assert sorted(mi) == ["C0026266", "C0027051"]  # myocardial infarction, mitral insufficiency
    ra = value(loaded, "MATCH (c:UMLS) WHERE 'RA' IN c.names RETURN collect(c.code)")
    assert sorted(ra) == ["C0003873", "C9900015"]  # rheumatoid arthritis, right atrium
    names = value(loaded, "MATCH (c:Concept {id: 'UMLS:C0011860'}) RETURN c.names")
    assert "Non-insulin dependent diabetes mellitus" not in names  # SUPPRESS=E
    assert "Diabetes Mellitus Tipo 2" not in names  # LAT=SPA, English-only load
    # A CUI whose code atoms are all obsolete keeps its concept but maps to no code.
    assert edge(loaded, "UMLS:C9900030", "MAPS_TO", "SNOMEDCT:235998001") is None


def test_newer_release_updates_and_retires(
    loaded: Graph, settings: Settings, tmp_path: Path
) -> None:
    report = load_vocabulary(
        "umls", AB, settings=settings, graph=loaded, rejects_path=tmp_path / "r.jsonl"
    )
    assert report.release == "UMLS@2025AB" and report.retired_concepts == 1
    ckd1 = value(loaded, "MATCH (c:Concept {id: 'UMLS:C2316401'}) RETURN c {.*}")
    assert ckd1["active"] is False and ckd1["retired_in"] == "UMLS@2025AB"
    dropped = edge(loaded, "UMLS:C9900101", "MAY_TREAT", "UMLS:C0018621")
    assert dropped is not None and dropped["active"] is False
    added = edge(loaded, "UMLS:C0002645", "MAY_TREAT", "UMLS:C0032285")
    assert added is not None and added["active"] and added["first_release"] == "UMLS@2025AB"
    kept = edge(loaded, "UMLS:C0025598", "MAY_TREAT", "UMLS:C0011860")
    assert kept is not None and kept["active"] and kept["first_release"] == "UMLS@2025AA"
    assert value(loaded, "MATCH (c:Concept {id: 'UMLS:C0020538'}) RETURN c.name") == "Hypertension"
    current = value(loaded, "MATCH (r:Release {vocab: 'UMLS', current: true}) RETURN collect(r.id)")
    assert current == ["UMLS@2025AB"]


def test_older_release_is_refused_unless_forced(loaded: Graph, settings: Settings) -> None:
    with pytest.raises(LoadError, match="older than the loaded UMLS@2025AB"):
        load_vocabulary("umls", AA, settings=settings, graph=loaded)
