"""String keys for the exact and normalized name stages of linking.

``exact_key`` is what the TF-IDF index and the exact stage store: case-folded, whitespace
collapsed. ``normalized_key`` further drops punctuation, possessives and stop words, reduces
plurals and sorts the words, so "Diabetes mellitus, type 2", "type 2 diabetes mellitus" and
"Type II diabetes" (roman numerals are mapped) share a key. Both are pure functions of the
string, so the index and the linker always agree.
"""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")
_POSSESSIVE = re.compile(r"['\u2019]s\b")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOP = frozenset({"of", "the", "and", "or", "with", "in", "on", "to", "by", "a", "an", "nos"})
_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6"}
# Word endings that look plural but are not (diabetes, virus, pelvis, analysis, ...).
_KEEP_S = ("ss", "us", "is", "ics", "ous", "itis", "sis", "xis", "betes", "pes")


def exact_key(text: str) -> str:
    """Case-folded text with runs of whitespace made one space."""
    return _SPACE.sub(" ", text).strip().casefold()


def singular(word: str) -> str:
    """A conservative English singular: enough for vocabulary names, never a stemmer."""
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(_KEEP_S):
        return word[:-1]
    return word


def normalized_key(text: str) -> str:
    """Sorted, singular, punctuation-free content words (empty when none are left)."""
    words = []
    for word in _WORD.findall(_POSSESSIVE.sub("", text.casefold())):
        if word in _STOP:
            continue
        words.append(_ROMAN.get(word, singular(word)))
    return " ".join(sorted(words))
