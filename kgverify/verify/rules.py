"""The verification rules: which Cypher file checks what, and which vocabulary edges count
for or against each predicate (docs/verification.md has the tables).

A rule is a query file under ``queries/verify/``; it runs with two edge tables: *support*
(edges that state the relation) and *contradict* (edges that state its opposite). Its
version is a hash of the query text and the tables, so a verdict names exactly the logic
that produced it and a changed rule is visible in every audit.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from kgverify.extract.relation import Predicate
from kgverify.graph.model import RelType
from kgverify.graph.queries import get_query


@dataclass(frozen=True)
class EdgeSpec:
    """A vocabulary edge that bears on a predicate. ``forward``: True when the edge runs
    subject -> object, False when object -> subject, None for either."""

    type: RelType
    forward: bool | None
    weight: float

    def as_param(self) -> dict[str, object]:
        return {"type": self.type.value, "forward": self.forward, "weight": self.weight}


SUPPORT: dict[Predicate, tuple[EdgeSpec, ...]] = {
    Predicate.TREATS: (EdgeSpec(RelType.MAY_TREAT, True, 1.0),),
    Predicate.CONTRAINDICATED_FOR: (EdgeSpec(RelType.CONTRAINDICATED_FOR, True, 1.0),),
    # "finding indicates diagnosis": the diagnosis has the finding as a manifestation.
    Predicate.INDICATES: (
        EdgeSpec(RelType.HAS_MANIFESTATION, False, 1.0),
        EdgeSpec(RelType.ASSOCIATED_WITH, None, 0.6),
    ),
    # "condition leads to outcome": the outcome is due to it, or is its manifestation.
    Predicate.LEADS_TO: (
        EdgeSpec(RelType.DUE_TO, False, 1.0),
        EdgeSpec(RelType.HAS_MANIFESTATION, True, 0.8),
        EdgeSpec(RelType.ASSOCIATED_WITH, None, 0.6),
    ),
}

CONTRADICT: dict[Predicate, tuple[EdgeSpec, ...]] = {
    Predicate.TREATS: (EdgeSpec(RelType.CONTRAINDICATED_FOR, True, 1.0),),
    Predicate.CONTRAINDICATED_FOR: (EdgeSpec(RelType.MAY_TREAT, True, 0.8),),
    Predicate.INDICATES: (),
    # The cause runs the other way: the "outcome" is what the condition is due to.
    Predicate.LEADS_TO: (EdgeSpec(RelType.DUE_TO, True, 1.0),),
}

# Which relationship types the verification statements walk. A concept also carries the
# graph's patient facts (CODED_AS) and provenance (SUBJECT, OBJECT, EVIDENCE, ANSWER, ...),
# many per concept once patients are ingested and verified, so a pattern that names no type
# reads them all and the cost of a relation grows with the graph's patients and assertions.
# Cypher cannot take a type list as a parameter in a pattern, so every statement writes its
# types out (`-[r:MAY_TREAT|CONTRAINDICATED_FOR|...]-`). They are written in the .cypher
# files rather than generated into them at load time so that each file stays the statement
# that runs: readable, runnable as it is in Neo4j Browser, and hashed as it is into the rule
# version. tests/unit/test_verify_rules.py checks every list against the sets below, and
# that every RelType is in exactly one of them, so a new type or a new edge-table row cannot
# be silently left out of a walk; tests/e2e/test_verify_plans.py checks that the planner
# expands no untyped relationship in any verification or derivation statement.

SUPPORT_TYPES: frozenset[RelType] = frozenset(e.type for t in SUPPORT.values() for e in t)
"""The types a support edge can have: enrichment's distractor walk (verify/enrich)."""

EVIDENCE_TYPES: frozenset[RelType] = SUPPORT_TYPES | frozenset(
    e.type for t in CONTRADICT.values() for e in t
)
"""The types an evidence edge can have: the `-[r:...]-` pattern of every rule."""

NORMALIZATION_TYPES: frozenset[RelType] = frozenset(
    {
        RelType.TRADENAME_OF,
        RelType.CONSISTS_OF,
        RelType.HAS_INGREDIENT,
        RelType.HAS_PRECISE_INGREDIENT,
        RelType.FORM_OF,
    }
)
"""The drug normalization steps of the `ingredient` rule (and of enrichment's drug classes
and re-verification's subject reach, which must walk the same steps)."""

CLIMB_TYPES: frozenset[RelType] = frozenset({RelType.IS_A, RelType.MAPS_TO})
"""The is-a climb and the one-step crossing between vocabularies, in every rule."""

UNREAD_TYPES: frozenset[RelType] = frozenset(
    {
        RelType.BROADER,
        RelType.HAS_DOSE_FORM,
        RelType.MAY_PREVENT,
        RelType.FINDING_SITE,
        RelType.ASSOCIATED_MORPHOLOGY,
        RelType.CAUSATIVE_AGENT,
        RelType.RELATED_TO,
    }
)
"""Types no verification statement reads. A type added to RelType belongs to one of these
five sets; the unit test fails until it is placed."""


@dataclass(frozen=True)
class Rule:
    """One query file, run once per batch with both edge tables (one traversal finds the
    paths for and against); a path's rule id is ``<name>.<stance>``."""

    name: str  # the query file: verify/<name>.cypher
    order: int  # tie-break between equal scores: the more direct rule decides
    predicates: frozenset[Predicate] = frozenset(Predicate)  # the predicates it serves

    def serves(self, predicate: str) -> bool:
        return Predicate(predicate) in self.predicates

    @property
    def query(self) -> str:
        return f"verify/{self.name}"

    def path_rule(self, stance: str) -> str:
        return f"{self.name}.{stance}"

    @staticmethod
    def specs() -> dict[str, list[dict[str, object]]]:
        """Both tables as the ``$specs`` parameter: predicate -> edges with their stance."""
        return {
            p.value: [{**e.as_param(), "stance": "support"} for e in SUPPORT[p]]
            + [{**e.as_param(), "stance": "contradict"} for e in CONTRADICT[p]]
            for p in Predicate
        }

    @property
    def version(self) -> str:
        material = json.dumps([get_query(self.query).text, self.specs()], sort_keys=True)
        return hashlib.sha256(material.encode()).hexdigest()[:12]


DRUG_PREDICATES = frozenset({Predicate.TREATS, Predicate.CONTRAINDICATED_FOR})

RULES: tuple[Rule, ...] = (
    Rule("direct", 0),
    Rule("ancestor", 1),
    # Normalizing the subject to an ingredient means something only when it is a drug.
    Rule("ingredient", 2, DRUG_PREDICATES),
)
"""Every rule, in the order ties are broken."""

SNOMED_ROOT = "SNOMEDCT:138875005"
