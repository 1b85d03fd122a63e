"""Misspellings as patients say and type them: a long one-word mention one edit from a
talkable name (``spelled``), a speech typo (``typo``), and whether a TF-IDF neighbour's
every word was said (``covers``)."""

from __future__ import annotations

from rapidfuzz.distance import OSA

from kgverify.dialogue.matcher import TALKABLE
from kgverify.link.model import LinkStatus, MentionLink, Method
from kgverify.link.normalize import normalized_key
from kgverify.link.scoring import EDIT_SCORE

TYPO_LENGTH = 8
"""A word this long one edit from a talkable name is that name misspelled ("clopidigrel"),
even a vowel for a vowel, which the linker refuses in general ("ethanal" / "ethanol"): a
patient's misspelling of a long drug or condition name is no other concept of the sample."""


def spelled(link: MentionLink) -> MentionLink:
    """``link`` resolved to its talkable candidates one edit from a long one-word mention
    (``TYPO_LENGTH``) when the linker left it unresolved: linked when they are one concept,
    else ambiguous between them (``_resolve`` judges it through the one that reaches the
    record). A shorter word (six or seven letters, first letter kept) one edit from a name
    by any letter ("digoxen") is only ever ambiguous: a mention when its candidate reaches
    the record, words otherwise, since short names have many neighbours."""
    if link.status is LinkStatus.LINKED:
        return link
    key = link.query.lower()
    if " " in key or len(key) < 6:
        return link
    short = len(key) < TYPO_LENGTH
    talkable = {k.value for k in TALKABLE}
    near = [
        c.model_copy(update={"method": Method.EDIT, "score": max(c.score, EDIT_SCORE)})
        for c in link.candidates
        if c.type_ok and set(c.kinds) & talkable and typo(key, c.alias)
    ]
    if not near:
        return link
    groups = {c.group for c in near}
    rest = [c for c in link.candidates if c.group not in groups]
    update: dict[str, object] = {"candidates": near + rest, "score": EDIT_SCORE}
    if len(groups) == 1 and not short:
        top = near[0]
        update |= {
            "status": LinkStatus.LINKED,
            "concept_id": top.concept_id,
            "equivalents": [c.concept_id for c in near[1:]],
            "method": Method.EDIT,
        }
    else:
        update |= {"status": LinkStatus.AMBIGUOUS, "method": Method.EDIT}
    return link.model_copy(update=update)


def covers(said: str, name: str) -> bool:
    """Whether every word of ``name`` is said, each maybe one edit off: a TF-IDF neighbour
    that adds a word ("temperature": "Oral temperature") is another concept."""
    words = normalized_key(said).split()
    return all(
        any(OSA.distance(w, x, score_cutoff=1) <= 1 for x in words)
        for w in normalized_key(name).split()
    )


def typo(said: str, name: str) -> bool:
    """A misspelling in speech: one edit, the first letter kept, six letters or more
    ("asprin", "warfarine"; not "rough" for "cough")."""
    said, name = said.lower(), name.lower()
    return len(said) >= 6 and said[:1] == name[:1] and OSA.distance(said, name, score_cutoff=1) <= 1
