"""Source relation names -> the graph's normalized relationship types (kgverify.graph.model).

RRF files (UMLS MRREL, RxNorm RXNREL) state ``REL``/``RELA`` as the relationship of the
*second* concept to the *first*: the row ``CUI1=T2DM | RELA=may_treat | CUI2=metformin``
reads "metformin may_treat T2DM". Each entry maps a RELA to the normalized type, the
canonical (forward) source name, and whether the edge runs CUI1 -> CUI2 (``inverse``) or
CUI2 -> CUI1 (forward). Both directions of a pair therefore land on the same edge.
"""

from __future__ import annotations

from typing import NamedTuple

from kgverify.graph.model import RelType


class Mapped(NamedTuple):
    type: RelType
    name: str  # canonical source relation name kept on the edge as source_rel
    inverse: bool  # True: the edge runs first -> second concept


def _pair(forward: str, inverse: str, rel: RelType) -> dict[str, Mapped]:
    return {forward: Mapped(rel, forward, False), inverse: Mapped(rel, forward, True)}


RRF_RELA: dict[str, Mapped] = {
    **_pair("isa", "inverse_isa", RelType.IS_A),
    **_pair("may_treat", "may_be_treated_by", RelType.MAY_TREAT),
    **_pair("may_prevent", "may_be_prevented_by", RelType.MAY_PREVENT),
    # MED-RT states it from the disease: "disease has_contraindicated_drug drug".
    **_pair(
        "contraindicated_with_disease", "has_contraindicated_drug", RelType.CONTRAINDICATED_FOR
    ),
    **_pair("has_finding_site", "finding_site_of", RelType.FINDING_SITE),
    **_pair("has_associated_morphology", "associated_morphology_of", RelType.ASSOCIATED_MORPHOLOGY),
    **_pair("has_causative_agent", "causative_agent_of", RelType.CAUSATIVE_AGENT),
    **_pair("due_to", "cause_of", RelType.DUE_TO),
    **_pair("has_manifestation", "manifestation_of", RelType.HAS_MANIFESTATION),
    **_pair("has_ingredient", "ingredient_of", RelType.HAS_INGREDIENT),
    **_pair("has_precise_ingredient", "precise_ingredient_of", RelType.HAS_PRECISE_INGREDIENT),
    **_pair("form_of", "has_form", RelType.FORM_OF),
    **_pair("consists_of", "constitutes", RelType.CONSISTS_OF),
    # A pack (BPCK, GPCK) contains its drugs: the same walk from a product to its
    # ingredients (pack -> drug -> component -> ingredient); source_rel keeps "contains".
    **_pair("contains", "contained_in", RelType.CONSISTS_OF),
    **_pair("tradename_of", "has_tradename", RelType.TRADENAME_OF),
    **_pair("has_dose_form", "dose_form_of", RelType.HAS_DOSE_FORM),
    "associated_with": Mapped(RelType.ASSOCIATED_WITH, "associated_with", False),
    "clinically_associated_with": Mapped(
        RelType.ASSOCIATED_WITH, "clinically_associated_with", False
    ),
}

# REL values of the UMLS documentation; anything else in REL is a malformed row.
RRF_REL_CODES = frozenset(
    {"AQ", "CHD", "DEL", "PAR", "QB", "RB", "RL", "RN", "RO", "RQ", "RU", "SIB", "SY", "XR"}
)
# REL with an empty RELA: the hierarchical ones are kept, the rest are not modelled.
RRF_REL_ONLY: dict[str, Mapped] = {
    "CHD": Mapped(RelType.IS_A, "CHD", False),  # second is child of first
    "PAR": Mapped(RelType.IS_A, "CHD", True),  # second is parent of first
    "RN": Mapped(RelType.BROADER, "RN", False),  # second is narrower than first
    "RB": Mapped(RelType.BROADER, "RN", True),  # second is broader than first
}


def map_rrf(rel: str, rela: str) -> Mapped | None:
    """The edge for an RRF row, or None when the relation is known but not modelled."""
    if rela:
        return RRF_RELA.get(rela)
    return RRF_REL_ONLY.get(rel)


# SNOMED CT attribute typeIds (RF2 relationships run sourceId -> destinationId).
SNOMED_TYPES: dict[str, Mapped] = {
    "116680003": Mapped(RelType.IS_A, "116680003 |Is a|", False),
    "363698007": Mapped(RelType.FINDING_SITE, "363698007 |Finding site|", False),
    "116676008": Mapped(RelType.ASSOCIATED_MORPHOLOGY, "116676008 |Associated morphology|", False),
    "246075003": Mapped(RelType.CAUSATIVE_AGENT, "246075003 |Causative agent|", False),
    "42752001": Mapped(RelType.DUE_TO, "42752001 |Due to|", False),
    "363705008": Mapped(
        RelType.HAS_MANIFESTATION, "363705008 |Has definitional manifestation|", False
    ),
    "47429007": Mapped(RelType.ASSOCIATED_WITH, "47429007 |Associated with|", False),
    "127489000": Mapped(RelType.HAS_INGREDIENT, "127489000 |Has active ingredient|", False),
    "762949000": Mapped(
        RelType.HAS_PRECISE_INGREDIENT, "762949000 |Has precise active ingredient|", False
    ),
    "411116001": Mapped(RelType.HAS_DOSE_FORM, "411116001 |Has manufactured dose form|", False),
}
