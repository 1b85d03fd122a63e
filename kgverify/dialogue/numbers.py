"""Numbers a patient says (doses, values, durations) and what the record holds, in one unit
per dimension, so "0.5 g" meets "500 MG" and "100.4 F" meets 38 Cel.

Doses and strengths go to mg (mass) or mL (volume); temperatures to degrees Celsius; body
weight to kg; durations ("3 days ago", "for two weeks") to days. A concentration ("5 mg/ml")
is compared only with a concentration. Recorded values come from a fact sheet: a drug's
strengths are read from its name ("Aspirin 81 MG Oral Tablet"), a lab's from its value and
unit (UCUM codes such as ``Cel``, ``[degF]``, ``mg/dL``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

# unit word -> (dimension, factor to the base unit); temperatures are converted apart.
_UNITS: dict[str, tuple[str, float]] = {
    "mg": ("mass", 1.0),
    "milligram": ("mass", 1.0),
    "milligrams": ("mass", 1.0),
    "g": ("mass", 1000.0),
    "gram": ("mass", 1000.0),
    "grams": ("mass", 1000.0),
    "mcg": ("mass", 0.001),
    "ug": ("mass", 0.001),
    "µg": ("mass", 0.001),
    "microgram": ("mass", 0.001),
    "micrograms": ("mass", 0.001),
    "ml": ("volume", 1.0),
    "milliliter": ("volume", 1.0),
    "milliliters": ("volume", 1.0),
    "l": ("volume", 1000.0),
    "liter": ("volume", 1000.0),
    "liters": ("volume", 1000.0),
    "kg": ("weight", 1.0),
    "kilo": ("weight", 1.0),
    "kilos": ("weight", 1.0),
    "kilograms": ("weight", 1.0),
    "lb": ("weight", 0.45359237),
    "lbs": ("weight", 0.45359237),
    "pound": ("weight", 0.45359237),
    "pounds": ("weight", 0.45359237),
    "%": ("percent", 1.0),
    "percent": ("percent", 1.0),
    "mg/dl": ("mass_conc", 1.0),
    "mg/ml": ("dose_conc", 1.0),
    "mmol/l": ("mol_conc", 1.0),
    "mmhg": ("pressure", 1.0),
    "day": ("duration", 1.0),
    "days": ("duration", 1.0),
    "week": ("duration", 7.0),
    "weeks": ("duration", 7.0),
    "month": ("duration", 30.44),
    "months": ("duration", 30.44),
    "year": ("duration", 365.25),
    "years": ("duration", 365.25),
}
_CELSIUS = frozenset({"c", "°c", "cel", "celsius", "degrees celsius", "degrees c"})
_FAHRENHEIT = frozenset({"f", "°f", "[degf]", "fahrenheit", "degrees fahrenheit", "degrees f"})
_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "a": 1,
    "an": 1,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
    "some": 3,
    "many": 5,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}
_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
# "twenty", "twenty-four", "twenty four" (read whole: "four" alone was "twenty-four"'s end)
_WORDS |= _TENS | {
    f"{tens}{joint}{one}": value + n
    for tens, value in _TENS.items()
    for n, one in enumerate(_ONES, 1)
    for joint in ("-", " ")
}
VAGUE = frozenset(
    {"a couple of", "a couple", "couple of", "a few", "few", "several", "some", "many"}
)
"""Amounts people say without meaning a number ("a few years ago", "several weeks"): read,
shown, never compared with the record."""
_UNIT_RE = (
    r"mg/dl|mg/ml|mmol/l|mmhg|degrees\s+(?:celsius|fahrenheit|c|f)|°[cf]|celsius|fahrenheit|"
    r"milligrams?|micrograms?|mcg|µg|ug|mg|grams?|g|milliliters?|ml|liters?|l|kilograms?|kilos?|"
    r"kg|pounds?|lbs?|lb|percent|%|days?|weeks?|months?|years?|c|f"
)
_NUMBER_WORDS = "|".join(sorted(map(re.escape, _WORDS), key=len)[::-1])
_NUMBER = re.compile(
    r"(?<![\w.])(?P<value>\d{1,3}(?:,\d{3})+(?![\d.])|\d+(?:[.,]\d+)?|"
    + _NUMBER_WORDS
    # a word number must be followed by a duration or dose unit to count
    + r")\s*(?P<unit>(?:"
    + _UNIT_RE
    + r")(?![\w/]))?",
    re.IGNORECASE,
)
# "twice a day", "once a week", "3 times a day": a frequency, not a duration.
_FREQUENCY = re.compile(r"\b(?:once|twice|thrice|times|per|every)\s*$", re.IGNORECASE)
# "two a day", "2 pills a week", "5 mg a day": "a" after an amount is "per".
_AMOUNT_BEFORE = re.compile(
    r"(?:\d|\b(?:one|two|three|four|five|six|half|pills?|tablets?|capsules?|caps|puffs?|doses?|"
    r"drops?|sprays?|shots?|injections?|patch(?:es)?|glass(?:es)?|cups?|drinks?|cigarettes?|"
    r"packs?|mg|milligrams?|mcg|micrograms?|ml|units?|grams?)\b)\s*$",
    re.IGNORECASE,
)
# "a week" is a length of time only after one of these ("for a week", "in a day", "spent a
# week in hospital"); after a thing ("an aspirin a day", "a pack a week") it is how often.
_LENGTH_BEFORE = re.compile(
    r"\b(?:for|in|within|about|around|over|under|than|nearly|almost|just|only|least|most|"
    r"lasted|lasts|last|spent|spend|took|takes|take|whole|entire|full|half|it|them|that)\s*$",
    re.IGNORECASE,
)
_AGO = re.compile(r"\s*(ago|back|before)\b", re.IGNORECASE)
# "two years later", "a week after that": a time between two events, not from now.
_BETWEEN = re.compile(r"\s*(later|after|afterwards?|earlier)\b", re.IGNORECASE)
_STRENGTH = re.compile(
    r"(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>mg/ml|mg/actuat|mg|mcg|g|ml|unt/ml|meq)\b", re.IGNORECASE
)


TEMPERATURE_TOLERANCE = 0.2
"""Degrees Celsius a said temperature may differ from the recorded one (rounding, F->C)."""


@dataclass(frozen=True)
class Quantity:
    """A number with a dimension and its value in the base unit of that dimension."""

    text: str
    value: float
    unit: str | None
    dimension: str | None
    base: float
    start: int = 0
    end: int = 0
    ago: bool = False
    vague: bool = False  # "a few", "several": never compared
    between: bool = False  # "two years later": from another event, never compared


def is_dose(q: Quantity) -> bool:
    """A drug's amount: a mass, a volume or a concentration."""
    return q.dimension in ("mass", "volume", "dose_conc")


