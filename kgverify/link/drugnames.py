"""Drug names as other languages and makers write them: fallback keys (docs/linking.md,
"Fallback keys"), tried only for mentions no name resolved, each a stage the linker can
switch off.

- ``foreign_ending``: a Latin or Romance ending folded to the English stem
  ("meticillinum" -> meticillin, "morfina" -> morphine, "ibuprofeno" -> ibuprofen);
- ``maker_prefix``: a maker's prefix before the drug ("apo-chlorpropamide", "novo-hydrazide",
  "teva metformin") and an eponym's particle ("von Willebrand disease" -> "Willebrand
  disease") dropped.

Both are looked up among the names' spelling keys (``normalize.spelling_key``), so the
foreign spelling of the stem ("amoxicilina", one l) meets the English one ("amoxicillin").
"""

from __future__ import annotations

import re

from kgverify.link.normalize import normalized_key, spelling_key

MIN_STEM = 5
"""Shortest stem a foreign ending is folded from: short words are often English ("soma")."""

_ENDING = re.compile(r"^(?P<stem>[a-z]+[bcdfghklmnprstvxz])(?:um|a|o)$")
"""A stem ending in a consonant and a Latin (-um) or Romance (-a, -o) ending: "anemia"
(stem ending in a vowel) keeps its letters."""

MAKERS = frozenset(
    {
        "apo",
        "novo",
        "nu",
        "pms",
        "ratio",
        "teva",
        "sandoz",
        "mylan",
        "ran",
        "dom",
        "jamp",
        "mint",
        "auro",
        "riva",
        "phl",
        "taro",
        "sivem",
        "sdz",
        "act",
        "apotex",
        "ratiopharm",
    }
)
"""Makers whose name or short form Canadian and European generics carry before the drug's
name ("Apo-Chlorpropamide", "Novo-Hydrazide", "PMS-Metformin", "Teva-Amlodipine")."""

SPACED_MAKERS = frozenset({"teva", "sandoz", "mylan", "apotex", "ratiopharm"})
"""Makers dropped before a space too, not only before a hyphen: their names are no English
word ("mint oil" is not a maker's oil)."""

PARTICLES = frozenset({"von", "van"})
"""An eponym's particle, written by some vocabularies and left out by others."""

_PREFIX = re.compile(r"^(?P<word>[a-z]+)(?P<sep>-|\s+)(?P<rest>\S.*)$")


def foreign_ending_keys(text: str) -> list[str]:
    """Every word with a foreign ending folded to its stem, and to the stem with an "e"
    (English "-ine" for "-inum" and "-ina"), as spelling keys; none when no word has one."""
    words = normalized_key(text).split()
    stems = [
        m["stem"] if (m := _ENDING.match(w)) and len(m["stem"]) >= MIN_STEM else None for w in words
    ]
    if not any(stems):
        return []
    keys: dict[str, None] = {}
    for tail in ("", "e"):
        folded = " ".join(w if s is None else s + tail for w, s in zip(words, stems, strict=True))
        keys[spelling_key(folded)] = None
    return list(keys)


def maker_prefix_keys(text: str) -> list[str]:
    """The name without a maker's prefix or an eponym's particle before it, as a spelling
    key; none when it has neither (or nothing would remain)."""
    match = _PREFIX.match(text.strip().casefold())
    if not match:
        return []
    word, hyphen = match["word"], match["sep"] == "-"
    if not (
        word in SPACED_MAKERS or (hyphen and word in MAKERS) or (not hyphen and word in PARTICLES)
    ):
        return []
    key = spelling_key(match["rest"])
    return [key] if key else []


DRUG_VARIANTS = {"foreign_ending": foreign_ending_keys, "maker_prefix": maker_prefix_keys}
"""The fallback keys of this module, by stage name (after ``normalize.VARIANTS``)."""
