"""SNOMED CT RF2 snapshot on the shipped sample: FSN, preferred terms, role groups, active
flags, effective times, and the update to a newer snapshot."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from kgverify.api import load_vocabulary
from kgverify.config import Settings
from kgverify.graph import Graph
from loaders.relations import SNOMED_TYPES
from tests.conftest import SAMPLE
from tests.e2e.helpers import edge, value
from tests.e2e.vocabulary_load import SampleRelease, loaded_fixture, loading_twice_changes_nothing

pytestmark = pytest.mark.neo4j
JAN = SAMPLE / "snomed" / "SnomedCT_InternationalRF2_PRODUCTION_20250101T120000Z"
JUN = SAMPLE / "snomed" / "SnomedCT_InternationalRF2_PRODUCTION_20250601T120000Z"


def _rf2(release: Path, pattern: str) -> list[dict[str, str]]:
    (path,) = release.rglob(pattern)
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


RELEASE = SampleRelease("snomed", JAN)
loaded = loaded_fixture(RELEASE)
test_loading_twice_changes_nothing = loading_twice_changes_nothing(RELEASE)


def test_counts_match_the_files(loaded: Graph) -> None:
    concepts = _rf2(JAN, "sct2_Concept_Snapshot*")
    assert value(loaded, "MATCH (c:SNOMEDCT) RETURN count(c)") == len(concepts)
    inactive = {c["id"] for c in concepts if c["active"] == "0"}
    got = value(loaded, "MATCH (c:SNOMEDCT) WHERE NOT c.active RETURN collect(c.code)")
    assert set(got) == inactive == {"235998001"}
    relationships = [
        r
        for r in _rf2(JAN, "sct2_Relationship_Snapshot*")
        if r["active"] == "1" and r["typeId"] in SNOMED_TYPES
    ]
    assert value(loaded, "MATCH ()-[r {source: 'SNOMEDCT'}]->() RETURN count(r)") == len(
        relationships
    )


def test_fsn_preferred_term_and_kind(loaded: Graph) -> None:
    asthma = value(loaded, "MATCH (c:Concept {id: 'SNOMEDCT:195967001'}) RETURN c {.*}")
    assert asthma["fsn"] == "Asthma (disorder)"
    assert asthma["name"] == "Asthma"  # the US-English preferred synonym
    assert set(asthma["names"]) == {"Asthma", "Bronchial asthma"}
    assert asthma["kinds"] == ["disorder"] and asthma["semantic_types"] == ["disorder"]
    mi = value(loaded, "MATCH (c:Concept {id: 'SNOMEDCT:22298006'}) RETURN c.names")
    assert "Heart attack" in mi
    # The full-text index covers synonyms (a list property), not only preferred names.
    hits = loaded.read("summary/find_concepts_by_name", text='"heart attack"', limit=3)
    assert hits and hits[0]["id"] == "SNOMEDCT:22298006"


def test_role_groups_effective_times_and_inactive_rows(loaded: Graph) -> None:
    site = edge(loaded, "SNOMEDCT:47693006", "FINDING_SITE", "SNOMEDCT:66754008")
    assoc = edge(loaded, "SNOMEDCT:47693006", "ASSOCIATED_WITH", "SNOMEDCT:74400008")
    assert site is not None and site["group"] == 1
    assert assoc is not None and assoc["group"] == 2 and assoc["effective_time"] == "20020131"
    assert assoc["source_rel"] == "47429007 |Associated with|"
    # An inactive relationship row (asthma is-a respiratory disorder) is not an active edge.
    assert edge(loaded, "SNOMEDCT:195967001", "IS_A", "SNOMEDCT:50043002") is None


def test_newer_snapshot(loaded: Graph, settings: Settings, tmp_path: Path) -> None:
    report = load_vocabulary(
        "snomed", JUN, settings=settings, graph=loaded, rejects_path=tmp_path / "r.jsonl"
    )
    assert report.release == "SNOMEDCT@20250601"
    ckd1 = value(loaded, "MATCH (c:Concept {id: 'SNOMEDCT:431855005'}) RETURN c {.*}")
    assert ckd1["active"] is False and ckd1["retired_in"] == "SNOMEDCT@20250601"
    assert ckd1["effective_time"] == "20250601"
    gone = edge(loaded, "SNOMEDCT:47693006", "ASSOCIATED_WITH", "SNOMEDCT:74400008")
    assert gone is not None and gone["active"] is False
    new = edge(loaded, "SNOMEDCT:47693006", "DUE_TO", "SNOMEDCT:74400008")
    assert new is not None and new["active"] and new["group"] == 2
    # Names were rebuilt for the new release, not appended twice.
    names = value(loaded, "MATCH (c:Concept {id: 'SNOMEDCT:195967001'}) RETURN c.names")
    assert sorted(names) == ["Asthma", "Bronchial asthma"]
