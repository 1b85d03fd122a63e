"""The linker defects users found (issue 38), each with the case that failed and the case
that must not change: accents, a partial match of a long mention, salts stripped one word at
a time and nucleotide phosphates kept, the typo guard on hyphenated tokens, and classical
plurals. Through a real linker (scispaCy TF-IDF, nmslib HNSW, SQLite store) over a small
hand-made knowledge base."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kgverify.link.index import LinkerIndex
from kgverify.link.model import LinkStatus, Method
from kgverify.link.normalize import (
    classical_plural_keys,
    exact_key,
    fold_accents,
    normalized_key,
    salt_keys,
    singular,
    stereo_keys,
)
from kgverify.link.scoring import PARTIAL_SCORE
from kgverify.link.scoring import one_typo as _one_typo
from tests.unit.hand_kb import entry, hand_index, link

BETA = "\N{GREEK SMALL LETTER BETA}"


ENTRIES = [
    entry("CHEBI:1", "Nepafenac", kinds="substance"),
    entry("MONDO:1", "Ménière's disease"),  # accented in the vocabulary
    entry("MONDO:2", "disease"),  # the root concept a partial match used to find
    entry("CHEBI:2", "mometasone", kinds="substance"),
    entry("CHEBI:3", "mometasone furoate", kinds="substance"),
    entry("CHEBI:4", "adenosine", kinds="substance"),
    entry("CHEBI:5", "adenosine triphosphate", kinds="substance"),
    entry("CHEBI:6", "guanosine", kinds="substance"),
    entry("CHEBI:7", "pyridoxal", kinds="substance"),
    entry("CHEBI:8", "sodium", kinds="substance"),
    entry("CHEBI:9", "SN-38", kinds="substance"),
    entry("CHEBI:10", "amoxicillin-clavulanate", kinds="substance"),
    entry("CHEBI:11", "dose", kinds="substance"),
    entry("MONDO:3", "hydronephrosis"),
    entry("MONDO:4", "stomatitis"),
    entry("MONDO:5", "carcinoma"),
    entry("MONDO:6", "diabetes mellitus"),
    entry("MONDO:7", "Sjögren syndrome"),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LinkerIndex]:
    yield from hand_index(ENTRIES, tmp_path_factory.mktemp("index") / "idx")


def scores(found: Any) -> dict[str, float]:
    return {c.concept_id: c.score for c in found.candidates}


# -- accents --------------------------------------------------------------------------------


def test_accents_are_folded_in_every_key() -> None:
    assert fold_accents("népafénac") == "nepafenac"
    assert exact_key("Népafénac") == exact_key("nepafenac") == "nepafenac"
    assert normalized_key("Ménières Disease") == normalized_key("Ménière's disease")
    assert normalized_key("Ménière's disease") == normalized_key("Menieres disease")
    assert exact_key("Sjögren syndrome") == "sjogren syndrome"


def test_folding_keeps_what_is_no_accent() -> None:
    assert fold_accents("metformin 500 mg") == "metformin 500 mg"  # plain text as it is
    # Greek letters and the stereo signs are letters and signs, not accents.
    assert exact_key(f"{BETA}-blocker") == f"{BETA}-blocker"
    assert stereo_keys("(\N{PLUS-MINUS SIGN})-camphor") == ["camphor"]
    # Two names that differ in more than an accent stay apart.
    assert normalized_key("Ménière's disease") != normalized_key("Meniere syndrome")


def test_an_accented_mention_links_and_so_does_an_accented_name(index: LinkerIndex) -> None:
    found = link(index, "népafénac")
    assert (found.status, found.concept_id, found.method) == (
        LinkStatus.LINKED,
        "CHEBI:1",
        Method.EXACT,
    )
    # The accented name in the vocabulary, the mention with or without accents.
    for text in ("Ménières Disease", "Menieres disease", "Ménière's disease"):
        found = link(index, text)
        assert (found.status, found.concept_id) == (LinkStatus.LINKED, "MONDO:1"), text
    assert link(index, "Sjogren syndrome").concept_id == "MONDO:7"


# -- a partial match of a multi-word mention ------------------------------------------------


def test_a_root_concept_is_not_a_confident_link_for_a_longer_mention(index: LinkerIndex) -> None:
    # An unknown word has no 3-grams in the index: TF-IDF scores "disease" alone, 1.0 here.
    found = link(index, "Zorblax disease")
    assert found.status is LinkStatus.UNLINKED
    assert scores(found)["MONDO:2"] == PARTIAL_SCORE
    # The guard is what does it.
    off = link(index, "Zorblax disease", "coverage")
    assert (off.status, off.concept_id) == (LinkStatus.LINKED, "MONDO:2")
    # GTP is not ATP: "guanosine" is a third of the mention and ATP lacks it.
    assert link(index, "guanosine triphosphate").status is LinkStatus.UNLINKED


def test_a_neighbour_that_covers_the_mention_still_links(index: LinkerIndex) -> None:
    # Misspelled words count as covered: two typos, TF-IDF 0.83.
    found = link(index, "diabtes melitus")
    assert (found.status, found.concept_id, found.method) == (
        LinkStatus.LINKED,
        "MONDO:6",
        Method.TFIDF,
    )
    # A one-word mention is never capped by this guard.
    assert link(index, "Hydronephroses", "classical_plural").concept_id == "MONDO:3"


# -- salts ----------------------------------------------------------------------------------


def test_salt_words_come_off_one_at_a_time_longest_form_first() -> None:
    assert salt_keys("mometasone furoate anhydrous") == [
        "mometasone furoate",
        "mometasone anhydrous",
        "mometasone",
    ]
    assert salt_keys("saccharin sodium") == ["saccharin"]
    assert salt_keys("sodium chloride") == []  # only ions: a substance of its own
    assert salt_keys("magnesium sulfate heptahydrate") == []


def test_nucleotide_and_pyridoxal_phosphates_are_not_salts() -> None:
    for text in (
        "adenosine triphosphate",
        "guanosine triphosphate",
        "cytidine diphosphate",
        "uridine monophosphate",
        "deoxythymidine triphosphate",
        "inosine monophosphate",
        "pyridoxal phosphate",
        "pyridoxal 5'-phosphate",
        "adenosine 5'-triphosphate",
    ):
        assert salt_keys(text) == [], text
    # Their own salts still come off, and any other phosphate is a salt.
    assert salt_keys("adenosine 5'-triphosphate disodium") == ["adenosine 5 triphosphate"]
    assert salt_keys("codeine phosphate") == ["codeine"]


def test_a_salt_the_vocabulary_has_is_not_stripped_to_its_parent(index: LinkerIndex) -> None:
    found = link(index, "mometasone furoate anhydrous")
    assert (found.status, found.concept_id, found.method) == (
        LinkStatus.LINKED,
        "CHEBI:3",
        Method.VARIANT,
    )
    assert "CHEBI:2" not in scores(found)  # the parent is no rival
    # Without the furoate the parent is the first form that is a name.
    assert link(index, "mometasone anhydrous").concept_id == "CHEBI:2"
    assert link(index, "adenosine triphosphate disodium").concept_id == "CHEBI:5"


def test_phosphates_and_ion_pairs_do_not_link_to_a_part(index: LinkerIndex) -> None:
    for text, part in [
        ("guanosine triphosphate", "CHEBI:6"),
        ("pyridoxal phosphate", "CHEBI:7"),
        ("sodium chloride", "CHEBI:8"),
    ]:
        found = link(index, text)
        assert found.status is LinkStatus.UNLINKED, text
        assert all(c.method is not Method.VARIANT for c in found.candidates), text
        assert scores(found).get(part, 0.0) <= PARTIAL_SCORE, text


# -- the typo guard on hyphenated tokens ----------------------------------------------------


def test_an_edit_in_a_short_hyphenated_token_is_no_typo() -> None:
    assert not _one_typo("sr-38", "sn-38")  # "sr" is a word of two letters
    assert not _one_typo("ab-metformin", "ac-metformin")
    assert not _one_typo("metformin-xr", "metformin-xl")
    assert not _one_typo("sn38", "sn-38")  # the hyphen beside a two-letter word
    # A typo in a long word is one, hyphen or not.
    assert _one_typo("metfromin", "metformin")
    assert _one_typo("amoxicillin-calvulanate", "amoxicillin-clavulanate")
    assert _one_typo("heartattack", "heart attack")


def test_sr_38_is_not_sn_38_but_a_long_word_typo_links(index: LinkerIndex) -> None:
    found = link(index, "sr-38")
    assert found.status is LinkStatus.UNLINKED
    assert all(c.method is not Method.EDIT for c in found.candidates)
    typo = link(index, "amoxicillin-calvulanate")
    assert (typo.status, typo.concept_id, typo.method) == (
        LinkStatus.LINKED,
        "CHEBI:10",
        Method.EDIT,
    )


# -- classical plurals ----------------------------------------------------------------------


def test_classical_plurals_give_their_singulars_as_keys() -> None:
    assert classical_plural_keys("Hydronephroses") == ["hydronephrosis"]
    assert classical_plural_keys("Stomatitides") == ["stomatitis"]
    assert classical_plural_keys("carcinomata") == ["carcinoma"]
    assert classical_plural_keys("psoriases") == ["psoriasis"]
    assert classical_plural_keys("renal calculi") == ["renal calculus"]
    assert classical_plural_keys("vertebrae") == ["vertebra"]
    assert "appendix" in classical_plural_keys("appendices")


def test_english_plurals_keep_the_usual_rule() -> None:
    # ``singular`` never applies a classical form: "doses" and "kinases" are English.
    assert singular("doses") == "dose" and singular("kinases") == "kinase"
    assert normalized_key("Hydronephroses") == "hydronephrose"
    assert classical_plural_keys("doses") == [] and classical_plural_keys("hydronephrosis") == []
    assert classical_plural_keys("arthritis") == []  # no -itis made anything else


def test_a_classical_plural_links_to_its_singular(index: LinkerIndex) -> None:
    for text, gold in [
        ("Hydronephroses", "MONDO:3"),
        ("Stomatitides", "MONDO:4"),
        ("carcinomata", "MONDO:5"),
    ]:
        found = link(index, text)
        assert (found.status, found.concept_id, found.method) == (
            LinkStatus.LINKED,
            gold,
            Method.VARIANT,
        ), text
        assert link(index, text, "classical_plural").method is not Method.VARIANT, text
    # The usual rule comes first: "doses" is a plural of "dose", found by its own name.
    found = link(index, "doses")
    assert (found.concept_id, found.method) == ("CHEBI:11", Method.NORMALIZED)
