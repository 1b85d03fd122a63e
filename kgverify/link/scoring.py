"""How a TF-IDF neighbour's score is read against the mention (docs/linking.md): one typo
scores as an edit, and a neighbour that is the mention's opposite, names only a part of it
or differs in its numbers is capped. Shared by the linker and by the calibration fitted at
build time (calibration.py), so the scores calibrated are the scores the linker decides on.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import OSA, Levenshtein
from rapidfuzz.process import extractOne

from kgverify.link.model import Method
from kgverify.link.normalize import discriminators, exact_key, normalized_key

EDIT_SCORE = 0.9
"""Score of a TF-IDF neighbour one edit (a typo) away from the mention. Char 3-grams punish a
transposition hard ("metfromin" shares few 3-grams with "metformin"); one edit is a typo,
two are often a different concept ("hypokalemia" / "hyperkalemia"), so only one counts."""

TIE_FACTOR = 0.94
"""A candidate another one beats on a stronger claim (the mention as its preferred name, not
a synonym; the mention's numbers, not none) is capped at this share of that one's score
(1.0 -> 0.94: more than the default margin)."""

UNNUMBERED_FACTOR = 0.9
"""A TF-IDF neighbour without the mention's numbers and letters (or with some the mention
lacks) keeps this share of its cosine, when no neighbour has them."""

MIN_TYPO_LENGTH = 5


@dataclass
class Hit:
    row: int
    score: float
    method: Method
    alias: str
    partial: bool = False  # names only a part of the mention (cover_the_mention)


def numbers_agree(text: str, hits: Iterable[Hit]) -> None:
    """TF-IDF neighbours whose numbers, roman numerals and single letters differ from the
    mention's are other members of a family ("factor VIII" / "factor VII", "Stickler syndrome
    2" / "type 1", "1,2-" / "1,1-dichloroethane"): capped like opposites. A neighbour with
    none where the mention has some, or the reverse, names the family or one member of it:
    it drops below the best neighbour that agrees by more than the default margin, or loses
    a tenth when none agrees."""
    mention = discriminators(text)
    hits = [h for h in hits if h.method is Method.TFIDF]
    agreeing = [h.score for h in hits if mention and discriminators(h.alias) == mention]
    cap = max(agreeing) * TIE_FACTOR if agreeing else None
    for hit in hits:
        alias = discriminators(hit.alias)
        if alias == mention:
            continue
        if alias and mention:
            hit.score = min(hit.score, CONTRARY_SCORE)
        elif cap is not None:
            hit.score = min(hit.score, cap)
        else:
            hit.score *= UNNUMBERED_FACTOR


MIN_COVERAGE = 0.6
"""Share of a multi-word mention's letters that a TF-IDF neighbour's words must account for
to keep a score above ``PARTIAL_SCORE``."""

TYPO_SIMILARITY = 0.7
"""Levenshtein similarity at which a mention word counts as a neighbour's word misspelled
("diabte", the singular ``normalized_key`` makes of "diabtes", against "diabetes": 0.75)."""

PARTIAL_SCORE = 0.5
"""Share of its score a TF-IDF neighbour keeps when it covers only a small part of a
multi-word mention (so at most 0.5)."""


def partial_score(score: float) -> float:
    """A partial neighbour's score: scaled, not capped, so partial neighbours keep their
    order. A cap tied every one of them at one score, and an operating point then had to
    take or leave them all at once (on MONDO -> HPO, a quarter of the mentions' first
    candidates tied there, many of them right: a disease named after the phenotype)."""
    return score * PARTIAL_SCORE


def cover_the_mention(text: str, hits: Iterable[Hit]) -> None:
    """A TF-IDF neighbour whose words account for less than ``MIN_COVERAGE`` of the letters of
    a multi-word mention's words keeps only ``PARTIAL_SCORE`` of its score
    (``partial_score``): it names a part of the mention, not the mention. TF-IDF scores
    only the 3-grams the index has seen, so a mention with an unknown word is scored on its
    known words alone: "Ménières Disease" scored 0.80 against the root concept "disease"
    before accents were folded, and any unknown word does the same. A mention word counts
    as covered when the neighbour has it, has it inside a word run together ("beta blocker"
    / "betablocker"), or has it misspelled (``TYPO_SIMILARITY``, words of five letters or
    more)."""
    words = normalized_key(text).split()
    if len(words) < 2:
        return
    letters = max(1, sum(map(len, words)))
    for hit in hits:
        if hit.method is Method.TFIDF and _short_of(words, letters, hit.alias):
            hit.score = partial_score(hit.score)
            hit.partial = True


def partial(words: list[str], alias: str) -> bool:
    """``alias`` names only a part of a multi-word mention (its normalized ``words``)."""
    return len(words) > 1 and _short_of(words, max(1, sum(map(len, words))), alias)


@lru_cache(maxsize=1 << 16)
def _named_words(alias: str) -> tuple[frozenset[str], tuple[str, ...], str]:
    """An alias's normalized words (as a set and in order) and the words run together,
    cached: the same aliases are neighbours of many mentions."""
    named = normalized_key(alias).split()
    return frozenset(named), tuple(named), "".join(named)


def _covers(word: str, known: frozenset[str], named: tuple[str, ...], joined: str) -> bool:
    """A mention word counts as covered by a name (its words ``known``, in order ``named``,
    run together ``joined``): the name has it, has it inside a word run together, or has
    it misspelled."""
    return (
        word in known
        or (len(word) >= 3 and word in joined)
        or (
            len(word) >= MIN_TYPO_LENGTH
            and extractOne(
                word, named, scorer=Levenshtein.normalized_similarity, score_cutoff=TYPO_SIMILARITY
            )
            is not None
        )
    )


def _short_of(words: list[str], letters: int, alias: str) -> bool:
    """The share of the mention's ``letters`` (of its normalized ``words``) that ``alias``
    covers is under ``MIN_COVERAGE``, decided as soon as the answer is known: most
    neighbours cover enough with their first words, and testing every word (the fuzzy test
    the costliest) was most of the linker's decision time (issue 38)."""
    known, named, joined = _named_words(alias)
    covered = 0
    left = sum(map(len, words))
    for word in words:
        left -= len(word)
        if _covers(word, known, named, joined):
            covered += len(word)
            if covered / letters >= MIN_COVERAGE:
                return False
        elif (covered + left) / letters < MIN_COVERAGE:
            return True  # even every word left would not cover enough
    return covered / letters < MIN_COVERAGE


