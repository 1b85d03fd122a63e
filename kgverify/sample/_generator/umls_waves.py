# mypy: allow-redefinition
"""The later UMLS waves, numbered after the earlier sample so that its ids stay as they were: drug classes (ATC)
with their indications, then the rows added for derivation and the consumer terms."""

from __future__ import annotations

import re
from typing import Any

import duckdb

from kgverify.sample._generator import common_terms, lay_terms
from kgverify.sample._generator import drug_data as dd
from kgverify.sample._generator import label_knowledge as lk
from kgverify.sample._generator import procedures as pr
from kgverify.sample._generator import umls_data as ud
from kgverify.sample._generator.common import EUNOMIA_DB
from kgverify.sample._generator.eunomia import Eunomia
from kgverify.sample._generator.rxnorm_write import RxBuild
from kgverify.sample._generator.snomed_write import SnomedBuild, desc_tty
from kgverify.sample._generator.umls_relations import snomed_rels_to_umls
from kgverify.sample._generator.umls_state import (
    SRL_OF,
    UmlsState,
    disease_atom,
    medrt_atom,
)

AB_PAIRS = {
    (ud.DIFF_AB["add_may_treat"][0][3:], ud.DIFF_AB["add_may_treat"][1]),
    (ud.DIFF_AB["remove_may_treat"][0][3:], ud.DIFF_AB["remove_may_treat"][1]),
}


def add_drug_classes(st: UmlsState) -> None:
    """The second wave: ATC classes on the ingredients and the indications added with them."""
    umls_concepts = st.concepts
    key2cui = st.key2cui
    umls_rels = st.rels
    ucon = st.ucon
    atom = st.atom
    mrrel = st.mrrel
    medrt_wave = st.medrt_wave
    atc_class_atom = st.atc_class_atom
    aui_seq = st.aui_seq
    drug_in = st.drug_in
    src_cui = st.src_cui
    atc_class_cui = st.atc_class_cui
    atc_atom = st.atc_atom

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
    for rxcui, codes, s in atc_in:
        u = umls_concepts[key2cui["RX:" + rxcui]]
        for c in codes:
            atc_atom[(rxcui, c)] = atom(u, "ATC", "RXN_PT", c, s, scui=c)
    # one synthetic CUI per level-3 and level-4 class, with its ATC PT atom
    for code in atc_used:
        u = ucon("ATC:" + code, "", "SYN", ["T121"])
        atom(u, "ATC", "PT", code, dd.ATC_CLASS[code], scui=code)
        atc_class_cui[code] = u.cui
    late_cuis = set(atc_class_cui.values()) | set(src_cui["ATC"])

    # hierarchy, as NLM ships it: PAR/CHD without RELA, both directions (row CUI1=child, REL=PAR, CUI2=parent)
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
    for lst, old in ((dd.MAY_TREAT_ADDED, dd.MAY_TREAT), (dd.MAY_PREVENT_ADDED, dd.MAY_PREVENT)):
        pairs = [(d, dis) for d, dis, _ in lst]
        assert len(set(pairs)) == len(pairs) and not set(pairs) & set(old), set(pairs) & set(old)
        assert not set(pairs) & AB_PAIRS and not set(pairs) & {
            (d, dis) for d, dis, _ in dd.NOT_MAY_TREAT
        }
        for d, dis in pairs:
            assert d in drug_in and dis in key2cui, (d, dis)

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

    st.late_aui0 = late_aui0
    st.late_mrrel0 = late_mrrel0
    st.late_cuis = late_cuis
    st.atc_in = atc_in


