# mypy: allow-redefinition
"""UMLS concepts and atoms (MRCONSO rows before numbering): SNOMED CT, RxNorm, MeSH, ICD-10-CM, LOINC, MED-RT,
translations and the SRC concepts, from umls_data.py and the SNOMED CT and RxNorm builds."""

from __future__ import annotations

import collections

from kgverify.sample._generator import drug_data as dd
from kgverify.sample._generator import procedures as pr
from kgverify.sample._generator import snomed_data as sd
from kgverify.sample._generator import umls_data as ud
from kgverify.sample._generator.common import Row
from kgverify.sample._generator.rxnorm_write import RxBuild
from kgverify.sample._generator.snomed_write import SnomedBuild, desc_tty, fsn_t
from kgverify.sample._generator.umls_state import UmlsState


def add_concepts(st: UmlsState, snomed: SnomedBuild, rx: RxBuild) -> None:
    """Adds the sample's concepts and their atoms to ST, in the order that numbers their CUIs and AUIs."""
    umls_concepts = st.concepts
    key2cui = st.key2cui
    ucon = st.ucon
    atom = st.atom
    nui_seq = st.nui_seq
    sct_concepts = snomed.concepts
    desc_by_concept = snomed.desc_by_concept
    rx_concepts = rx.concepts
    rx_by_name = rx.by_name
    rxrels = rx.rels
    mesh_labels = ud.MESH_LABELS

    # --- SNOMED-based concepts
    exclude_from_umls = {"106237007", "246061005", "410662002", "762705008"} | set(sd.ATTR.values())
    # the procedures get their concepts in the last wave (umls_waves.add_procedures)
    exclude_from_umls |= set(pr.by_id())
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
                tty = desc_tty(d)
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

    st.exclude_from_umls = exclude_from_umls
    st.drug_in = drug_in
    st.umls_rx = umls_rx
    st.trans_atoms = trans_atoms
    st.medrt_nui = medrt_nui
    st.sab_info = sab_info
    st.src_cui = src_cui
