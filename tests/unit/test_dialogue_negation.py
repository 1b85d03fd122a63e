"""Negation, cessation and hedging cues around a mention, on real spaCy docs and spans."""

from __future__ import annotations

import spacy

from kgverify.dialogue.negation import Cues, cues

NLP = spacy.blank("en")


def cue(text: str, mention: str) -> Cues:
    doc = NLP.make_doc(text)
    start = text.index(mention)
    span = doc.char_span(start, start + len(mention))
    assert span is not None
    return cues(doc, span)


def test_denials() -> None:
    assert cue("No chest pain.", "chest pain").negated
    assert cue("I don't take aspirin.", "aspirin").negated
    assert cue("I have never had asthma", "asthma").negated
    assert cue("She denies fever", "fever").negated
    assert not cue("I have asthma", "asthma").negated


def test_cessation_is_not_a_plain_denial() -> None:
    c = cue("I don't take aspirin anymore", "aspirin")
    assert c.negated and c.ceased
    assert cue("I used to have sinusitis", "sinusitis").ceased
    assert cue("I stopped taking warfarin last month", "warfarin").ceased
    assert cue("I no longer take ibuprofen", "ibuprofen").ceased


def test_a_denial_ends_with_its_clause() -> None:
    text = "No fever but a bad cough"
    assert cue(text, "fever").negated and not cue(text, "cough").negated
    text = "I don't take aspirin, and I have asthma"
    assert cue(text, "aspirin").negated and not cue(text, "asthma").negated
    assert cue("No fever or chills", "chills").negated  # a list stays in the denial


def test_hedges() -> None:
    assert cue("Maybe it is strep throat", "strep throat").hedged
    assert cue("I think I have strep throat", "strep throat").hedged
    assert cue("It might be asthma", "asthma").hedged
    c = cue("I'm not sure it is asthma", "asthma")
    assert c.hedged and not c.negated  # "not sure" hedges, it does not deny
    assert not cue("I have asthma. Maybe later.", "asthma").hedged
