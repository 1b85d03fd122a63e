"""Labelled contraindications of the Eunomia drugs added for the patient-specific lures of issue 33
(a fourth wave of MED-RT rows, emitted after every earlier row so earlier identifiers stay).

Stated from knowledge of the drugs' labels (no database was downloaded): the US FDA prescribing
information and, where the US label states the risk as a boxed warning or a warning and the EU
SmPC (section 4.3) as a contraindication, the SmPC, named in each row. Only conditions the
sample already has, and only where the label's wording covers the concept as a whole: a label
that says "severe" or "recent" (severe heart failure, recent stroke, severe anaemia) is not
put on the unqualified concept, and a renal contraindication of "severe renal impairment" sits
on Chronic kidney disease stage 5, as in ``drug_data.CONTRAINDICATED_DERIVE``.

Drug-drug interactions are not added: UMLS, SNOMED CT and RxNorm carry no drug-drug relation
the graph models (MED-RT's class-level CI_ChemClass rows are not read by the loaders), and of
the issue's examples only warfarin with NSAIDs, aspirin and clopidogrel concerns Eunomia's
drugs, which no US label states as a contraindication (a bleeding-risk warning).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# disease has_contraindicated_drug drug: (ingredient rxcui, SNOMED key, why)
CONTRAINDICATED = [
    (
        "140587",
        "414545008",
        "celecoxib: established ischaemic heart disease (EU SmPC contraindication; US boxed warning, "
        "cardiovascular thrombotic events)",
    ),
    (
        "140587",
        "62914000",
        "celecoxib: established cerebrovascular disease (EU SmPC contraindication; US boxed warning, "
        "cardiovascular thrombotic events including stroke)",
    ),
    (
        "140587",
        "24526004",
        "celecoxib: inflammatory bowel disease (EU SmPC contraindication; US warning, GI bleeding, "
        "ulceration and perforation)",
    ),
    (
        "3355",
        "414545008",
        "diclofenac: established ischaemic heart disease (EU SmPC contraindication; US boxed warning, "
        "cardiovascular thrombotic events)",
    ),
    (
        "3355",
        "62914000",
        "diclofenac: established cerebrovascular disease (EU SmPC contraindication; US boxed warning, "
        "cardiovascular thrombotic events including stroke)",
    ),
    (
        "6851",
        "13200003",
        "methotrexate: known active gastrointestinal ulcer disease (EU SmPC contraindication; US "
        "warning, GI toxicity)",
    ),
    (
        "6851",
        "433146000",
        "methotrexate: severe renal impairment (EU SmPC contraindication, creatinine clearance under "
        "30 mL/min; US: elimination reduced in impaired renal function)",
    ),
    (
        "703",
        "40930008",
        "amiodarone: evidence or history of thyroid dysfunction (EU SmPC contraindication; US warning, "
        "hypothyroidism and hyperthyroidism)",
    ),
]

# Labelled indications found missing when the treatment rules' neighbourhood narrowed to the
# condition's parents, children and siblings (issue 33): each was offered as a wrong answer
# although its label says it treats the item's condition. MED-RT may_treat rows, emitted after
# every other row of the sample. (ingredient rxcui, SNOMED key, why)
MAY_TREAT = [
    (
        "11170",
        "53741008",
        "verapamil: angina at rest (vasospastic, unstable) and chronic stable angina of coronary "
        "artery disease (US label)",
    ),
]

# Preventive indications in the labels' own words, found missing when a clinician's read of the
# items met amlodipine offered as wrong for a stroke (issue 33): every US antihypertensive label
# carries, under Indications and Usage, the class statement FDA required in 2011: "Lowering blood
# pressure reduces the risk of fatal and nonfatal cardiovascular events, primarily strokes and
# myocardial infarctions." MED-RT may_prevent rows, emitted after the DUE_TO rows. (ingredient
# rxcui, SNOMED key, why)
MAY_PREVENT = [
    (
        "17767",
        "230690007",
        "amlodipine: blood pressure lowering reduces fatal and nonfatal cardiovascular events, "
        "primarily strokes and myocardial infarctions (US label, hypertension)",
    ),
    (
        "17767",
        "22298006",
        "amlodipine: blood pressure lowering reduces fatal and nonfatal cardiovascular events, "
        "primarily strokes and myocardial infarctions (US label, hypertension)",
    ),
    (
        "11170",
        "230690007",
        "verapamil: blood pressure lowering reduces fatal and nonfatal cardiovascular events, "
        "primarily strokes and myocardial infarctions (US label, hypertension)",
    ),
    (
        "11170",
        "22298006",
        "verapamil: blood pressure lowering reduces fatal and nonfatal cardiovascular events, "
        "primarily strokes and myocardial infarctions (US label, hypertension)",
    ),
]

# Documented sequelae among the Eunomia conditions, for prognosis (`leads_to`), found missing
# when the prognosis task stayed nearly empty (issue 33): each pair occurs in Eunomia in this
# order (the cause first, the outcome at a later visit) for many patients. MTH due_to /
# cause_of rows like ``drug_classes.DUE_TO_DERIVE``, emitted after every other row. A row
# names a documented cause, not the only one nor a likely one. (outcome SNOMED key, cause
# SNOMED key, why)
DUE_TO = [
    (
        "75498004",
        "444814009",
        "acute bacterial sinusitis: bacterial superinfection of a viral rhinosinusitis, in about "
        "0.5-2% of episodes (IDSA 2012 and AAO-HNS 2015 sinusitis guidelines)",
    ),
    (
        "65363002",
        "444814009",
        "otitis media: a complication of a viral upper respiratory infection through eustachian "
        "tube dysfunction (AAP 2013 acute otitis media guideline)",
    ),
    (
        "65363002",
        "43878008",
        "otitis media: a suppurative complication of group A streptococcal pharyngitis (IDSA 2012 "
        "pharyngitis guideline)",
    ),
    (
        "75498004",
        "43878008",
        "acute bacterial sinusitis: a suppurative complication of group A streptococcal "
        "pharyngitis (IDSA 2012 pharyngitis guideline)",
    ),
    (
        "74474003",
        "68496003",
        "gastrointestinal hemorrhage: a bleeding colonic polyp, a cause of lower gastrointestinal "
        "bleeding",
    ),
    (
        "68496003",
        "64766004",
        "polyp of colon: inflammatory pseudopolyps and dysplastic polyps of long-standing "
        "ulcerative colitis",
    ),
]

Pair = Callable[..., None]


def _sides(
    rows: list[tuple[str, str, str]],
    earlier: set[tuple[str, str]],
    key2cui: dict[str, str],
    umls_concepts: dict[str, Any],
) -> list[tuple[Any, Any]]:
    """(drug, disease) UMLS concepts of ``rows``, none of them stated by an earlier row."""
    pairs = [(d, dis) for d, dis, _ in rows]
    assert len(set(pairs)) == len(pairs) and not set(pairs) & earlier, set(pairs) & earlier
    return [(umls_concepts[key2cui["RX:" + d]], umls_concepts[key2cui[dis]]) for d, dis in pairs]


def _indication_rows(
    rows: list[tuple[str, str, str]],
    rela: str,
    inverse: str,
    earlier: set[tuple[str, str]],
    key2cui: dict[str, str],
    umls_concepts: dict[str, Any],
    pair: Pair,
    disease_atom: Callable[[Any], Any],
    medrt_atom: Callable[[Any], Any],
) -> None:
    """MED-RT rows drug ``rela`` disease (and the ``inverse``) for ``rows``."""
    for du, su in _sides(rows, earlier, key2cui, umls_concepts):
        pair(du.cui, rela, su.cui, inverse, "MED-RT", medrt_atom(du), disease_atom(su))


def add_rows(
    earlier: set[tuple[str, str]],
    key2cui: dict[str, str],
    umls_concepts: dict[str, Any],
    pair: Pair,
    disease_atom: Callable[[Any], Any],
    medrt_atom: Callable[[Any], Any],
    *,
    indications: bool = False,
) -> None:
    """The contraindication rows, both directions, after every earlier row (``earlier``: the
    (drug, disease) pairs the sample already states as contraindications or indications);
    with ``indications``, the may_treat rows of ``MAY_TREAT`` instead (emitted last)."""
    if indications:
        _indication_rows(
            MAY_TREAT,
            "may_treat",
            "may_be_treated_by",
            earlier,
            key2cui,
            umls_concepts,
            pair,
            disease_atom,
            medrt_atom,
        )
        return
    for du, su in _sides(CONTRAINDICATED, earlier, key2cui, umls_concepts):
        pair(
            su.cui,
            "has_contraindicated_drug",
            du.cui,
            "contraindicated_with_disease",
            "MED-RT",
            disease_atom(su),
            medrt_atom(du),
        )


def add_outcomes(stated: set[tuple[str, str]], key2cui: dict[str, str], pair: Pair) -> None:
    """The ``DUE_TO`` rows (outcome due_to cause, both directions), after every other row;
    ``stated``: the (outcome, cause) pairs the sample already states."""
    pairs = [(o, c) for o, c, _ in DUE_TO]
    assert len(set(pairs)) == len(pairs) and not set(pairs) & stated, set(pairs) & stated
    assert not {(c, o) for o, c in pairs} & (stated | set(pairs)), "a cause both ways"
    for outcome, cause in pairs:
        pair(key2cui[outcome], "due_to", key2cui[cause], "cause_of", "MTH")


def add_prevention(
    stated: set[tuple[str, str]],
    key2cui: dict[str, str],
    umls_concepts: dict[str, Any],
    pair: Pair,
    disease_atom: Callable[[Any], Any],
    medrt_atom: Callable[[Any], Any],
) -> None:
    """The ``MAY_PREVENT`` rows (drug may_prevent disease, both directions), after the
    ``DUE_TO`` rows; ``stated``: the (drug, disease) pairs the sample already states."""
    _indication_rows(
        MAY_PREVENT,
        "may_prevent",
        "may_be_prevented_by",
        stated,
        key2cui,
        umls_concepts,
        pair,
        disease_atom,
        medrt_atom,
    )


def readme_section(
    w: Callable[[str], None],
    persons: list[int],
    followed: list[int],
    cui_name: Callable[[str], str],
    rxn: dict[str, list[str]],
    k2c: dict[str, str],
) -> None:
    """The README's account of these rows (``persons``: Eunomia persons per row, as the
    contraindications above count them)."""
    w("## Contraindications added for patient-specific lures")
    w("")
    w(
        f"{len(CONTRAINDICATED)} more MED-RT contraindications (disease has_contraindicated_drug drug, "
        f"{2 * len(CONTRAINDICATED)} MRREL rows, both UMLS releases), from the drugs' labels: the US FDA "
        "prescribing information and, where the US label states the risk as a boxed warning or a warning and "
        "the EU SmPC (section 4.3) as a contraindication, the SmPC. Chosen from the conditions Eunomia patients "
        "carry with no end recorded (what a question shows beside a later visit), for the drugs Eunomia gives. A "
        'label qualified by severity or time ("severe heart failure", "recent stroke", "severe anaemia", '
        '"acute myocardial infarction") was not put on the unqualified concept. Emitted after every earlier '
        "row, so earlier identifiers are unchanged."
    )
    w("")
    w("| disease | contraindicated ingredient | label | Eunomia persons |")
    w("|---|---|---|---:|")
    for (d, dis, why), n in zip(CONTRAINDICATED, persons, strict=True):
        w(
            f"| {cui_name(dis)} | {rxn[d][1]} ({d}, {k2c['RX:' + d]}) | {why.split(': ', 1)[1]} | {n} |"
        )
    w("")
    w(
        f"{len(MAY_TREAT)} labelled indication(s) added last (MED-RT may_treat, {2 * len(MAY_TREAT)} MRREL rows, "
        "both UMLS releases), found missing when the treatment rules' neighbourhood narrowed to a condition's "
        "parents, children and siblings: the derivation then offered the drug as a wrong answer for a condition its "
        "label says it treats."
    )
    w("")
    w("| ingredient | disease | label |")
    w("|---|---|---|")
    for d, dis, why in MAY_TREAT:
        w(f"| {rxn[d][1]} ({d}, {k2c['RX:' + d]}) | {cui_name(dis)} | {why.split(': ', 1)[1]} |")
    w("")
    w(
        f"{len(MAY_PREVENT)} preventive indications added after them (MED-RT may_prevent, "
        f"{2 * len(MAY_PREVENT)} MRREL rows, both UMLS releases): the class statement FDA required in 2011 "
        'under Indications and Usage of every antihypertensive label ("Lowering blood pressure reduces the '
        'risk of fatal and nonfatal cardiovascular events, primarily strokes and myocardial infarctions"), '
        "for the Eunomia antihypertensives. A read of the items found amlodipine offered as wrong for a stroke, "
        "which a clinician could defend (secondary prevention)."
    )
    w("")
    w("| ingredient | disease | label |")
    w("|---|---|---|")
    for d, dis, why in MAY_PREVENT:
        w(f"| {rxn[d][1]} ({d}, {k2c['RX:' + d]}) | {cui_name(dis)} | {why.split(': ', 1)[1]} |")
    w("")
    w(
        f"{len(DUE_TO)} documented sequelae added last (MTH due_to / cause_of, {2 * len(DUE_TO)} MRREL rows, "
        "both UMLS releases, read as `DUE_TO`, which supports `leads_to`), from the clinical guidelines named: "
        "the prognosis task was nearly empty because the sample stated no outcome of the respiratory "
        "infections every Eunomia patient has. A row names a documented cause, not a likely one. Eunomia "
        "persons: the cause first (or the same day), then the outcome."
    )
    w("")
    w("| outcome | cause | source | Eunomia persons |")
    w("|---|---|---|---:|")
    for (o, c, why), n in zip(DUE_TO, followed, strict=True):
        w(f"| {cui_name(o)} | {cui_name(c)} | {why.split(': ', 1)[1]} | {n} |")
    w("")
    w(
        "Drug-drug interactions: still none. The graph models no drug-drug relation and the loaders read none "
        "(MED-RT's class-level CI_ChemClass rows exist in UMLS but are not modelled). Of the classic label "
        "interactions (warfarin with NSAIDs, aspirin or clopidogrel; macrolides or fluoroquinolones with "
        "QT-prolonging drugs; ACE inhibitors in pregnancy or angioedema; beta blockers in asthma), Eunomia gives "
        "no macrolide, fluoroquinolone, ACE inhibitor or beta blocker, and warfarin's are bleeding-risk warnings, "
        "not contraindications, in its US label."
    )
    w("")