def _float(text: str) -> float | None:
    key = " ".join(text.lower().split())
    if key in _WORDS:
        return float(_WORDS[key])
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+", text):  # "2,303": thousands, not a decimal comma
        return float(text.replace(",", ""))
    try:
        return float(text.replace(",", "."))
    except ValueError:
        return None


def quantity(value: float, unit: str | None, text: str = "") -> Quantity:
    """``value`` in ``unit`` as a Quantity in its dimension's base unit."""
    key = " ".join((unit or "").lower().split())
    if key in _CELSIUS:
        return Quantity(text, value, unit, "temperature", value)
    if key in _FAHRENHEIT:
        return Quantity(text, value, unit, "temperature", round((value - 32) * 5 / 9, 3))
    found = _UNITS.get(key)
    if found is None:
        return Quantity(text, value, unit, None, value)
    dimension, factor = found
    return Quantity(text, value, unit, dimension, value * factor)


def said(text: str, start: int = 0, end: int | None = None) -> list[Quantity]:
    """The numbers in ``text[start:end]`` with their units; a number word ("two") only
    before a unit, a bare "c"/"f"/"g"/"l" only after a digit."""
    out = []
    end = len(text) if end is None else end
    for m in _NUMBER.finditer(text, start, end):
        raw, unit = m.group("value"), m.group("unit")
        if not raw[0].isdigit() and (not unit or text[m.start("unit") - 1].isalpha()):
            continue  # a number word needs a unit, and a word of its own ("someday": none)
        value = _float(raw)
        if value is None or _FREQUENCY.search(text, 0, m.start()):
            continue
        if raw.lower() in ("a", "an") and _AMOUNT_BEFORE.search(text, 0, m.start()):
            continue  # "two a day": how often, not how long
        q = quantity(value, unit, m.group(0).strip())
        ago = bool(_AGO.match(text, m.end()))
        vague = " ".join(raw.lower().split()) in VAGUE
        between = q.dimension == "duration" and bool(_BETWEEN.match(text, m.end()))
        rate = raw.lower() in ("a", "an") and not (ago or between)
        if rate and q.dimension == "duration" and not _LENGTH_BEFORE.search(text, 0, m.start()):
            continue  # "an aspirin a day": how often, not how long
        out.append(
            Quantity(
                q.text,
                q.value,
                q.unit,
                q.dimension,
                q.base,
                m.start(),
                m.end(),
                ago,
                vague,
                between,
            )
        )
    return out


def strengths(name: str) -> list[Quantity]:
    """The strengths in a drug's name: "Amoxicillin 250 MG / Clavulanate 125 MG Oral Tablet"
    -> 250 mg, 125 mg; "5 MG/ML" is a concentration."""
    out = []
    for m in _STRENGTH.finditer(name):
        unit = m.group("unit").lower()
        dimension = {"mg/ml": "dose_conc", "mg/actuat": "dose_actuation"}.get(unit)
        value = float(m.group("value"))
        if dimension is not None:
            out.append(Quantity(m.group(0), value, unit, dimension, value))
        else:
            out.append(quantity(value, unit, m.group(0)))
    return out


def agrees(spoken: Quantity, recorded: Quantity, tolerance: float = 0.05) -> bool | None:
    """Whether a said number matches a recorded one within ``tolerance`` (relative); None
    when they cannot be compared (different dimensions, one without a unit)."""
    if spoken.dimension is None and recorded.dimension is not None:
        # A bare number next to a value: compare in the recorded unit ("my sugar was 180").
        return abs(spoken.value - recorded.value) <= tolerance * abs(recorded.value) + 1e-9
    if spoken.dimension != recorded.dimension or spoken.dimension is None:
        return None
    if spoken.dimension == "temperature":  # a relative share of 38 degrees is far too wide
        return abs(spoken.base - recorded.base) <= TEMPERATURE_TOLERANCE
    return abs(spoken.base - recorded.base) <= tolerance * abs(recorded.base) + 1e-9


def elapsed_days(since: str | None, until: str | None) -> float | None:
    """Days from one ISO date (or datetime) to another; None when either is missing."""
    if not since or not until:
        return None
    try:
        return float((date.fromisoformat(until[:10]) - date.fromisoformat(since[:10])).days)
    except ValueError:
        return None


def duration_agrees(spoken: Quantity, days: float) -> bool:
    """A spoken duration against recorded days: within half of it, or within one of the
    spoken unit (people round: "two weeks ago" for 10 days)."""
    unit_days = spoken.base / spoken.value if spoken.value else 1.0
    return abs(spoken.base - days) <= max(0.5 * days, unit_days)
