"""Numbers a patient says and what the record holds, in one unit per dimension."""

from __future__ import annotations

import pytest

from kgverify.dialogue.numbers import (
    agrees,
    duration_agrees,
    elapsed_days,
    quantity,
    said,
    strengths,
)


def test_doses_values_and_durations_are_read_with_their_units() -> None:
    found = said("I take 0.5 g daily, had 100.4 F and it started two weeks ago")
    assert [(q.text, q.dimension, q.base, q.ago) for q in found] == [
        ("0.5 g", "mass", 500.0, False),
        ("100.4 F", "temperature", 38.0, False),
        ("two weeks", "duration", 14.0, True),
    ]


def test_compound_number_words_are_read_whole() -> None:
    assert [(q.text, q.value) for q in said("a stroke twenty-four years ago")] == [
        ("twenty-four years", 24.0)
    ]
    assert [q.value for q in said("thirty years, twenty one days, fifteen weeks")] == [
        30.0,
        21.0,
        15.0,
    ]
    assert said("twenty of them") == []  # a number word still needs a unit


def test_a_frequency_is_no_duration_and_a_number_word_needs_a_unit() -> None:
    assert said("twice a day") == []
    assert said("one of them") == []


def test_strengths_of_a_drug_name() -> None:
    found = strengths("Amoxicillin 250 MG / Clavulanate 125 MG Oral Tablet")
    assert [(q.base, q.dimension) for q in found] == [(250.0, "mass"), (125.0, "mass")]
    [conc] = strengths("nitrofurantoin 5 MG/ML Oral Suspension")
    assert conc.dimension == "dose_conc"


@pytest.mark.parametrize(
    ("spoken", "recorded", "expected"),
    [
        ("75 mcg", (0.075, "mg"), True),
        ("100 mcg", (0.075, "mg"), False),
        ("100.4 F", (38.0, "Cel"), True),
        ("101.5 F", (38.0, "Cel"), False),
        ("180 lb", (81.6, "kg"), True),
        ("180", (180.0, "mg/dL"), True),  # a bare number against a value: its unit
        ("5 days", (81.0, "mg"), None),  # different dimensions: not comparable
    ],
)
def test_agreement_after_unit_conversion(
    spoken: str, recorded: tuple[float, str], expected: bool | None
) -> None:
    [q] = said(spoken)
    assert agrees(q, quantity(*recorded), 0.05) is expected


def test_durations_against_recorded_dates() -> None:
    days = elapsed_days("2020-01-01", "2020-01-15T10:00:00")
    assert days == 14.0
    [two_weeks] = said("two weeks ago")
    [two_years] = said("2 years ago")
    assert duration_agrees(two_weeks, days) and not duration_agrees(two_years, days)
    assert elapsed_days(None, "2020-01-01") is None


def test_vague_amounts_are_read_but_marked() -> None:
    [few] = said("It started a few years ago")
    assert few.vague and few.dimension == "duration" and few.ago
    [several] = said("several weeks")
    assert several.vague
    [exact] = said("two years ago")
    assert not exact.vague
    assert said("someday") == []  # a number word needs a word of its own


def test_thousands_are_no_decimal_comma() -> None:
    [days] = said("2,303 days")
    assert days.base == 2303.0
    [dose] = said("1,5 mg")
    assert dose.base == 1.5


def test_an_amount_a_day_is_how_often_and_later_is_between_events() -> None:
    """Issue 37, fifth pass: "two a day" is a frequency, not a day's duration; "two years
    later" is the time between two events, kept but never compared with the record."""
    assert [q.text for q in said("Aleve 220, two a day.")] == ["220"]
    assert [q.text for q in said("I take 5 mg a day")] == ["5 mg"]
    assert said("one pill a week") == []
    [day] = said("It started a day ago")  # a duration still, with "ago"
    assert day.dimension == "duration" and day.ago and not day.between
    [later] = said("I fractured my forearm two years later")
    assert later.dimension == "duration" and later.between and not later.ago
    [ago] = said("I fractured my forearm two years ago")
    assert ago.ago and not ago.between


def test_a_day_after_a_thing_is_how_often_after_for_how_long() -> None:
    """Issue 37, seventh pass: "an aspirin a day" is a rate; "for a week", "spent a week",
    "on it a year" and "a week ago" are lengths of time."""
    assert [q.text for q in said("Just an aspirin a day, the 81.")] == ["81"]
    assert said("a pack a week") == []
    for text in ("black stools for a week", "I spent a week in the hospital", "on it a year"):
        [q] = said(text)
        assert q.dimension == "duration" and q.value == 1, text
    [ago] = said("It started a week ago")
    assert ago.ago
