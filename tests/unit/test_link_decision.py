"""The decision adjustments of linking (issue 16), each on its own and through a real linker
(scispaCy TF-IDF, nmslib HNSW, SQLite store) over a small hand-made knowledge base:
numbers and letters that must agree, a preferred name that beats a shared synonym, words
naming opposite values, and British spellings."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgverify.link.index import LinkerIndex
from kgverify.link.linker import SWITCHABLE
from kgverify.link.model import LinkStatus, Method
from kgverify.link.normalize import american, discriminators, normalized_key
from tests.unit.hand_kb import entry, hand_index, link

ENTRIES = [
    entry("MONDO:10", "Stickler syndrome"),
    entry("MONDO:11", "Stickler syndrome type 2"),
    entry("MONDO:12", "Stickler syndrome type 1"),
    entry("MONDO:20", "factor VII deficiency"),
    entry("MONDO:21", "hemophilia A", "factor VIII deficiency"),
    entry("MONDO:30", "vesicoureteral reflux"),
    entry("MONDO:31", "vesicoureteral reflux 1", "vesicoureteral reflux", "VUR1"),
    entry("MONDO:40", "intellectual disability, autosomal recessive 6"),
    entry("MONDO:50", "anemia"),
    entry("MONDO:51", "esophageal varices"),
    entry("MONDO:60", "chronic kidney disease"),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LinkerIndex]:
    yield from hand_index(ENTRIES, tmp_path_factory.mktemp("index") / "idx")


def test_discriminators_are_numbers_romans_and_letters_as_a_multiset() -> None:
    assert discriminators("Stickler syndrome 2") == discriminators("Stickler syndrome type II")
    assert discriminators("factor VIII deficiency") == ("8",)
    assert discriminators("factor VII deficiency") == ("7",)
    assert discriminators("mucopolysaccharidosis III-A") == discriminators("MPS type 3A")
    assert discriminators("vitamin B12 deficiency") == ("12", "b")
    assert discriminators("1,2-dichloroethane") != discriminators("1,1-dichloroethane")
    # "i" and "v" are letters unless a numbering word comes first
    assert discriminators("type I diabetes") == ("1",) and discriminators("vitamin A") == ("a",)
    assert discriminators("chronic kidney disease") == ()


def test_a_numbered_mention_links_to_its_numbered_member(index: LinkerIndex) -> None:
    found = link(index, "Stickler syndrome 2")
    assert found.method is Method.TFIDF
    assert (found.status, found.concept_id) == (LinkStatus.LINKED, "MONDO:11")
    scores = {c.concept_id: c.score for c in found.candidates}
    assert scores["MONDO:12"] <= 0.5  # another member of the family: capped
    assert scores["MONDO:10"] < scores["MONDO:11"]  # the family name loses a tenth
    # without the stage the family name is as near: no link
    assert link(index, "Stickler syndrome 2", "numbers").concept_id != "MONDO:11"


def test_factor_eight_is_not_factor_seven(index: LinkerIndex) -> None:
    found = link(index, "deficiency of factor 8")
    assert found.concept_id == "MONDO:21"
    assert all(c.score <= 0.5 for c in found.candidates if c.concept_id == "MONDO:20")


def test_a_preferred_name_beats_the_same_name_as_a_synonym(index: LinkerIndex) -> None:
    found = link(index, "vesicoureteral reflux")
    assert (found.status, found.concept_id) == (LinkStatus.LINKED, "MONDO:30")
    synonym = next(c for c in found.candidates if c.concept_id == "MONDO:31")
    assert synonym.method is Method.EXACT and synonym.score == pytest.approx(0.94)
    assert link(index, "vesicoureteral reflux", "preferred").status is LinkStatus.AMBIGUOUS
    # a name only one concept has still links there at full score
    only = link(index, "VUR1")
    assert (only.concept_id, only.score) == ("MONDO:31", 1.0)


def test_the_opposite_word_caps_a_near_neighbour(index: LinkerIndex) -> None:
    found = link(index, "intellectual disability, autosomal dominant 6")
    assert found.status is LinkStatus.UNLINKED
    assert all(c.score <= 0.5 for c in found.candidates)
    # the same words with the mention's own value are not touched
    same = link(index, "autosomal recessive intellectual disability 6")
    assert same.concept_id == "MONDO:40"
    assert link(index, "acute kidney disease").concept_id != "MONDO:60"


def test_british_spellings_normalize_to_american(index: LinkerIndex) -> None:
    assert normalized_key("Anaemia") == normalized_key("anemia")
    assert normalized_key("oesophageal varices") == "esophageal varice"
    assert american("tumour") == "tumor" and american("haemorrhage") == "hemorrhage"
    assert american("aluminium sulphate") == "aluminum sulfate"
    for word in ("aerobic", "aeruginosa", "four", "your"):
        assert american(word) == word
    found = link(index, "anaemia")
    assert (found.method, found.concept_id) == (Method.NORMALIZED, "MONDO:50")
    assert link(index, "oesophageal varices").concept_id == "MONDO:51"


def test_the_new_stages_are_switchable() -> None:
    assert {"numbers", "preferred"} <= set(SWITCHABLE)