def one_typo(key: str, alias: str) -> bool:
    """One edit apart and the edit looks like a typo, not a different concept: no digit
    touched ("HLD25" / "HLD2"), no vowel swapped for a vowel ("ethanal" / "ethanol",
    "sulfate" / "sulfite"), nothing changed in a short or roman-numeral word ("5A" / "5B",
    "XII" / "II")."""
    if len(key) < MIN_TYPO_LENGTH or key == alias:
        return False
    if OSA.distance(key, alias, score_cutoff=1) > 1:
        return False
    ops = Levenshtein.editops(key, alias)
    if len(ops) == 2:  # a transposition: two replacements of neighbours
        start = min(op.src_pos for op in ops)
        touched, where = key[start : start + 2], start
    else:
        [op] = ops
        if op.tag == "replace":
            touched, where = key[op.src_pos] + alias[op.dest_pos], op.src_pos
            if all(ch in _VOWELS for ch in touched):
                return False
        elif op.tag == "delete":
            touched, where = key[op.src_pos], op.src_pos
        else:
            touched, where = alias[op.dest_pos], min(op.src_pos, len(key) - 1)
    if any(ch.isdigit() for ch in touched):
        return False
    word = word_at(key, where)
    return len(word) > 3 and word not in _ROMAN_WORDS


CONTRARY_SCORE = 0.5
"""Cap on a neighbour that is the mention with one part turned into its opposite."""

# Parts that turn a name into its opposite or a different process: 3-grams barely see the
# change ("hyperkalemia" / "hypokalemia" have cosine 0.83 in a small KB).
_OPPOSITES = (
    ("hyper", "hypo"),
    ("tachy", "brady"),
    ("micro", "macro"),
    ("itis", "osis"),
    ("itis", "oma"),
)


