"""Substitutions and acronyms mined from the synonyms of a small real KB (SQLite store,
scispaCy TF-IDF, nmslib HNSW), and the linker's ``mined`` stage that applies them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kgverify.link.index import IndexSettings, LinkerIndex, build_index
from kgverify.link.kb import KbEntry, KbStore
from kgverify.link.linker import Linker, LinkParams, MentionQuery
from kgverify.link.mined import MINED_VERSION, MinedTables, mine
from kgverify.link.model import LinkStatus, Method

SETTINGS = IndexSettings(min_df=1, m=16, ef_construction=100, ef_search=100, threads=1)
PARAMS = LinkParams(threshold=0.8, margin=0.05, k=30)


def entry(n: int, name: str, *names: str, equivalents: tuple[str, ...] = ()) -> KbEntry:
    return KbEntry(
        id=f"T:{n}",
        vocab="T",
        name=name,
        names=list(names),
        kinds=["disorder"],
        equivalents=list(equivalents),
    )


ENTRIES = [
    # neoplasm / tumour ("tumor" once normalized): three concepts agree, nothing contradicts it
    entry(1, "Breast neoplasm", "breast tumour"),
    entry(2, "Lung neoplasm", "lung tumour"),
    entry(3, "Skin neoplasm", "skin tumour"),
    entry(4, "Liver neoplasm"),
    # carcinoma / cancer: only two concepts, below the support of three
    entry(5, "Colon carcinoma", "colon cancer"),
    entry(6, "Gastric carcinoma", "gastric cancer"),
    entry(7, "Bladder carcinoma"),
    # hyperkalemia / hypokalemia: noisy synonym lists in three concepts, but the KB keeps
    # the two apart elsewhere, so rewriting lands on the other concept
    entry(8, "Familial hyperkalemia syndrome", "familial hypokalemia syndrome"),
    entry(9, "Acquired hyperkalemia", "acquired hypokalemia"),
    entry(10, "Drug-induced hyperkalemia", "drug-induced hypokalemia"),
    entry(11, "Hyperkalemia"),
    entry(12, "Hypokalemia"),
    entry(13, "Periodic hyperkalemia"),
    entry(14, "Periodic hypokalemia"),
    # numbers tell concepts apart even when synonyms list them together
    entry(15, "Diabetes type 1", "diabetes type 2"),
    entry(16, "Myopathy type 1", "myopathy type 2"),
    entry(17, "Ataxia type 1", "ataxia type 2"),
    # an acronym and its long form, one concept
    entry(18, "Chronic obstructive pulmonary disease", "COPD"),
    entry(19, "Chronic obstructive pulmonary disease exacerbation"),
]


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> MinedTables:
    store = KbStore(tmp_path_factory.mktemp("kb") / "kb.sqlite", create=True)
    store.add(ENTRIES)
    mined = mine(store)
    store.close()
    return mined


def _rule(tables: MinedTables, a: str, b: str) -> dict[str, object]:
    [rule] = [r for r in tables.rules if {r["a"], r["b"]} == {a, b}]
    return rule


def test_a_substitution_seen_in_enough_concepts_is_learned(tables: MinedTables) -> None:
    assert tables.substitutions["neoplasm"] == ["tumor"]
    assert tables.substitutions["tumor"] == ["neoplasm"]
    assert _rule(tables, "neoplasm", "tumor") == {
        "a": "neoplasm",
        "b": "tumor",
        "kind": "substitution",
        "support": 3,
        "same": 3,
        "conflicts": 0,
        "kept": True,
    }


def test_hyperkalemia_hypokalemia_is_never_learned(tables: MinedTables) -> None:
    # Support alone (three concepts) would keep it; the conflicts reject it.
    rule = _rule(tables, "hyperkalemia", "hypokalemia")
    assert rule["support"] == 3 and rule["kept"] is False
    assert int(str(rule["conflicts"])) >= 2
    assert "hyperkalemia" not in tables.substitutions
    assert "hypokalemia" not in tables.substitutions
    assert tables.rewrites("congenital hyperkalemia") == []


def test_too_little_support_and_numbers_are_not_learned(tables: MinedTables) -> None:
    assert "carcinoma" not in tables.substitutions  # two concepts only
    assert not [r for r in tables.rules if {r["a"], r["b"]} == {"carcinoma", "cancer"}]
    assert "1" not in tables.substitutions and "2" not in tables.substitutions


def test_acronyms_come_from_the_names_of_one_concept(tables: MinedTables) -> None:
    assert tables.substitutions["copd"] == ["chronic obstructive pulmonary disease"]
    assert _rule(tables, "copd", "chronic obstructive pulmonary disease")["kind"] == "acronym"
    assert tables.rewrites("copd exacerbation") == [
        "chronic obstructive pulmonary disease exacerbation"
    ]


def test_rewrites_apply_each_rule_where_it_fits(tables: MinedTables) -> None:
    assert tables.rewrites("liver tumor") == ["liver neoplasm"]
    assert tables.rewrites("liver neoplasm") == ["liver tumor"]
    assert tables.rewrites("tumor copd") == [
        "neoplasm copd",
        "tumor chronic obstructive pulmonary disease",
        "neoplasm chronic obstructive pulmonary disease",
    ]
    assert tables.rewrites("headache") == []
    assert MinedTables().rewrites("liver tumor") == []


def test_tables_round_trip_and_an_old_version_gives_no_rules(
    tables: MinedTables, tmp_path: Path
) -> None:
    tables.save(tmp_path / "mined.json")
    again = MinedTables.load(tmp_path / "mined.json")
    assert again.substitutions == tables.substitutions and again.stats == tables.stats
    text = (tmp_path / "mined.json").read_text()
    (tmp_path / "old.json").write_text(
        text.replace(f'"version": {MINED_VERSION}', f'"version": {MINED_VERSION - 1}')
    )
    assert MinedTables.load(tmp_path / "old.json").substitutions == {}


def test_an_equivalent_concept_is_not_a_conflict(tmp_path: Path) -> None:
    # "renal" / "kidney" lands on the SNOMED twin of a UMLS concept: the same thing.
    entries = [
        entry(1, "Renal cyst", "kidney cyst"),
        entry(2, "Renal failure", "kidney failure"),
        entry(3, "Renal colic", "kidney colic"),
        entry(4, "Renal infarct", equivalents=("T:5",)),
        entry(5, "Kidney infarct", equivalents=("T:4",)),
    ]
    store = KbStore(tmp_path / "kb.sqlite", create=True)
    store.add(entries)
    mined = mine(store)
    store.close()
    assert mined.substitutions["renal"] == ["kidney"]
    assert _rule(mined, "kidney", "renal")["conflicts"] == 0


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LinkerIndex]:
    directory = tmp_path_factory.mktemp("index") / "idx"
    info = build_index(ENTRIES, directory, SETTINGS, key="test", source={"label": "mined"})
    assert info.mined["kept_substitutions"] == 1 and info.mined["kept_acronyms"] == 1
    opened = LinkerIndex(directory, ef_search=100, threads=1)
    yield opened
    opened.close()


def test_the_linker_finds_a_name_through_a_substitution(index: LinkerIndex) -> None:
    [link] = Linker(index, PARAMS).link([MentionQuery("Liver tumours")])
    assert link.status is LinkStatus.LINKED and link.concept_id == "T:4"
    assert link.method is Method.MINED and link.score == 0.85
    assert link.candidates[0].alias == "liver neoplasm"


def test_the_mined_stage_can_be_switched_off(index: LinkerIndex) -> None:
    off = LinkParams(threshold=0.8, margin=0.05, k=30, disabled=frozenset({"mined"}))
    [link] = Linker(index, off).link([MentionQuery("Liver tumours")])
    assert all(c.method is not Method.MINED for c in link.candidates)


def test_a_rejected_rule_never_links(index: LinkerIndex) -> None:
    # "congenital hypokalemia" has no name; mined rules must not offer hyperkalemia.
    [link] = Linker(index, PARAMS).link([MentionQuery("congenital hypokalemia")])
    assert all(c.method is not Method.MINED for c in link.candidates)
    assert link.concept_id != "T:11"
