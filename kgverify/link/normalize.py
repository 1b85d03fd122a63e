"""String keys for the exact and normalized name stages of linking.

``exact_key`` is what the TF-IDF index and the exact stage store: case-folded, whitespace
collapsed, surrounding punctuation dropped ("Hemophilia." = "hemophilia").

``normalized_key`` further undoes the vocabularies' inverted forms ("Diabetes mellitus,
type 2" = "type 2 diabetes mellitus", "Arthritis, Rheumatoid" = "rheumatoid arthritis"),
drops punctuation, possessives and a few stop words, reduces plurals and maps roman
numerals after words like "type" ("type II" = "type 2"). It keeps what tells concepts
apart: word order ("left to right shunt" is not "right to left shunt"), numbers with their
decimal point ("0.1" is not "1.0"), signs ("T-B+" is not "T-B-") and single letters
("hemophilia A" is not "hemophilia"). Both are pure functions of the string, so the index
and the linker always agree. ``bag_key`` (sorted words) serves a later, weaker stage, and
only for names in which order cannot matter.
"""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")
_EDGES = " \t.,;:!?\"'`"
_POSSESSIVE = re.compile(r"['\u2019]s\b")
# Words, decimal numbers, and signs that end a token ("T-B+", "HLA-B27-", "Rh+").
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+|(?<=\w)[+-](?=\W|$)|\+", re.UNICODE)
_STOP = frozenset({"of", "the", "and", "or", "with", "in", "on", "to", "by", "an", "nos"})
_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7"}
# Roman numerals are mapped only after these words: elsewhere "i" and "v" are letters.
_NUMBERED = frozenset({"type", "class", "grade", "stage", "complex", "factor", "phase", "group"})
# Word endings that look plural but are not (diabetes, virus, pelvis, analysis, ...).
_KEEP_S = ("ss", "us", "is", "ics", "ous", "itis", "sis", "xis", "betes", "pes")


def exact_key(text: str) -> str:
    """Case-folded text, runs of whitespace made one space, surrounding punctuation cut."""
    return _SPACE.sub(" ", text).strip(_EDGES).casefold()


def singular(word: str) -> str:
    """A conservative English singular: enough for vocabulary names, never a stemmer."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(_KEEP_S):
        return word[:-1]
    return word


def _uninverted(text: str) -> str:
    """ "Head, modifier" -> "modifier head", the inverted form UMLS and MeSH names use;
    only for a single comma, so lists ("A, B, and C") stay as they are."""
    if text.count(",") == 1:
        head, modifier = (part.strip() for part in text.split(","))
        if head and modifier:
            return f"{modifier} {head}"
    return text


def normalized_key(text: str) -> str:
    """Content words in order, uninverted, singular, roman numerals mapped (may be empty)."""
    words: list[str] = []
    for token in _TOKEN.findall(_POSSESSIVE.sub("", _uninverted(exact_key(text)))):
        if token in _STOP:
            continue
        if token in _ROMAN and words and words[-1] in _NUMBERED:
            words.append(_ROMAN[token])
            continue
        words.append(singular(token))
    return " ".join(words)


# Words whose order carries meaning ("left to right shunt", "alpha/beta ratio").
_ORDERED = frozenset(
    {
        "left",
        "right",
        "upper",
        "lower",
        "anterior",
        "posterior",
        "superior",
        "inferior",
        "proximal",
        "distal",
        "medial",
        "lateral",
        "alpha",
        "beta",
        "gamma",
        "delta",
        "from",
        "into",
        "pre",
        "post",
        "donor",
        "recipient",
        "maternal",
        "paternal",
    }
)


def bag_key(text: str) -> str:
    """The normalized words sorted, for word-order variants ("cancer of the esophagus" =
    "esophagus cancer"); empty when order could matter: numbers, signs, single letters or
    words of direction."""
    words = normalized_key(text).split()
    if any(w[0].isdigit() or len(w) == 1 or w in _ORDERED for w in words):
        return ""
    return " ".join(sorted(words))
