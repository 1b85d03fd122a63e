"""What a clinician reads on a review page and in the sheet, in plain words: a relation as a
short label (``Penicillin V — may treat — Streptococcal sore throat``), the answer's evidence
as one sentence with its sources (``Penicillin V may treat Streptococcal sore throat
(MED-RT, UMLS 2025AA).``), and why a distractor is wrong as one sentence from its lure kind
(``derive.model.LURES``). Pure functions; the rule names, versions and edges stay on the
page behind a fold (:mod:`kgverify.review.pages`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kgverify.derive.model import LURES, DistractorWhy, QAItem
from kgverify.verify.assertion import LineageAssertion
from kgverify.verify.model import EvidencePath
from kgverify.verify.rules import EVIDENCE_TYPES

PREDICATE_WORDS = {
    "treats": "may treat",
    "indicates": "may indicate",
    "leads_to": "may lead to",
    "contraindicated_for": "is contraindicated for",
}
"""A relation's predicate as a clinician says it (an unknown one: its name, ``_`` as space)."""

ROLE_WORDS = {
    "finding": "Finding",
    "test": "Test",
    "procedure": "Procedure",
    "medication": "Medication",
    "condition": "Condition",
    "history": "History",
    "prior_drug": "Earlier drug",
}
"""A patient fact's role in the question, as the page names it."""

PLAIN_LURES = {
    "patient_specific": "{option} can treat {topic}, but something the question shows about "
    "this patient rules it out",
    "same_area": "{option} is in the same drug group as {answer}, but it is used for other "
    "conditions, not {topic}",
    "other_area": "{option} is used for other conditions, not {topic}",
    "same_system": "{option} belongs to the same body system as {answer}, but nothing the "
    "question shows points to it",
    "other_system": "{option} belongs to another body system, and nothing the question shows "
    "points to it",
}
"""Each lure kind of ``derive.model.LURES`` as one sentence about the distractor."""
CONTRAINDICATED = "{option} should not be given for {topic}: it is contraindicated for it or a "
CONTRAINDICATED += "condition close to it"
"""The sentence for a drug refuted by a contraindication rather than indications elsewhere."""


def predicate_words(predicate: str) -> str:
    return PREDICATE_WORDS.get(predicate, predicate.replace("_", " "))


def relation_label(subject: str | None, predicate: str, obj: str | None) -> str:
    """``Penicillin V — may treat — Streptococcal sore throat`` (``?`` for an unlinked side)."""
    return f"{subject or '?'} — {predicate_words(predicate)} — {obj or '?'}"


def _ends(a: LineageAssertion) -> tuple[str, str]:
    """The names of an assertion's concepts (ids where unnamed, ``?`` where unlinked)."""

    def name(concept: str | None, named: str | None) -> str:
        return named or (a.name_of(concept) if concept else "?")

    return name(a.subject, a.subject_name), name(a.object, a.object_name)


def assertion_label(a: LineageAssertion) -> str:
    """The relation of a basis assertion by its concepts' names."""
    subject, obj = _ends(a)
    return relation_label(subject, a.predicate, obj)


def release_words(release: str) -> str:
    """``UMLS@2025AA`` as ``UMLS 2025AA``."""
    return release.replace("@", " ")


def deciding_path(a: LineageAssertion) -> EvidencePath | None:
    """The best supporting path (evidence is stored best first), else the best one."""
    return next((p for p in a.evidence if p.stance == "support"), None) or next(
        iter(a.evidence), None
    )


def path_sources(a: LineageAssertion, path: EvidencePath) -> list[str]:
    """The source vocabularies and releases of a path's relation edges (its mapping and is-a
    steps only when it has no other), each once, in path order: ``MED-RT, UMLS 2025AA``."""
    telling = [e for e in path.edges if e.type in EVIDENCE_TYPES] or path.edges
    sabs: list[str] = []
    releases: list[str] = []
    for edge in telling:
        for stored in a.edge_sources(edge):
            if stored.sab and stored.sab not in sabs:
                sabs.append(stored.sab)
            if stored.release and release_words(stored.release) not in releases:
                releases.append(release_words(stored.release))
    return sabs + releases


def evidence_sentence(a: LineageAssertion) -> str:
    """``Penicillin V may treat Streptococcal sore throat (MED-RT, UMLS 2025AA).``, said of
    the answer's relation with what its deciding path rests on; the verdict in words when it
    does not stand as supported."""
    subject, obj = _ends(a)
    text = f"{subject} {predicate_words(a.predicate)} {obj}"
    path = deciding_path(a)
    if path is None:
        text += " (the vocabularies hold no path for it)"
    else:
        notes = path_sources(a, path)
        if path.stance != "support":
            notes.insert(0, "the vocabularies contradict it")
        if path.depth:
            step = "step" if path.depth == 1 else "steps"
            notes.append(f"said of a broader concept, {path.depth} {step} up")
        if notes:
            text += f" ({', '.join(notes)})"
    text += "."
    if a.standing_verdict != "supported":
        text += f" Its standing verdict is {a.standing_verdict.replace('_', ' ')}."
    return text


def why_wrong_sentence(item: QAItem, why: DistractorWhy, names: Mapping[str, str | None]) -> str:
    """Why one distractor is wrong, in one sentence from its lure kind (a contraindication
    said as such): ``Ibuprofen is used for other conditions, not Streptococcal sore throat.``"""
    answer = next((o.text for o in item.options if o.label == item.answer), item.answer_concept)
    words = {
        "option": why.text,
        "answer": answer,
        "topic": names.get(item.topic) or "the condition in question",
    }
    contraindicated = item.task.rules.contraindicated or "-"
    rules = {j.rule for j in why.justifications}
    if why.lure != "patient_specific" and rules == {f"{item.task.value}.{contraindicated}"}:
        return CONTRAINDICATED.format(**words) + "."
    plain = PLAIN_LURES.get(why.lure)
    if plain is None:
        return f"{why.text}: {LURES.get(why.lure, why.lure)}."
    return plain.format(**words) + "."


def role_words(role: str) -> str:
    return ROLE_WORDS.get(role, role.replace("_", " ").capitalize())


def joined(parts: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(parts)
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
