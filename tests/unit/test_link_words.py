"""Word-level synonym rules (mined.py, ``word_synonym``): two names of one concept whose
words differ by one word each in any order teach that the two words stand for each other,
and a mention rewritten by one is looked up among the names in any word order. Through a
real store and linker (SQLite, scispaCy TF-IDF, nmslib HNSW) over a hand-made KB."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgverify.link.index import LinkerIndex
from kgverify.link.kb import KbStore
from kgverify.link.linker import SWITCHABLE
from kgverify.link.mined import MinedTables, _word_pair, mine
from kgverify.link.model import LinkStatus, Method
from tests.unit.hand_kb import entry, hand_index, link

ENTRIES = [
    # tumor / neoplasm, only ever in another word order: the span alignment cannot pair them
    entry("T:1", "Breast neoplasm", "tumor of the breast"),
    entry("T:2", "Lung neoplasm", "tumor of the lung"),
    entry("T:3", "Skin neoplasm", "tumor of the skin"),
    entry("T:4", "Liver neoplasm"),
    # palsy / paralysis likewise
    entry("T:5", "Facial nerve paralysis", "palsy of the facial nerve"),
    entry("T:6", "Oculomotor nerve paralysis", "palsy of the oculomotor nerve"),
    entry("T:7", "Abducens nerve paralysis", "palsy of the abducens nerve"),
    entry("T:8", "Trochlear nerve paralysis"),
    # left / right in three concepts' synonym lists, but the KB keeps them apart
    entry("T:9", "Left ventricle hypertrophy", "hypertrophy of the right ventricle"),
    entry("T:10", "Left atrium dilatation", "dilatation of the right atrium"),
    entry("T:11", "Left lung hypoplasia", "hypoplasia of the right lung"),
    entry("T:12", "Right kidney agenesis"),
    entry("T:13", "Left kidney agenesis"),
    entry("T:14", "kidney agenesis right"),
    entry("T:15", "agenesis left kidney"),
]


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> MinedTables:
    store = KbStore(tmp_path_factory.mktemp("kb") / "kb.sqlite", create=True)
    store.add(ENTRIES)
    mined = mine(store)
    store.close()
    return mined


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LinkerIndex]:
    yield from hand_index(ENTRIES, tmp_path_factory.mktemp("index") / "idx")


def test_one_word_each_in_any_order_is_a_word_pair() -> None:
    assert _word_pair(["tumor", "breast"], ["breast", "neoplasm"]) == ("neoplasm", "tumor")
    assert _word_pair(["breast", "tumor"], ["breast", "neoplasm"]) == ("neoplasm", "tumor")


def test_two_words_apart_numbers_and_nothing_shared_are_no_pair() -> None:
    assert _word_pair(["big", "red", "tumor"], ["small", "blue", "tumor"]) is None
    assert _word_pair(["type", "1"], ["2", "type"]) is None
    assert _word_pair(["tumor"], ["neoplasm"]) is None


def test_word_rules_are_learned_apart_from_the_span_rules(tables: MinedTables) -> None:
    assert tables.words["tumor"] == ["neoplasm"]
    assert tables.words["palsy"] == ["paralysis"]
    assert "tumor" not in tables.substitutions
    assert tables.stats["kept_words"] >= 2
    assert tables.rewrites("tumor liver") == ["neoplasm liver"]
    assert tables.rewrites("tumor liver", words=False) == []


def test_a_word_rule_that_lands_on_other_concepts_is_rejected(tables: MinedTables) -> None:
    [rule] = [r for r in tables.rules if {r["a"], r["b"]} == {"left", "right"}]
    assert rule["kind"] == "word" and rule["kept"] is False
    assert "left" not in tables.words


@pytest.mark.parametrize(
    ("mention", "gold"),
    [("tumor of the liver", "T:4"), ("Palsy of the trochlear nerve", "T:8")],
)
def test_a_mention_links_through_a_word_rule_in_another_order(
    index: LinkerIndex, mention: str, gold: str
) -> None:
    assert "word_synonym" in SWITCHABLE
    found = link(index, mention)
    assert found.status is LinkStatus.LINKED and found.concept_id == gold
    assert found.method is Method.MINED
    off = link(index, mention, "word_synonym")
    assert off.concept_id != gold or off.method is not Method.MINED
