"""Negation, cessation and hedging around a mention, NegEx-style: a cue before the mention
in the same clause ("no chest pain", "I don't take aspirin", "never had asthma"), a
cessation cue ("I stopped the aspirin", "not anymore", "I used to take"), or a hedge
anywhere in the sentence ("maybe", "I think", "not sure"). Clauses end at sentence
punctuation, at contrastive words ("but", "although") and where a new subject starts ("...,
and I take aspirin"). Works on the tokens of spaCy's blank English tokenizer, which splits
"don't" into "do" and "n't"."""

from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Doc, Span

DENIAL = frozenset(
    {"no", "not", "n't", "never", "without", "denies", "deny", "denied", "none", "nor", "neither"}
)
"""A cue that denies what follows in its clause."""

CEASED = frozenset({"stopped", "quit", "anymore", "discontinued", "ceased"})
"""A cue that says something is over (a single token; "no longer", "used to", "any more"
are two-token cues below)."""

CEASED_PAIRS = frozenset({("no", "longer"), ("used", "to"), ("any", "more"), ("no", "more")})

HEDGES = frozenset(
    {"maybe", "perhaps", "possibly", "probably", "might", "may", "unsure", "guess", "suppose"}
)
HEDGE_PAIRS = frozenset(
    {("i", "think"), ("not", "sure"), ("could", "be"), ("kind", "of"), ("sort", "of")}
)
HEDGE_PAIRS |= {("wonder", "if"), ("worried", "it"), ("afraid", "it")}

# "not sure" hedges, it does not deny; "no idea" neither.
_NOT_DENIAL_AFTER = frozenset({"sure", "certain", "idea", "doubt"})

_SENTENCE_END = frozenset({".", "!", "?", ";"})
_CONTRAST = frozenset({"but", "however", "although", "though", "except", "yet", "whereas"})
_SUBJECTS = frozenset({"i", "he", "she", "we", "they", "it", "my", "you"})
_OPENERS = _SUBJECTS | HEDGES | {"so", "then", "also"}

WINDOW = 8
"""Tokens a cue before a mention reaches, at most."""


@dataclass(frozen=True)
class Cues:
    negated: bool = False
    ceased: bool = False
    hedged: bool = False
    words: tuple[str, ...] = ()


def _lower(doc: Doc, i: int) -> str:
    return doc[i].lower_ if 0 <= i < len(doc) else ""


def _ends_sentence(doc: Doc, i: int) -> bool:
    """Sentence punctuation, or a token the tokenizer kept its full stop on ("38.5 C.")."""
    text = doc[i].text
    return text in _SENTENCE_END or (len(text) > 1 and text[-1] in ".!?" and text[-2] != ".")


def _breaks(doc: Doc, i: int) -> bool:
    """A comma or "and" that starts a new clause: a subject or a hedge follows."""
    return doc[i].lower_ in {",", "and"} and _lower(doc, i + 1) in _OPENERS


def clause_start(doc: Doc, at: int) -> int:
    """The first token of the clause holding token ``at``."""
    i = at - 1
    while i >= 0:
        word = doc[i].lower_
        if _ends_sentence(doc, i) or word in _CONTRAST:
            return i + 1
        if _breaks(doc, i):
            return i + 1
        i -= 1
    return 0


def clause_end(doc: Doc, at: int) -> int:
    """One past the last token of the clause holding token ``at``."""
    i = at + 1
    while i < len(doc):
        word = doc[i].lower_
        if _ends_sentence(doc, i):
            return i + (doc[i].text not in _SENTENCE_END)  # "C." ends it and belongs to it
        if word in _CONTRAST or _breaks(doc, i):
            return i
        i += 1
    return len(doc)


def sentence_bounds(doc: Doc, span: Span) -> tuple[int, int]:
    start = span.start
    while start > 0 and not _ends_sentence(doc, start - 1):
        start -= 1
    end = span.end
    while end < len(doc) and not _ends_sentence(doc, end):
        end += 1
    return start, min(len(doc), end + 1)


def cues(doc: Doc, span: Span) -> Cues:
    """The negation, cessation and hedge cues that reach ``span``."""
    negated = ceased = hedged = False
    words: list[str] = []
    first = max(clause_start(doc, span.start), span.start - WINDOW)
    for i in range(first, span.start):
        word, after = doc[i].lower_, _lower(doc, i + 1)
        if (word, after) in CEASED_PAIRS:
            ceased = True
            words.append(f"{word} {after}")
        elif word in DENIAL and after not in _NOT_DENIAL_AFTER:
            negated = True
            words.append(word)
        elif word in CEASED:
            ceased = True
            words.append(word)
    # After the mention, within its clause: "aspirin? not anymore", "the cough is gone".
    for i in range(span.end, clause_end(doc, span.end - 1)):
        word, after = doc[i].lower_, _lower(doc, i + 1)
        if word in {"anymore"} or (word, after) in {("any", "more"), ("no", "more")}:
            ceased = True
            words.append(word if word == "anymore" else f"{word} {after}")
    opening = sentence_bounds(doc, span)[0]
    # The mention's clause, and the sentence's first two words ("I think I have strep").
    scope = [*range(opening, min(opening + 2, span.start))]
    scope += range(clause_start(doc, span.start), clause_end(doc, span.end - 1))
    for i in dict.fromkeys(scope):
        if span.start <= i < span.end:
            continue
        word, after = doc[i].lower_, _lower(doc, i + 1)
        if word in HEDGES or (word, after) in HEDGE_PAIRS:
            hedged = True
            words.append(word if word in HEDGES else f"{word} {after}")
    return Cues(negated=negated, ceased=ceased, hedged=hedged, words=tuple(words))
