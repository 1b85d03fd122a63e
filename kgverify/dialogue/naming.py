"""Whether a recorded fact's own name says what the patient said (docs/dialogue.md, "named
sibling"): "emphysema" in "emphysematous bronchitis", seasonal allergic rhinitis ("hay
fever") in "perennial allergic rhinitis with seasonal variation".

A patient repeats the salient words of the diagnosis they were given. Where the vocabulary
files the patient's word as a sibling of the recorded concept (pulmonary emphysema and
emphysematous bronchitis, both under chronic obstructive lung disease), the record's own
name is the evidence that the patient means the recorded condition. Every content word said
must be in the recorded name (a derived form counts: "emphysema", "emphysematous"), so
"chronic bronchitis" is not "acute bronchitis"; a name that negates ("without", "no") never
names one that does not.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[a-z]+")
_FILLER = frozenset(
    {"a", "an", "and", "by", "due", "for", "in", "my", "of", "on", "or", "the", "to", "with"}
)
_NEGATING = frozenset({"no", "non", "not", "without"})
STEM = 6  # a derived form shares at least this many first letters with the word


@lru_cache(maxsize=65_536)
def _content(name: str) -> tuple[str, ...]:
    return tuple(w for w in _WORD.findall(name.lower()) if w not in _FILLER)


def _same_word(said: str, recorded: str) -> bool:
    if said == recorded or said + "s" == recorded or recorded + "s" == said:
        return True
    short, long_ = sorted((said, recorded), key=len)
    return len(short) >= STEM and long_.startswith(short)


def names(said: str, recorded: str) -> bool:
    """Whether every content word of ``said`` is a word, or a derived form of one, of
    ``recorded``, neither negating what the other does not."""
    words, theirs = _content(said), _content(recorded)
    if not words or (_NEGATING & set(words)) != (_NEGATING & set(theirs)):
        return False
    return all(any(_same_word(w, r) for r in theirs) for w in words)
