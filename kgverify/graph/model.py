"""The fixed vocabulary of the graph: node labels, relationship types and concept kinds.

Anything read from input that becomes a label or a relationship type must be a member of
one of these enums; :func:`rel_type` and :func:`vocab_label` are the only ways to turn a
string into one, and they raise on anything else. Queries receive these as parameters
(dynamic ``$(...)`` labels and types), never as pasted text. See docs/graph-model.md.
"""

from __future__ import annotations

from enum import StrEnum


class Vocab(StrEnum):
    """Vocabularies that own concepts. The value is the id namespace and the node label."""

    UMLS = "UMLS"
    SNOMEDCT = "SNOMEDCT"
    RXNORM = "RXNORM"


class RelType(StrEnum):
    """Normalized relationship types between concepts. Direction is subject -> object."""

    IS_A = "IS_A"  # child -> parent (subsumption)
    BROADER = "BROADER"  # narrower -> broader, weaker than IS_A (UMLS RB/RN)
    MAPS_TO = "MAPS_TO"  # UMLS concept -> source code it contains (cross-vocabulary)
    HAS_INGREDIENT = "HAS_INGREDIENT"  # drug product -> ingredient
    HAS_PRECISE_INGREDIENT = "HAS_PRECISE_INGREDIENT"  # drug product -> salt/precise form
    FORM_OF = "FORM_OF"  # precise ingredient -> base ingredient
    CONSISTS_OF = "CONSISTS_OF"  # clinical drug -> drug component; pack -> drug
    TRADENAME_OF = "TRADENAME_OF"  # brand (or branded drug) -> generic
    HAS_DOSE_FORM = "HAS_DOSE_FORM"  # drug product -> dose form
    MAY_TREAT = "MAY_TREAT"  # drug -> condition
    MAY_PREVENT = "MAY_PREVENT"  # drug -> condition
    CONTRAINDICATED_FOR = "CONTRAINDICATED_FOR"  # drug -> condition
    FINDING_SITE = "FINDING_SITE"  # condition -> body structure
    ASSOCIATED_MORPHOLOGY = "ASSOCIATED_MORPHOLOGY"  # condition -> morphology
    CAUSATIVE_AGENT = "CAUSATIVE_AGENT"  # condition -> organism or substance
    DUE_TO = "DUE_TO"  # condition -> its cause (condition or event)
    HAS_MANIFESTATION = "HAS_MANIFESTATION"  # condition -> finding it shows
    ASSOCIATED_WITH = "ASSOCIATED_WITH"  # clinically associated, direction as in source
    RELATED_TO = "RELATED_TO"  # asserted, but with no more specific meaning


class Kind(StrEnum):
    """A coarse, vocabulary-independent kind used for type constraints on relation slots."""

    DISORDER = "disorder"
    FINDING = "finding"
    INGREDIENT = "ingredient"
    DRUG_PRODUCT = "drug_product"
    BRAND = "brand"
    DOSE_FORM = "dose_form"
    SUBSTANCE = "substance"
    PROCEDURE = "procedure"
    LAB = "lab"
    ANATOMY = "anatomy"
    ORGANISM = "organism"
    MORPHOLOGY = "morphology"
    ATTRIBUTE = "attribute"
    OTHER = "other"


# Namespaces of code-level concepts kgverify may create as mapping targets from UMLS or
# RxNorm atoms (the node gets label :Concept only, not a vocabulary label).
CODE_NAMESPACES: dict[str, str] = {
    "SNOMEDCT_US": "SNOMEDCT",
    "RXNORM": "RXNORM",
    "MSH": "MSH",
    "ICD10CM": "ICD10CM",
    "ICD9CM": "ICD9CM",
    "LNC": "LNC",
    "MEDRT": "MEDRT",
    "MED-RT": "MEDRT",
    "HPO": "HPO",
    "NCI": "NCI",
    "DRUGBANK": "DRUGBANK",
    "ATC": "ATC",
    "MTHSPL": "MTHSPL",
}


def concept_id(namespace: str, code: str) -> str:
    """The graph-wide id of a concept: ``NAMESPACE:code`` (namespaces never collide)."""
    return f"{namespace}:{code}"


def rel_type(value: str) -> RelType:
    """Validate a relationship type against the fixed list (ValueError otherwise)."""
    return RelType(value)


def vocab_label(value: str) -> Vocab:
    """Validate a vocabulary label against the fixed list (ValueError otherwise)."""
    return Vocab(value)
