"""Clinical mentions in free text, offline: a dictionary of the graph's concept names and
synonyms (lay words among them) under the linker's ``normalized_key``, restricted to the
kinds a patient talks about, looked up over the token n-grams of spaCy's blank English
tokenizer, longest match first. Nothing is downloaded: the names come from the graph (the
linker's own export), the tokenizer is rule-based.

Short all-capital names ("MI", "AF", "ALL") match only as written, so "all" in a sentence is
not acute lymphoblastic leukaemia; a name that is one English stop word, or under three
letters, never matches in lower case."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

import spacy
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.tokens import Doc, Span

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
_COORDINATION = frozenset({"and", "or", ",", ";", "nor"})

GENERAL = frozenset(
    {"disease", "disorder", "finding", "substance", "injury", "inflammation", "enzyme", "drug"}
)
"""Category names that are concepts but never a patient's claim ("a disease")."""


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
        if first.text in self.abbreviations:
            return Match(doc[i : i + 1], tuple(sorted(self.abbreviations[first.text])), first.text)
        if first.lower_ in STOP_WORDS:
            return None
        stop = i + 1
        # Speech coordinates ("amoxicillin and clavulanate", "fever, cough"): a name never
        # spans a conjunction or a comma, so each part is its own mention.
        while stop < min(len(doc), i + MAX_WORDS) and doc[stop].lower_ not in _COORDINATION:
            stop += 1
        for end in range(stop, i, -1):
            last = doc[end - 1]
            if last.is_punct or last.lower_ in STOP_WORDS:
                continue
            span = doc[i:end]
            concepts = self.keys.get(normalized_key(span.text))
            if concepts:
                return Match(span, tuple(sorted(concepts)), span.text)
        return None
