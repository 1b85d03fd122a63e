"""Clinical mentions in free text, offline: a dictionary of the graph's concept names and
synonyms (lay words among them) under the linker's ``normalized_key``, restricted to the
kinds a patient talks about, looked up over the token n-grams of spaCy's blank English
tokenizer, longest match first. Nothing is downloaded: the names come from the graph (the
linker's own export), the tokenizer is rule-based.

Short all-capital names ("MI", "AF", "ALL") match only as written, so "all" in a sentence is
not acute lymphoblastic leukaemia; a name that is one English stop word, or under three
letters, never matches in lower case.

Patients put words between a name's words ("sprained my ankle", "my heart's been racing") and
say a verb for a participle ("broke my hip"): each span is also looked up with the
possessives and auxiliaries inside it left out and an injury verb ("broke", "break", "tore",
"crack") read as its participle (``lay_text``). What no name matches, the linker may still
resolve (a typo, other word order, a mined substitution): ``spans`` proposes the other word
spans of the text for it."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import spacy
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from kgverify.dialogue.body import PARTS, body_forms, injury_forms, trouble_forms
from kgverify.graph.driver import Graph
from kgverify.graph.model import Kind
from kgverify.link.kb import KbEntry, export_entries
from kgverify.link.normalize import normalized_key

TALKABLE = frozenset(
    {
        Kind.DISORDER,
        Kind.FINDING,
        Kind.INGREDIENT,
        Kind.DRUG_PRODUCT,
        Kind.BRAND,
        Kind.SUBSTANCE,
        Kind.PROCEDURE,
        Kind.LAB,
    }
)
"""Symptoms and findings, conditions, drugs (ingredients, products, brands), substances
(allergies), procedures, and lab tests (so that a lab value the patient should not know is
found, not missed)."""

MAX_WORDS = 8
"""Longest name, in tokens, the matcher looks for."""

_ABBREVIATION_MAX = 6
_PARTICLES = frozenset({"up", "out", "down", "off", "over"})
_COORDINATION = frozenset({"and", "or", ",", ";", "nor"})

GENERAL = frozenset(
    {"disease", "disorder", "finding", "substance", "injury", "inflammation", "enzyme", "drug",
     "surgery", "operation", "procedure"}
)  # fmt: skip
"""Category names that are concepts but never a patient's claim ("a disease", "surgery": the
group of every operation, which no record codes; "knee surgery" names no one of them)."""


def is_general(text: str) -> bool:
    """Whether ``text`` is a category name of ``GENERAL``, singular or plural ("injuries")."""
    word = " ".join(text.lower().split())
    singular = word[:-3] + "y" if word.endswith("ies") else word.removesuffix("s")
    return word in GENERAL or singular in GENERAL


FILLERS = frozenset(
    {"my", "his", "her", "their", "our", "your", "the", "a", "an", "'s", "\u2019s", "been",
     "is", "was", "are", "were", "has", "have", "keeps", "kept", "really", "very", "so",
     "quite", "pretty", "all", "both", "two", "three", "several", "some", "any"}
)  # fmt: skip
"""Words a patient puts inside a name ("sprained my ankle", "heart's been racing", "cracked
two ribs", "broke some ribs", "never broken any bones", "throat is really sore"): left out
of a span's lay form, never at its edges."""

PARTICIPLES = {
    "broke": "broken",
    "break": "broken",
    "breaking": "broken",
    "tore": "torn",
    "tear": "torn",
    "tearing": "torn",
    # a cracked bone is a broken one ("cracked my collarbone", "crack a rib")
    "crack": "broken",
    "cracked": "broken",
    "cracking": "broken",
    "sprain": "sprained",
    "twist": "twisted",
    # not an injury: "threw up blood" is the consumer term "throwing up blood"
    "threw": "throwing",
}
"""An injury verb a name says as a participle: past tense ("broke my hip": "broken hip"),
and the plain form or -ing a patient uses for a fear or a plan ("afraid I'll break a hip",
"crack a rib"). Only a lay form that is a name is ever found, so "take a break" is no
fracture."""

SPAN_WORDS = 4
"""Longest span, in tokens, proposed to the linker."""


def lay_text(tokens: Span) -> str:
    """A span without the fillers inside it, past tenses as participles; "" when that
    changes nothing."""
    words = [t.lower_ for t in tokens]
    if len(words) > 2:
        words_kept = [words[0], *(w for w in words[1:-1] if w not in FILLERS), words[-1]]
    else:
        words_kept = words
    lay = [PARTICIPLES.get(w, w) for w in words_kept]
    return " ".join(lay) if lay != words else ""


def _is_abbreviation(name: str) -> bool:
    return name.isupper() and len(name) <= _ABBREVIATION_MAX and " " not in name


@dataclass(frozen=True)
class Match:
    """A span of the text that names a concept of the graph."""

    span: Span
    concepts: tuple[str, ...]
    alias: str


class MentionMatcher:
    """Finds the clinical mentions of a text (``find``)."""

    def __init__(self, entries: Iterable[KbEntry], exclude: Collection[str] = ()) -> None:
        self.nlp: Language = spacy.blank("en")
        self.keys: dict[str, set[str]] = {}
        self.abbreviations: dict[str, set[str]] = {}
        allowed = {k.value for k in TALKABLE}
        self.concepts = 0
        for entry in entries:
            # Hubs ("Disease", "Substance") name no fact a patient could have.
            if not allowed & set(entry.kinds) or entry.id in exclude:
                continue
            self.concepts += 1
            for alias in entry.aliases():
                if _is_abbreviation(alias):
                    self.abbreviations.setdefault(alias, set()).add(entry.id)
                    continue
                key = normalized_key(alias)
                if len(key) < 3 or key in STOP_WORDS or key in GENERAL or key.isdigit():
                    continue
                self.keys.setdefault(key, set()).add(entry.id)

    @classmethod
    def from_graph(cls, graph: Graph, exclude: Collection[str] = ()) -> MentionMatcher:
        """Built from the concepts the linker indexes (``link/export_concepts``), less the
        ``exclude``d (the verifier's hubs)."""
        return cls(export_entries(graph), exclude)

    def doc(self, text: str) -> Doc:
        return self.nlp.make_doc(text)

    def find(self, doc: Doc) -> list[Match]:
        """Non-overlapping matches, left to right, the longest at each place."""
        found: list[Match] = []
        i = 0
        while i < len(doc):
            hit = self._longest(doc, i)
            if hit is None:
                i += 1
                continue
            found.append(hit)
            i = hit.span.end
        return found

    def _longest(self, doc: Doc, i: int) -> Match | None:
        first = doc[i]
        if first.is_punct or first.is_space:
            return None
        # "A1C." at the end of a sentence is one token; the abbreviation is "A1C".
        short = first.text[:-1] if first.text.endswith(".") else first.text
        if short in self.abbreviations:
            return Match(doc[i : i + 1], tuple(sorted(self.abbreviations[short])), short)
        # A name may open on a stop word only as written and of two words or more ("out of
        # breath", "no energy"); a part a symptom is said of is one ("back": "my back hurts").
        # A one-letter one never opens one: "a fib" is a lie as often as a rhythm.
        stopped = first.lower_ in STOP_WORDS and not _hyphened(doc, i)
        if stopped and len(first.text) < 2:
            return None
        stopped = stopped and first.lower_ not in PARTS
        stop = i + 1
        # Speech coordinates ("amoxicillin and clavulanate", "fever, cough"): a name never
        # spans a conjunction or a comma, so each part is its own mention.
        while stop < min(len(doc), i + MAX_WORDS) and doc[stop].lower_ not in _COORDINATION:
            stop += 1
        for end in range(stop, i, -1):
            last = doc[end - 1]
            # A name may end on a particle ("throwing up", "worn out") or a part ("pain in
            # my back"), never be one.
            ends = (last.lower_ in _PARTICLES or last.lower_ in PARTS) and end - i > 1
            if last.is_punct or (last.lower_ in STOP_WORDS and not ends):
                continue
            span = doc[i:end]
            if stopped and end - i < 2:
                continue
            key = normalized_key(span.text)
            if stopped and key == normalized_key(doc[i + 1 : end].text):
                continue  # the key drops it ("an ear infection"): the name starts after it
            concepts = self.keys.get(key)
            alias = span.text
            if not concepts and not stopped and end - i > 1 and (lay := lay_text(span)):
                concepts, alias = self.keys.get(normalized_key(lay)), lay
            forms = body_forms(span) + injury_forms(span) + trouble_forms(span)
            for form in [] if concepts or stopped else forms:
                concepts, alias = self.keys.get(normalized_key(form)), form
                if concepts:
                    break
            if concepts:
                return Match(span, tuple(sorted(concepts)), alias)
        return None

    def spans(self, doc: Doc, taken: Sequence[Match]) -> list[Span]:
        """The word spans the matcher found no name in, for the linker: up to ``SPAN_WORDS``
        tokens within a coordination, starting and ending on a word that is no stop word,
        number or punctuation, and holding a word of three letters or more; none overlaps a
        match."""
        covered = {k for m in taken for k in range(m.span.start, m.span.end)}
        out: list[Span] = []
        for i, first in enumerate(doc):
            if i in covered or not _content(first):
                continue
            for end in range(i + 1, min(len(doc), i + SPAN_WORDS) + 1):
                last = doc[end - 1]
                if end - 1 in covered or last.lower_ in _COORDINATION or last.is_punct:
                    break
                if _content(last) and any(len(t.text) >= 3 and t.is_alpha for t in doc[i:end]):
                    out.append(doc[i:end])
        return out


def _content(token: Token) -> bool:
    """A word a name can start or end on."""
    if token.is_punct or token.is_space or token.like_num:
        return False
    if token.lower_ in STOP_WORDS or token.lower_ in FILLERS:
        return _hyphened(token.doc, token.i)
    return any(c.isalpha() for c in token.text)


def _hyphened(doc: Doc, i: int) -> bool:
    """Whether token ``i`` opens a hyphenated word ("a-fib": "a", "-", "fib")."""
    return (
        i + 2 < len(doc)
        and not doc[i].whitespace_
        and doc[i + 1].text == "-"
        and not doc[i + 1].whitespace_
    )
