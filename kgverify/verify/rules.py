"""The verification rules: which Cypher file checks what, and which vocabulary edges count
for or against each predicate (docs/verification.md has the tables).

A rule is a query file under ``queries/verify/``; it runs with two edge tables: *support*
(edges that state the relation) and *contradict* (edges that state its opposite). Its
version is a hash of the query text and the tables, so a verdict names exactly the logic
that produced it and a changed rule is visible in every audit. Each rule also declares its
walks (``walks.py``): from the subject and from the object to the evidence edge, which
re-verification walks back from a change (``reach``); tests/unit/test_rule_walks.py checks
the Cypher files against them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from kgverify.extract.relation import Predicate
from kgverify.graph.model import RelType
from kgverify.graph.queries import get_query
from kgverify.verify.walks import Side, Step, Walk, cover


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

# -- the walks (walks.py): declared here, checked against the .cypher files ------------------

CROSS = Step(frozenset({RelType.MAPS_TO}), "either", 0, 1)
"""One crossing between vocabularies, at each end of every walk (to the concept a loaded
vocabulary owns: stub codes carry no edges)."""

DRUG_NORMALIZATION = Walk(
    (CROSS, Step(NORMALIZATION_TYPES, "out", 1, 3), CROSS), name="drug normalization"
)
"""A drug product or brand to its ingredients: one MAPS_TO step, up to 3 RxNorm steps, one
MAPS_TO step. The `ingredient` rule walks it from the subject; enrichment's drug classes,
derivation's drug profiles and fact reach, the dialogue reach and re-verification's subject
reach (backwards) spell the same walk, with the RxNorm steps optional where the drug itself
counts (``*0..3``); tests/unit/test_rule_walks.py checks every spelling against this."""

MAX_CLIMB = 4
"""Is-a steps a rule may climb above the object: the bound of ``verify_max_depth``, which
each query applies as ``length(path) <= $max_depth``."""


def is_a_climb(low: int) -> Walk:
    """The object's non-hub is-a ancestors, ``low`` to ``MAX_CLIMB`` steps up, with a
    crossing at either end."""
    return Walk(
        (CROSS, Step(frozenset({RelType.IS_A}), "out", low, MAX_CLIMB), CROSS), name="is-a climb"
    )


@dataclass(frozen=True)
class Rule:
    """One query file, run once per batch with both edge tables (one traversal finds the
    paths for and against); a path's rule id is ``<name>.<stance>``."""

    name: str  # the query file: verify/<name>.cypher
    order: int  # tie-break between equal scores: the more direct rule decides
    predicates: frozenset[Predicate] = frozenset(Predicate)  # the predicates it serves
    # From the relation's subject (object) to the end of the evidence edge on its side.
    subject_walk: Walk = field(kw_only=True)
    object_walk: Walk = field(kw_only=True)

    def walk(self, side: Side) -> Walk:
        return self.subject_walk if side == "subject" else self.object_walk

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
    Rule("direct", 0, subject_walk=Walk((CROSS,)), object_walk=Walk((CROSS,))),
    Rule("ancestor", 1, subject_walk=Walk((CROSS,)), object_walk=is_a_climb(1)),
    # Normalizing the subject to an ingredient means something only when it is a drug.
    Rule(
        "ingredient",
        2,
        DRUG_PREDICATES,
        subject_walk=DRUG_NORMALIZATION,
        object_walk=is_a_climb(0),
    ),
)
"""Every rule, in the order ties are broken."""


def reach(side: Side, rules: Iterable[Rule] = RULES) -> Walk:
    """What re-verification walks back from a changed concept to the relations' subjects
    (objects) whose rules could read it (``queries/reverify/mark_reach_<side>.cypher``):
    the rules' walks on that side, covered and reversed. The evidence edge itself is
    covered by marking both ends of every changed edge (``reverify/mark_changed_edges``)."""
    return cover(rule.walk(side) for rule in rules).reversed()


SNOMED_ROOT = "SNOMEDCT:138875005"
