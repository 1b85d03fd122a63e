"""Which kinds of concept each predicate slot accepts (docs/linking.md has the table).

A candidate whose ``kinds`` are known and share nothing with its slot's kinds is not
plausible for that mention: "metformin" as the object of ``treats`` cannot be the drug. A
concept without a known kind (``other`` or none) is kept, since the vocabularies do not type
everything; the verifier sees its kinds and judges again.
"""

from __future__ import annotations

from typing import Literal

from kgverify.extract.relation import Predicate
from kgverify.graph.model import Kind

Slot = Literal["subject", "object"]

DRUG = frozenset({Kind.INGREDIENT, Kind.DRUG_PRODUCT, Kind.BRAND, Kind.SUBSTANCE})
CONDITION = frozenset({Kind.DISORDER, Kind.FINDING})
EVIDENCE = frozenset({Kind.FINDING, Kind.DISORDER, Kind.LAB, Kind.PROCEDURE})
OUTCOME = frozenset({Kind.DISORDER, Kind.FINDING, Kind.PROCEDURE})

SLOT_KINDS: dict[Predicate, dict[Slot, frozenset[Kind]]] = {
    Predicate.TREATS: {"subject": DRUG, "object": CONDITION},
    Predicate.CONTRAINDICATED_FOR: {"subject": DRUG, "object": CONDITION},
    Predicate.INDICATES: {"subject": EVIDENCE, "object": CONDITION},
    Predicate.LEADS_TO: {"subject": CONDITION, "object": OUTCOME},
}

_UNKNOWN = frozenset({Kind.OTHER.value})


def fits(kinds: list[str], allowed: frozenset[Kind] | None) -> bool:
    """True when a concept of these kinds may fill a slot that accepts ``allowed``."""
    if allowed is None:
        return True
    known = set(kinds) - _UNKNOWN
    return not known or bool(known & {kind.value for kind in allowed})


def slot_kinds(predicate: Predicate | None, slot: Slot) -> frozenset[Kind] | None:
    """The kinds a slot accepts; None (anything) without a predicate."""
    return None if predicate is None else SLOT_KINDS[predicate][slot]
