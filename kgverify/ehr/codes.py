"""Code-system names of every source, normalized to the graph's vocabulary namespaces.

The graph knows SNOMED CT, RxNorm, LOINC and the ICD-CM editions under their UMLS source
abbreviations (``SNOMEDCT``, ``RXNORM``, ``LNC``, ``ICD10CM``, ``ICD9CM``). Each adapter names
its codes through this one table, so a condition coded in OMOP, MIMIC or FHIR links the same
way; a system outside the table keeps the source's own name (OMOP vocabulary_id, FHIR URI).
"""

from __future__ import annotations

SNOMEDCT = "SNOMEDCT"
RXNORM = "RXNORM"
LNC = "LNC"
ICD10CM = "ICD10CM"
ICD9CM = "ICD9CM"
NDC = "NDC"

GRAPH_NAMESPACES = (SNOMEDCT, RXNORM, LNC, ICD10CM, ICD9CM)
"""The namespaces the vocabulary graph holds, in the order a FHIR coding is preferred."""

OMOP_VOCABULARIES = {
    "SNOMED": SNOMEDCT,
    "RxNorm": RXNORM,
    "LOINC": LNC,
    "ICD10CM": ICD10CM,
    "ICD9CM": ICD9CM,
    "NDC": NDC,
}

FHIR_SYSTEMS = {
    "http://snomed.info/sct": SNOMEDCT,
    "http://www.nlm.nih.gov/research/umls/rxnorm": RXNORM,
    "http://loinc.org": LNC,
    "http://hl7.org/fhir/sid/icd-10-cm": ICD10CM,
    "http://hl7.org/fhir/sid/icd-9-cm": ICD9CM,
    "http://hl7.org/fhir/sid/ndc": NDC,
}

OMOP_SOURCE_VALUE = "OMOP_SOURCE_VALUE"
"""System of an OMOP item whose concept is 0 and whose source value has no source concept."""

MIMIC_LABITEM = "MIMIC_LABITEM"
"""MIMIC-IV lab items are local codes (d_labitems.itemid); v2+ ships no LOINC mapping."""

MIMIC_FORMULARY = "MIMIC_FORMULARY"
"""A MIMIC-IV prescription without an NDC is coded by its formulary_drug_cd."""


def omop_system(vocabulary_id: str) -> str:
    """The namespace of an OMOP ``vocabulary_id``; other vocabularies keep their id."""
    return OMOP_VOCABULARIES.get(vocabulary_id, vocabulary_id)


KGVERIFY_SYSTEM = "urn:kgverify:system:"
"""The URI prefix ``kgverify fhir load`` gives a source's own system (``OMOP_SOURCE_VALUE``,
``MIMIC_LABITEM``): a FHIR coding system must be a URI, and reading it back gives the name."""


def fhir_system(uri: str) -> str:
    """The namespace of a FHIR coding system URI; other systems keep their URI."""
    if uri.startswith(KGVERIFY_SYSTEM):
        return uri.removeprefix(KGVERIFY_SYSTEM)
    return FHIR_SYSTEMS.get(uri.rstrip("/"), uri)


def system_uri(namespace: str) -> str:
    """The FHIR coding system of a namespace: ``fhir_system`` read backwards."""
    for uri, name in FHIR_SYSTEMS.items():
        if name == namespace:
            return uri
    return namespace if ":" in namespace else KGVERIFY_SYSTEM + namespace


def mimic_icd(code: str, version: int) -> tuple[str, str]:
    """MIMIC's dotless ICD diagnosis code as (namespace, dotted code).

    ICD-10-CM and ICD-9-CM put the dot after the 3rd character, except ICD-9-CM E codes
    (external causes, ``E8889`` -> ``E888.9``), which have four characters before it.
    """
    code = code.strip().upper()
    if version == 10:
        return ICD10CM, _dot(code, 3)
    if version == 9:
        return ICD9CM, _dot(code, 4 if code.startswith("E") else 3)
    raise ValueError(f"unsupported icd_version: {version}")


def _dot(code: str, at: int) -> str:
    if "." in code or len(code) <= at:
        return code
    return f"{code[:at]}.{code[at:]}"
