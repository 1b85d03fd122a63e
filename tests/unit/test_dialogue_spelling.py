"""Misspellings of patient speech (``spelling.spelled``) on real linker answers: a long word
one edit from a talkable name is that name; a six- or seven-letter one only ever ambiguous,
so that the checker keeps it only when a candidate reaches the record."""

from __future__ import annotations

from kgverify.dialogue.spelling import spelled
from kgverify.link.model import LinkCandidate, LinkStatus, MentionLink, Method


def candidate(name: str, concept: str, group: int, kinds: list[str]) -> LinkCandidate:
    return LinkCandidate(
        concept_id=concept,
        name=name,
        vocab="X",
        alias=name,
        score=0.55,
        method=Method.TFIDF,
        kinds=kinds,
        type_ok=True,
        group=group,
    )


def unresolved(query: str, *candidates: LinkCandidate) -> MentionLink:
    return MentionLink(
        query=query, status=LinkStatus.UNLINKED, candidates=list(candidates), score=0.55
    )


def test_a_long_misspelling_is_linked_and_a_short_one_left_to_the_record() -> None:
    drug = candidate("Clopidogrel", "X:1", 0, ["ingredient"])
    long = spelled(unresolved("clopidigrel", drug))
    assert long.status is LinkStatus.LINKED and long.concept_id == "X:1"
    digoxin = candidate("Digoxin", "X:2", 0, ["ingredient"])
    short = spelled(unresolved("digoxen", digoxin))
    assert short.status is LinkStatus.AMBIGUOUS and short.method is Method.EDIT
    assert [c.concept_id for c in short.candidates if c.method is Method.EDIT] == ["X:2"]


def test_what_is_no_misspelling_stays_as_the_linker_left_it() -> None:
    digoxin = candidate("Digoxin", "X:2", 0, ["ingredient"])
    for said in ("figoxin", "digox", "digoxxen"):  # first letter, too short, two edits
        assert spelled(unresolved(said, digoxin)).status is LinkStatus.UNLINKED, said
    place = candidate("Dignity", "X:3", 0, ["organism"])  # no kind a patient talks about
    assert spelled(unresolved("dignitx", place)).status is LinkStatus.UNLINKED
