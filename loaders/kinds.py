"""Coarse concept kinds from each vocabulary's own typing: UMLS TUIs, SNOMED semantic tags
and RxNorm term types. Stored on every concept as ``kinds`` (see docs/graph-model.md); the
linker and the verifier use them for type constraints on relation slots."""

from __future__ import annotations

from kgverify.graph.model import Kind

_TUI_GROUPS: dict[Kind, tuple[str, ...]] = {
    Kind.DISORDER: ("T019", "T020", "T037", "T046", "T047", "T048", "T049", "T050", "T190", "T191"),
    Kind.FINDING: ("T033", "T034", "T184"),
    Kind.INGREDIENT: (
        "T103",
        "T104",
        "T109",
        "T114",
        "T116",
        "T121",
        "T123",
        "T125",
        "T126",
        "T127",
        "T129",
        "T130",
        "T131",
        "T195",
        "T196",
        "T197",
    ),
    Kind.DRUG_PRODUCT: ("T200", "T203"),
    Kind.LAB: ("T059", "T201"),
    Kind.PROCEDURE: ("T058", "T060", "T061", "T063"),
    Kind.ANATOMY: (
        "T017",
        "T018",
        "T021",
        "T022",
        "T023",
        "T024",
        "T025",
        "T026",
        "T029",
        "T030",
        "T031",
    ),
    Kind.ORGANISM: ("T001", "T004", "T005", "T007", "T008", "T194", "T204"),
}
TUI_KIND: dict[str, Kind] = {tui: kind for kind, tuis in _TUI_GROUPS.items() for tui in tuis}

SNOMED_TAG_KIND: dict[str, Kind] = {
    "disorder": Kind.DISORDER,
    "finding": Kind.FINDING,
    "situation": Kind.FINDING,
    "clinical drug": Kind.DRUG_PRODUCT,
    "medicinal product": Kind.DRUG_PRODUCT,
    "medicinal product form": Kind.DRUG_PRODUCT,
    "product": Kind.DRUG_PRODUCT,
    "substance": Kind.SUBSTANCE,
    "procedure": Kind.PROCEDURE,
    "regime/therapy": Kind.PROCEDURE,
    "observable entity": Kind.LAB,
    "body structure": Kind.ANATOMY,
    "cell structure": Kind.ANATOMY,
    "organism": Kind.ORGANISM,
    "morphologic abnormality": Kind.MORPHOLOGY,
    "attribute": Kind.ATTRIBUTE,
    "dose form": Kind.DOSE_FORM,
}

RXNORM_TTY_KIND: dict[str, Kind] = {
    **dict.fromkeys(("IN", "PIN", "MIN"), Kind.INGREDIENT),
    **dict.fromkeys(
        (
            "SCD",
            "SBD",
            "GPCK",
            "BPCK",
            "SCDC",
            "SBDC",
            "SCDF",
            "SBDF",
            "SCDG",
            "SBDG",
            "SCDFP",
            "SBDFP",
            "SCDGP",
        ),
        Kind.DRUG_PRODUCT,
    ),
    "BN": Kind.BRAND,
    **dict.fromkeys(("DF", "DFG"), Kind.DOSE_FORM),
}


def kinds_for_tuis(tuis: list[str]) -> list[str]:
    """Distinct kinds of a UMLS concept's semantic types, ``other`` when none is known."""
    kinds = sorted({TUI_KIND[t].value for t in tuis if t in TUI_KIND})
    return kinds or [Kind.OTHER.value]


def snomed_semantic_tag(fsn: str) -> str | None:
    """The semantic tag of a fully specified name: ``"Asthma (disorder)"`` -> ``"disorder"``."""
    if fsn.endswith(")") and "(" in fsn:
        return fsn[fsn.rindex("(") + 1 : -1]
    return None
