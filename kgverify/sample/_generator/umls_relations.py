# mypy: allow-redefinition
"""MRREL rows between the UMLS concepts: SNOMED CT and RxNorm relationships, MED-RT clinical relations, MeSH
broader/narrower, synonyms and translations."""

from __future__ import annotations

from kgverify.sample._generator import drug_data as dd
from kgverify.sample._generator import snomed_data as sd
from kgverify.sample._generator.common import Row
from kgverify.sample._generator.rxnorm_write import RxBuild
from kgverify.sample._generator.snomed_write import SnomedBuild
from kgverify.sample._generator.umls_state import (
    UmlsState,
    disease_atom,
    medrt_atom,
    pick_atom,
)

SCT_RELA = {
    "363698007": ("has_finding_site", "finding_site_of"),
    "246075003": ("has_causative_agent", "causative_agent_of"),
    "42752001": ("due_to", "cause_of"),
    "116676008": ("has_associated_morphology", "associated_morphology_of"),
    "127489000": ("has_active_ingredient", "active_ingredient_of"),
    "47429007": ("associated_with", "associated_with"),
}
"""RF2 attribute types -> (RELA, inverse RELA) of their MRREL rows."""


def snomed_rels_to_umls(st: UmlsState, rels: list[Row], skip: set[str]) -> None:
    """The MRREL rows (SAB SNOMEDCT_US, SRUI the RF2 id, RG the role group) of the active
    RF2 relationships ``rels`` between UMLS concepts, their sources in ``skip`` left out."""
    for r in rels:
        if not r["active"] or r["src"] in skip:
            continue
        c1, c2 = st.key2cui.get(r["src"]), st.key2cui.get(r["dst"])
        if not c1 or not c2 or c1 == c2:
            continue
        a1, a2 = (
            pick_atom(st.concepts[c1], "SNOMEDCT_US"),
            pick_atom(st.concepts[c2], "SNOMEDCT_US"),
        )
        rg = str(r["group"]) if r["group"] else ""
        if r["type"] == sd.ATTR["isa"]:
            # child isa parent: row CUI1=parent, REL=CHD, CUI2=child, RELA=isa ; row CUI1=child, REL=PAR, CUI2=parent, RELA=inverse_isa
            st.pair(
                c1,
                "isa",
                c2,
                "inverse_isa",
                "SNOMEDCT_US",
                a1,
                a2,
                rel="CHD",
                inv_rel="PAR",
                srui=r["id"],
            )
        else:
            f, i = SCT_RELA[r["type"]]
            st.pair(c1, f, c2, i, "SNOMEDCT_US", a1, a2, srui=r["id"], rg=rg)


def add_relations(st: UmlsState, snomed: SnomedBuild, rx: RxBuild) -> None:
    """Adds the MRREL rows of the earlier sample to ST.rels, in RUI order."""
    umls_concepts = st.concepts
    key2cui = st.key2cui
    mrrel = st.mrrel
    pair = st.pair
    exclude_from_umls = st.exclude_from_umls
    umls_rx = st.umls_rx
    trans_atoms = st.trans_atoms
    sct_rels = snomed.rels
    rxrels = rx.rels
    rxrel_rui = rx.rel_rui

    # --- MRREL
    snomed_rels_to_umls(st, sct_rels, exclude_from_umls)

    # RXNORM relations among UMLS-included RxNorm concepts
    for t in rxrels:
        a, r, b, rela = t  # b RELA a
        if a in umls_rx and b in umls_rx:
            ca, cb = key2cui["RX:" + a], key2cui["RX:" + b]
            if ca == cb:
                continue
            aa, ab = pick_atom(umls_concepts[ca], "RXNORM"), pick_atom(umls_concepts[cb], "RXNORM")
            mrrel(ca, aa, r, cb, ab, rela, "RXNORM", srui=rxrel_rui.get(t, ""))

    def add_clinical(may_treat: list[tuple[str, str]]) -> None:
        for rel_f, rel_i, lst in [
            ("may_treat", "may_be_treated_by", may_treat),
            ("may_prevent", "may_be_prevented_by", dd.MAY_PREVENT),
        ]:
            for d, dis in lst:
                du, su = umls_concepts[key2cui["RX:" + d]], umls_concepts[key2cui[dis]]
                pair(du.cui, rel_f, su.cui, rel_i, "MED-RT", medrt_atom(du), disease_atom(su))
        for d, dis in dd.CONTRAINDICATED:
            du, su = umls_concepts[key2cui["RX:" + d]], umls_concepts[key2cui[dis]]
            # disease has_contraindicated_drug drug
            pair(
                su.cui,
                "has_contraindicated_drug",
                du.cui,
                "contraindicated_with_disease",
                "MED-RT",
                disease_atom(su),
                medrt_atom(du),
            )
        for dis, finds in dd.MANIFESTATIONS.items():
            for fk in finds:
                pair(key2cui[dis], "has_manifestation", key2cui[fk], "manifestation_of", "MTH")

    add_clinical(dd.MAY_TREAT)

    # a few REL=RB/RN (MSH, no RELA), RO without RELA (MTH), SY (translations)
    for child, parent in [
        ("44054006", "73211009"),
        ("46635009", "73211009"),
        ("22298006", "414545008"),
        ("87433001", "13645005"),
    ]:
        cu, pu = umls_concepts[key2cui[child]], umls_concepts[key2cui[parent]]
        a1, a2 = pick_atom(cu, "MSH"), pick_atom(pu, "MSH")
        if a1 and a2:
            mrrel(cu.cui, a1, "RB", pu.cui, a2, "", "MSH")
            mrrel(pu.cui, a2, "RN", cu.cui, a1, "", "MSH")
    for find, lab in [
        ("80394007", "LNC:2345-7"),
        ("166717003", "LNC:2160-0"),
        ("14140009", "LNC:2823-3"),
        ("13644009", "LNC:2093-3"),
        ("44054006", "LNC:4548-4"),
    ]:
        pair(key2cui[find], "", key2cui[lab], "", "MTH")
    for cui, a in trans_atoms:
        u = umls_concepts[cui]
        en = pick_atom(u, "MSH")
        mrrel(cui, en, "SY", cui, a, "translation_of", a["sab"])
        mrrel(cui, a, "SY", cui, en, "has_translation", a["sab"])
