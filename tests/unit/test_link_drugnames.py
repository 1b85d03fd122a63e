"""Drug names as other languages and makers write them (drugnames.py): the keys, and the
links they make and must not make through a real linker over a hand-made KB."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kgverify.link.drugnames import foreign_ending_keys, maker_prefix_keys
from kgverify.link.index import LinkerIndex
from kgverify.link.linker import SWITCHABLE
from kgverify.link.model import LinkStatus, Method
from tests.unit.hand_kb import entry, hand_index, link

ENTRIES = [
    entry("CHEBI:1", "meticillin", kinds="substance"),
    entry("CHEBI:2", "morphine", kinds="substance"),
    entry("CHEBI:3", "amoxicillin", kinds="substance"),
    entry("CHEBI:4", "chlorpropamide", kinds="substance"),
    entry("CHEBI:5", "metformin", kinds="substance"),
    entry("CHEBI:6", "ibuprofen", kinds="substance"),
    entry("MONDO:1", "Willebrand disease"),
    entry("MONDO:2", "anemia"),
    entry("MONDO:3", "oil", kinds="substance"),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LinkerIndex]:
    yield from hand_index(ENTRIES, tmp_path_factory.mktemp("index") / "idx")


def test_foreign_endings_fold_to_the_stem_and_the_stem_with_e() -> None:
    assert foreign_ending_keys("Meticillinum") == ["meticilin", "meticiline"]
    assert foreign_ending_keys("morfina") == ["morfin", "morfine"]
    assert foreign_ending_keys("ibuprofeno")[0] == "ibuprofen"
    assert foreign_ending_keys("insulina glargina")[0] == "insulin glargin"


def test_english_words_and_short_or_vowel_stems_keep_their_ending() -> None:
    assert foreign_ending_keys("anemia") == []  # stem ends in a vowel
    assert foreign_ending_keys("soma") == []  # stem too short
    assert foreign_ending_keys("paracetamol") == []
    assert foreign_ending_keys("sodium") == []


def test_maker_prefixes_and_particles_come_off() -> None:
    assert maker_prefix_keys("Apo-Chlorpropamide") == ["chlorpropamide"]
    assert maker_prefix_keys("Teva metformin") == ["metformin"]
    assert maker_prefix_keys("von Willebrand disease") == ["wilebrand disease"]


def test_a_short_maker_name_before_a_space_is_an_english_word() -> None:
    assert maker_prefix_keys("mint oil") == []  # "mint-" is a maker, "mint oil" is not
    assert maker_prefix_keys("Mint-metformin") == ["metformin"]
    assert maker_prefix_keys("von-Willebrand") == []  # a particle stands before a space
    assert maker_prefix_keys("apo") == []


@pytest.mark.parametrize(
    ("mention", "gold", "stage"),
    [
        ("meticillinum", "CHEBI:1", "foreign_ending"),
        ("Morfina", "CHEBI:2", "foreign_ending"),
        ("amoxicilina", "CHEBI:3", "foreign_ending"),
        ("Apo-Chlorpropamide", "CHEBI:4", "maker_prefix"),
        ("von Willebrand disease", "MONDO:1", "maker_prefix"),
    ],
)
def test_the_folded_forms_link_and_only_through_their_stage(
    index: LinkerIndex, mention: str, gold: str, stage: str
) -> None:
    assert stage in SWITCHABLE
    found = link(index, mention)
    assert found.status is LinkStatus.LINKED and found.concept_id == gold
    assert found.method is Method.VARIANT
    off = link(index, mention, stage)
    assert off.concept_id != gold or off.method is not Method.VARIANT


def test_an_english_name_is_not_folded_into_another_concept(index: LinkerIndex) -> None:
    assert link(index, "mint oil").concept_id != "MONDO:3"
    found = link(index, "anemia")
    assert found.concept_id == "MONDO:2" and found.method is Method.EXACT