def add_derivation(st: UmlsState, eun: Eunomia, snomed: SnomedBuild, rx: RxBuild) -> None:
    """The third wave (ingredients, ATC levels and relations for derivation) and the fourth (lay_terms.py)."""
    umls_concepts = st.concepts
    key2cui = st.key2cui
    umls_rels = st.rels
    ucon = st.ucon
    atom = st.atom
    mrrel = st.mrrel
    pair = st.pair
    medrt_wave = st.medrt_wave
    atc_class_atom = st.atc_class_atom
    aui_seq = st.aui_seq
    drug_in = st.drug_in
    sab_info = st.sab_info
    atc_in = st.atc_in
    atc_class_cui = st.atc_class_cui
    atc_atom = st.atc_atom
    srl_of = SRL_OF
    sct_concepts = snomed.concepts
    rx_concepts = rx.concepts
    eun_ingredients = eun.ingredients

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
    _earlier_treat = set(dd.MAY_TREAT) | {(d, dis) for d, dis, _ in dd.MAY_TREAT_ADDED} | AB_PAIRS
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
    # issue 37, fourth pass: common concepts no patient has, numbered after every earlier one (their MRSTY ATUIs
    # with the third wave's, whose CUIs all sort before theirs)
    spelled = {a["str"].lower() for u in umls_concepts.values() for a in u.atoms}
    late2_cuis.update(
        common_terms.add_common_concepts(
            ucon, atom, spelled, lay_terms.CHV_CODE_BASE + lay_terms.chv_codes() + 1
        )
    )
    common_terms.add_manifestations(pair, key2cui, common_terms.MANIFESTATIONS)
    st.late4_aui0 = aui_seq.n  # more terms for earlier concepts: LUIs/SUIs after every other
    common_terms.add_extra_terms(
        umls_concepts,
        key2cui,
        atom,
        spelled,
        lay_terms.CHV_CODE_BASE + lay_terms.chv_codes() + len(common_terms.every()) + 1,
    )
    common_terms.add_manifestations(pair, key2cui, common_terms.MORE_MANIFESTATIONS)
    st.late5_aui0 = aui_seq.n  # issue 37, fifth pass: terms after every other atom
    common_terms.add_extra_terms(
        umls_concepts, key2cui, atom, spelled, None, table=common_terms.FIFTH_TERMS
    )
    common_terms.add_manifestations(pair, key2cui, common_terms.THIRD_MANIFESTATIONS)
    chv_max = max(
        int(a["code"]) for u in umls_concepts.values() for a in u.atoms if a["sab"] == "CHV"
    )
    late2_cuis.update(
        common_terms.add_common_concepts(ucon, atom, spelled, chv_max + 1, common_terms.LATER)
    )
    common_terms.add_manifestations(pair, key2cui, common_terms.LATER_MANIFESTATIONS)
    # issue 37, sixth pass: the procedures, after every other concept, atom and row
    late2_cuis.update(add_procedures(st, snomed, chv_max + len(common_terms.LATER) + 1, spelled))
    common_terms.add_manifestations(pair, key2cui, common_terms.SIXTH_MANIFESTATIONS)
    st.late6_aui0 = aui_seq.n  # terms for earlier concepts: LUIs/SUIs after every other
    common_terms.add_extra_terms(
        umls_concepts, key2cui, atom, spelled, None, table=common_terms.SIXTH_TERMS
    )
    # issue 37, seventh pass: rows and terms after every other
    common_terms.add_manifestations(pair, key2cui, common_terms.SEVENTH_MANIFESTATIONS)
    st.late7_aui0 = aui_seq.n
    common_terms.add_extra_terms(
        umls_concepts, key2cui, atom, spelled, None, table=common_terms.SEVENTH_TERMS
    )
    # issue 37, eighth pass: rows after every other
    common_terms.add_manifestations(pair, key2cui, common_terms.EIGHTH_MANIFESTATIONS)
    common_terms.move_terms(umls_concepts, key2cui, atom)
    # issue 33, labelled indications a clinician read found missing: rows after every other
    lk.add_rows(
        _ci_all | _earlier_treat | set(_treat_new) | {(d, dis) for d, dis, _ in lk.CONTRAINDICATED},
        key2cui,
        umls_concepts,
        pair,
        disease_atom,
        medrt_atom,
        indications=True,
    )
    lk.add_outcomes({(o, c) for o, c, _ in dd.DUE_TO_DERIVE}, key2cui, pair)
    lk.add_prevention(
        {(d, dis) for d, dis in dd.MAY_PREVENT} | {(d, dis) for d, dis, _ in dd.MAY_PREVENT_DERIVE},
        key2cui,
        umls_concepts,
        pair,
        disease_atom,
        medrt_atom,
    )

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
        "label_due_to": [
            persons(followed, sct_below(cause), sct_below(outcome))
            for outcome, cause, _ in lk.DUE_TO
        ],
    }
    con.close()

    st.late2_aui0 = late2_aui0
    st.late2_mrrel0 = late2_mrrel0
    st.late2_cuis = late2_cuis
    st.late3_aui0 = late3_aui0
    st.eun_derive = eun_derive


def add_procedures(
    st: UmlsState, snomed: SnomedBuild, first_code: int, spelled: set[str]
) -> list[str]:
    """One synthetic-CUI concept per procedure (``procedures.PROCEDURES``, in order): its
    SNOMEDCT_US atoms (the RF2 descriptions), its consumer terms (SAB CHV, first PT, one CHV
    code per concept with terms, from ``first_code``), and the MRREL rows of its RF2
    relationships (``umls_relations.snomed_rels_to_umls``). Refuses a consumer term an earlier atom spells. The new CUIs."""
    added: list[str] = []
    codes = 0
    for p in pr.PROCEDURES:
        u = st.ucon(p.sctid, "", "SYN", [p.tui])
        for d in snomed.desc_by_concept[p.sctid]:
            st.atom(u, "SNOMEDCT_US", desc_tty(d), p.sctid, d["term"], saui=d["id"], scui=p.sctid)
            spelled.add(d["term"].lower())
        if p.lay:
            code = f"{first_code + codes:010d}"
            codes += 1
            for at, term in enumerate(p.lay):
                common_terms.claim(term, p.sctid, spelled)
                st.atom(u, "CHV", "PT" if at == 0 else "SY", code, term, scui=code)
        added.append(u.cui)
    ids = {p.sctid for p in pr.PROCEDURES}
    snomed_rels_to_umls(st, [r for r in snomed.rels if r["src"] in ids], set())
    return added