def swaps(key: str) -> list[tuple[str, str]]:
    """The (part, opposite) pairs whose part the mention contains: most contain none, and
    their neighbours need no check."""
    pairs = [*_OPPOSITES, *((b, a) for a, b in _OPPOSITES)]
    return [(a, b) for a, b in pairs if a in key]


def contrary(key: str, alias: str, pairs: list[tuple[str, str]] | None = None) -> bool:
    """The alias is the mention with one part swapped for its opposite (give or take a
    typo): "hyperkalemia" / "hypokalemia", "arthritis" / "arthrosis"."""
    for a, b in swaps(key) if pairs is None else pairs:
        swapped = b in alias and a not in alias
        if swapped and OSA.distance(key.replace(a, b), alias, score_cutoff=1) <= 1:
            return True
    return False


# Whole words naming one of two exclusive values of an attribute: a neighbour that has the
# other word and not this one is another concept ("autosomal dominant ... 6" is not
# "autosomal recessive ... 6"; "benign" is not "malignant"), however close its 3-grams.
_OPPOSITE_WORDS = (
    ("dominant", "recessive"),
    ("benign", "malignant"),
    ("acute", "chronic"),
    ("congenital", "acquired"),
    ("primary", "secondary"),
    ("left", "right"),
    ("upper", "lower"),
    ("male", "female"),
)
_WORD = re.compile(r"[^\W\d_]+")
_OPPOSITE_OF = {a: b for a, b in _OPPOSITE_WORDS} | {b: a for a, b in _OPPOSITE_WORDS}


def opposed_words(key: str) -> list[tuple[str, str]]:
    """(word, opposite) for the mention's words whose opposite it does not also contain."""
    words = set(normalized_key(key).split())
    return [
        (w, _OPPOSITE_OF[w]) for w in words if w in _OPPOSITE_OF and _OPPOSITE_OF[w] not in words
    ]


def opposes(opposed: list[tuple[str, str]], alias: str) -> bool:
    """The alias has the opposite of one of the mention's words and lacks the word itself."""
    if not opposed:
        return False
    words = set(_WORD.findall(alias))
    return any(b in words and a not in words for a, b in opposed)


_VOWELS = frozenset("aeiouy")
_ROMAN_WORDS = frozenset({"i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"})


def word_at(text: str, position: int) -> str:
    """The run of letters an edit at ``position`` changes. Hyphens, digits and other
    punctuation end a word as spaces do: in "sr-38" the edit changes the two-letter "sr"
    (SN-38 is another substance), not a five-character word. An edit on a separator
    changes the shorter of the words beside it (none beside it: nothing a typo could be)."""
    if text[position].isalpha():
        start = end = position
        while start > 0 and text[start - 1].isalpha():
            start -= 1
        while end < len(text) and text[end].isalpha():
            end += 1
        return text[start:end]
    beside = [
        word_at(text, at)
        for at in (position - 1, position + 1)
        if 0 <= at < len(text) and text[at].isalpha()
    ]
    return min(beside, key=len, default="")


def cap_neighbours(text: str, hits: Collection[Hit], disabled: Collection[str] = ()) -> None:
    """Every cap on the TF-IDF neighbours of a mention: its opposites, neighbours that name
    only a part of it (``cover_the_mention``) and neighbours whose numbers differ (``numbers``)."""
    key = exact_key(text)
    found_swaps = swaps(key)
    opposed = opposed_words(key)
    for hit in hits if found_swaps or opposed else ():
        if hit.method in (Method.TFIDF, Method.EDIT) and (
            contrary(key, hit.alias, found_swaps) or opposes(opposed, hit.alias)
        ):
            hit.score = min(hit.score, CONTRARY_SCORE)
    if "coverage" not in disabled:
        cover_the_mention(text, hits)
    if "numbers" not in disabled:
        numbers_agree(text, hits)


def neighbour_hit(key: str, alias: str, similarity: float, row: int) -> Hit:
    """A TF-IDF neighbour as a hit: one typo away scores as an edit, else its cosine."""
    if one_typo(key, alias):
        return Hit(row, EDIT_SCORE, Method.EDIT, alias)
    return Hit(row, max(0.0, min(1.0, similarity)), Method.TFIDF, alias)
