"""A recorded condition's own name says what the patient said (kgverify.dialogue.naming)."""

from __future__ import annotations

import pytest

from kgverify.dialogue.naming import names


@pytest.mark.parametrize(
    ("said", "recorded"),
    [
        ("emphysema", "emphysematous bronchitis"),  # a derived form of a recorded word
        ("Rhinitis, Allergic, Seasonal", "perennial allergic rhinitis with seasonal variation"),
        ("seasonal allergic rhinitis", "Perennial allergic rhinitis with seasonal variation"),
        ("polyps", "polyp of colon"),  # a plural
        ("osteoporosis", "pathological fracture due to osteoporosis"),
    ],
)
def test_every_word_said_is_in_the_recorded_name(said: str, recorded: str) -> None:
    assert names(said, recorded)


@pytest.mark.parametrize(
    ("said", "recorded"),
    [
        ("chronic bronchitis", "acute bronchitis"),  # a word the record does not say
        ("acute bronchitis", "emphysematous bronchitis"),
        ("fracture of wrist", "fracture of forearm"),
        ("pulmonary emphysema", "emphysematous bronchitis"),  # "pulmonary" is not recorded
        ("ear", "earache"),  # too short to be a stem: a prefix is not a derived form
        ("concussion with loss of consciousness", "concussion with no loss of consciousness"),
        ("concussion with no loss of consciousness", "concussion with loss of consciousness"),
        ("of the", "fracture of the rib"),  # no content word said
    ],
)
def test_a_word_the_record_does_not_say_or_a_negation_it_lacks_names_nothing(
    said: str, recorded: str
) -> None:
    assert not names(said, recorded)
