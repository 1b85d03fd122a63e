# mypy: allow-redefinition
"""RxNorm full 01062025 and its 02032025 diff, from drug_data.py and Eunomia's RxNorm concepts."""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass
from pathlib import Path

from kgverify.sample._generator import drug_data as dd
from kgverify.sample._generator import lay_terms
from kgverify.sample._generator.common import (
    RxConcept,
    RxRel,
    RxSat,
    Seq,
    rrf,
    write_lines,
)
from kgverify.sample._generator.eunomia import Eunomia
from kgverify.sample._generator.snomed_write import SnomedBuild


@dataclass
class RxIds:
    """The RUIs and ATUIs numbered on first write, shared by both releases (UMLS reuses the RUIs)."""

    concepts: dict[str, RxConcept]
    rel_rui: dict[RxRel, str]
    rui_seq: Seq
    sat_atui: dict[RxSat, str]


@dataclass
class RxBuild:
    """What UMLS and the README read from the RxNorm build."""

    concepts: dict[str, RxConcept]
    by_name: dict[str, RxConcept]
    rels: list[RxRel]
    rel_rui: dict[RxRel, str]
    cvx_rx: dict[str, str]
    diff_log: list[str]
    source: dict[str, str]
    synth: set[str]


def write_rxnconso(d: str, rxc: dict[str, RxConcept]) -> None:
    """RXNCONSO: atoms by RXCUI."""
    lines = []
    for c in sorted(rxc.values(), key=lambda c: int(c.rxcui)):
        for aui, sab, tty, code, s, saui, scui, sup in c.atoms:
            if sab == "RXNORM":
                saui = aui
            cvf = "4096" if sab == "RXNORM" and sup == "N" else ""
            lines.append(
                rrf(
                    [
                        c.rxcui,
                        "ENG",
                        "",
                        "",
                        "",
                        "",
                        "",
                        aui,
                        saui or "",
                        scui or "",
                        "",
                        sab,
                        tty,
                        code,
                        s,
                        "",
                        sup,
                        cvf,
                    ]
                )
            )
    write_lines(os.path.join(d, "RXNCONSO.RRF"), lines)


def write_rxnrel(d: str, rels: list[RxRel], ids: RxIds) -> None:
    """RXNREL: both directions of every relation; RUIs numbered on first write."""
    lines = []
    for t in rels:
        a, r, b, rela = t
        if t not in ids.rel_rui:
            ids.rel_rui[t] = ids.rui_seq()
        cvf = "4096" if ids.concepts[a].suppress != "O" and ids.concepts[b].suppress != "O" else ""
        lines.append(
            rrf(
                [
                    a,
                    "",
                    "CUI",
                    r,
                    b,
                    "",
                    "CUI",
                    rela,
                    ids.rel_rui[t],
                    "",
                    "RXNORM",
                    "RXNORM",
                    "",
                    "",
                    "N",
                    cvf,
                ]
            )
        )
    write_lines(os.path.join(d, "RXNREL.RRF"), lines)


def write_rxnsat(d: str, sats: list[RxSat], ids: RxIds) -> None:
    """RXNSAT: attributes of atoms."""
    lines = []
    for k in sats:
        rxcui, aui, atn, atv = k
        lines.append(
            rrf(
                [
                    rxcui,
                    "",
                    "",
                    aui,
                    "AUI",
                    rxcui,
                    ids.sat_atui[k],
                    "",
                    atn,
                    "RXNORM",
                    atv,
                    "N",
                    "4096",
                ]
            )
        )
    write_lines(os.path.join(d, "RXNSAT.RRF"), lines)


def write_rxnorm_release(
    root: str,
    rel_name: str,
    rxc: dict[str, RxConcept],
    rels: list[RxRel],
    sats: list[RxSat],
    ids: RxIds,
) -> None:
    """Writes one release folder: RXNCONSO, RXNREL, RXNSAT."""
    d = os.path.join(root, rel_name, "rrf")
    write_rxnconso(d, rxc)
    write_rxnrel(d, rels, ids)
    write_rxnsat(d, sats, ids)


def build_rxnorm(out: Path, eun: Eunomia, snomed: SnomedBuild) -> RxBuild:
    """Writes OUT/rxnorm's two releases (the 02032025 one a documented diff of the first)."""
    eun_rx_all, eun_cvx = eun.rx_all, eun.cvx
    pt_desc, fsn_desc = snomed.pt_desc, snomed.fsn_desc

    rxcui_seq = Seq("{}", 9900000)
    rxaui_seq = Seq("{}", 90000000)
    rxrui_seq = Seq("{}", 900000000)
    rxatui_seq = Seq("AT8{:08d}", 0)

    rx_concepts: dict[str, RxConcept] = {}
    rx_by_name: dict[str, RxConcept] = {}
    rx_synth: set[str] = set()
    rx_source: dict[str, str] = {}

    def rx_add(rxcui: str, tty: str, name: str, source: str, suppress: str = "N") -> RxConcept:
        if name in rx_by_name:
            c = rx_by_name[name]
            assert c.tty == tty, (name, tty, c.tty)
            return c
        if not rxcui:
            rxcui = rxcui_seq()
            rx_synth.add(rxcui)
        assert rxcui not in rx_concepts, (rxcui, name)
        c = RxConcept(rxcui, tty, name, suppress)
        c.atoms.append([rxaui_seq(), "RXNORM", tty, rxcui, name, None, rxcui, suppress])
        rx_concepts[rxcui] = c
        rx_by_name[name] = c
        rx_source[rxcui] = source
        return c

    rxrels: list[RxRel] = []  # (rxcui1, rel, rxcui2, rela)  meaning: rxcui2 RELA rxcui1

    def rx_rel(
        a_is: str, rela: str, b: str, inv: str, rel: str = "RO", inv_rel: str = "RO"
    ) -> None:
        """Record 'a_is RELA b' (a_is is the subject) and its inverse.  Stored RXNREL-style:
        RXCUI1=b, RXCUI2=a_is, RELA=rela (relationship of RXCUI2 to RXCUI1)."""
        t = (b, rel, a_is, rela)
        if t in rxrels:
            return
        rxrels.append(t)
        rxrels.append((a_is, inv_rel, b, inv))

    # ingredients (Eunomia + new)
    for code, (name, cls) in sorted(eun_rx_all.items(), key=lambda x: int(x[0])):
        if cls == "Ingredient":
            rx_add(code, "IN", name, "Eunomia")
    for code, name in dd.NEW_IN:
        rx_add(code, "IN", name, "WK")
    in_by_name = {c.name: c for c in rx_concepts.values() if c.tty == "IN"}

    dose_forms: dict[str, RxConcept] = {}

    def df_concept(name: str) -> RxConcept:
        if name not in dose_forms:
            dose_forms[name] = rx_add(
                dd.DF_REAL.get(name, ""), "DF", name, "WK" if name in dd.DF_REAL else "SYN"
            )
        return dose_forms[name]

    def ingredient_of(ing_name: str) -> tuple[RxConcept, RxConcept | None]:
        """Return (IN concept, PIN concept or None)."""
        if ing_name in in_by_name:
            return in_by_name[ing_name], None
        inn = dd.PIN_OF.get(ing_name)
        assert inn, ("unknown ingredient name", ing_name)
        pin = rx_add("", "PIN", ing_name, "SYN")
        rx_rel(pin.rxcui, "form_of", inn, "has_form")
        return rx_concepts[inn], pin

    prefix_re = re.compile(r"^(NDA\d+ )?(\d+(?:\.\d+)? (?:ML|ACTUAT|HR|DAY) )")
    comp_re = re.compile(r"^(.*) ([\d.]+) (MG/ML|MG/HR|MG/ACTUAT|UNT/ML|MG)$")

    def parse_drug(name: str) -> tuple[list[tuple[str, str, str]], str | None, str | None]:
        """'<prefix> comp / comp <DF> [BN]' -> (components[(ing,str,unit)], DF, BN)"""
        bn = None
        m = re.match(r"^(.*) \[(.+)\]$", name)
        if m:
            name, bn = m.group(1), m.group(2)
        name = prefix_re.sub("", name)
        for df in dd.DOSE_FORMS:
            if name.endswith(" " + df):
                body = name[: -len(df) - 1]
                break
        else:
            df, body = None, name
        comps = []
        for part in body.split(" / "):
            m = comp_re.match(part)
            assert m, ("cannot parse component", part, name)
            comps.append((m.group(1), m.group(2), m.group(3)))
        return comps, df, bn

    def brand(bn: str) -> RxConcept:
        if bn in dd.BRANDS:
            rxcui, src = dd.BRANDS[bn]
        else:
            rxcui, src = "", "SYN"
        return rx_add(rxcui, "BN", bn, src)

    def build_scd(c: RxConcept) -> tuple[list[tuple[str, str, str]], RxConcept]:
        """Decompose an SCD (clinical drug) into SCDC, SCDF, DF, IN/PIN, MIN."""
        comps, df, bn = parse_drug(c.name)
        assert bn is None and df, c.name
        ins = []
        for ing, st, unit in comps:
            inc, pin = ingredient_of(ing)
            ins.append(inc)
            scdc = rx_add("", "SCDC", f"{ing} {st} {unit}", "SYN")
            rx_rel(scdc.rxcui, "has_ingredient", inc.rxcui, "ingredient_of")
            if pin:
                rx_rel(scdc.rxcui, "has_precise_ingredient", pin.rxcui, "precise_ingredient_of")
            rx_rel(c.rxcui, "consists_of", scdc.rxcui, "constitutes")
            c.strengths = [*c.strengths, f"{st} {unit}"]
        dfc = df_concept(df)
        scdf = rx_add("", "SCDF", " / ".join(i.name for i in ins) + " " + df, "SYN")
        for i in ins:
            rx_rel(scdf.rxcui, "has_ingredient", i.rxcui, "ingredient_of")
        rx_rel(scdf.rxcui, "has_dose_form", dfc.rxcui, "dose_form_of")
        rx_rel(c.rxcui, "isa", scdf.rxcui, "inverse_isa", rel="RN", inv_rel="RB")
        rx_rel(c.rxcui, "has_dose_form", dfc.rxcui, "dose_form_of")
        if len(ins) > 1:
            mn = rx_add("", "MIN", " / ".join(i.name for i in ins), "SYN")
            for i in ins:
                rx_rel(mn.rxcui, "has_part", i.rxcui, "part_of")
            rx_rel(c.rxcui, "has_ingredients", mn.rxcui, "ingredients_of")
        c.ins = ins
        c.scdf = scdf
        return comps, dfc

    def build_sbd(c: RxConcept) -> None:
        comps, df, bn = parse_drug(c.name)
        assert bn and df, c.name
        b = brand(bn)
        base_name = c.name[: -(len(bn) + 3)]
        scd = rx_by_name.get(base_name)
        if scd is None:
            scd = rx_add("", "SCD", base_name, "SYN")
            build_scd(scd)
        assert scd.ins is not None and scd.scdf is not None, ("SCD not decomposed", scd.name)
        rx_rel(c.rxcui, "tradename_of", scd.rxcui, "has_tradename")
        rx_rel(c.rxcui, "has_ingredient", b.rxcui, "ingredient_of")
        for i in scd.ins:
            rx_rel(b.rxcui, "tradename_of", i.rxcui, "has_tradename")
        dfc = df_concept(df)
        rx_rel(c.rxcui, "has_dose_form", dfc.rxcui, "dose_form_of")
        sbdf = rx_add("", "SBDF", f"{scd.scdf.name} [{bn}]", "SYN")
        rx_rel(sbdf.rxcui, "tradename_of", scd.scdf.rxcui, "has_tradename")
        rx_rel(sbdf.rxcui, "has_ingredient", b.rxcui, "ingredient_of")
        rx_rel(sbdf.rxcui, "has_dose_form", dfc.rxcui, "dose_form_of")
        rx_rel(c.rxcui, "isa", sbdf.rxcui, "inverse_isa", rel="RN", inv_rel="RB")
        for ing, st, unit in comps:
            scdc = rx_by_name[f"{ing} {st} {unit}"]
            sbdc = rx_add("", "SBDC", f"{ing} {st} {unit} [{bn}]", "SYN")
            rx_rel(sbdc.rxcui, "tradename_of", scdc.rxcui, "has_tradename")
            rx_rel(sbdc.rxcui, "has_ingredient", b.rxcui, "ingredient_of")
            rx_rel(c.rxcui, "consists_of", sbdc.rxcui, "constitutes")
        c.strengths = scd.strengths
        c.scd = scd

    def build_sbdc(c: RxConcept) -> None:
        m = re.match(r"^(.*) ([\d.]+) (MG|MG/ML) \[(.+)\]$", c.name)
        assert m, ("cannot parse branded component", c.name)
        ing, st, unit, bn = m.groups()
        inc, pin = ingredient_of(ing)
        b = brand(bn)
        scdc = rx_add("", "SCDC", f"{ing} {st} {unit}", "SYN")
        rx_rel(scdc.rxcui, "has_ingredient", inc.rxcui, "ingredient_of")
        if pin:
            rx_rel(scdc.rxcui, "has_precise_ingredient", pin.rxcui, "precise_ingredient_of")
        rx_rel(c.rxcui, "tradename_of", scdc.rxcui, "has_tradename")
        rx_rel(c.rxcui, "has_ingredient", b.rxcui, "ingredient_of")
        rx_rel(b.rxcui, "tradename_of", inc.rxcui, "has_tradename")

    def build_scdc(c: RxConcept) -> None:
        m = comp_re.match(c.name)
        assert m, ("cannot parse component", c.name)
        ing = m.group(1)
        inc, pin = ingredient_of(ing)
        rx_rel(c.rxcui, "has_ingredient", inc.rxcui, "ingredient_of")
        if pin:
            rx_rel(c.rxcui, "has_precise_ingredient", pin.rxcui, "precise_ingredient_of")

    pack_re = re.compile(r"^\{(.*)\} Pack \[(.+)\]$")

    def build_bpck(c: RxConcept) -> None:
        m = pack_re.match(c.name)
        if not m:
            c.truncated = True  # decomposed after every other id (pack_parts_before_cut)
            return
        c.truncated = False
        contains(c, m.group(1).strip().split(") / "))

    def pack_parts_before_cut(c: RxConcept) -> None:
        """A name cut at 255 characters by OMOP: the components before the cut are whole
        (each closed by its ")"), the cut one is left out."""
        contains(c, c.name.removeprefix("{").split(") / ")[:-1])

    def contains(c: RxConcept, parts: list[str]) -> None:
        for part in parts:
            part = part.strip().rstrip(")").strip()
            _n, drug = part.split(" (", 1)
            scd = rx_by_name.get(drug)
            if scd is None:
                scd = rx_add("", "SCD", drug, "SYN")
                build_scd(scd)
            rx_rel(c.rxcui, "contains", scd.rxcui, "contained_in")

    omop_tty = {
        "Clinical Drug": "SCD",
        "Quant Clinical Drug": "SCD",
        "Branded Drug": "SBD",
        "Quant Branded Drug": "SBD",
        "Branded Drug Comp": "SBDC",
        "Clinical Drug Comp": "SCDC",
        "Branded Pack": "BPCK",
    }
    eun_rx = sorted(
        ((k, v) for k, v in eun_rx_all.items() if v[1] != "Ingredient"), key=lambda x: int(x[0])
    )
    for code, (name, cls) in eun_rx:
        rx_add(
            code, omop_tty[cls], name, "Eunomia", suppress="O" if code == dd.OBSOLETE_RX else "N"
        )
    for code, name, src in dd.NEW_SCD:
        rx_add(code, "SCD", name, src)
    # decompose (obsolete concept keeps its atoms but gets no relationships)
    for c in list(rx_concepts.values()):
        if c.rxcui == dd.OBSOLETE_RX:
            continue
        new_scd = c.name in [n for _, n, _ in dd.NEW_SCD]
        if ((c.tty == "SCD" and c.rxcui in eun_rx_all) or new_scd) and c.ins is None:
            build_scd(c)
    for c in list(rx_concepts.values()):
        if c.rxcui in eun_rx_all and c.tty == "SBD":
            build_sbd(c)
        elif c.rxcui in eun_rx_all and c.tty == "SBDC":
            build_sbdc(c)
        elif c.rxcui in eun_rx_all and c.tty == "SCDC":
            build_scdc(c)
        elif c.rxcui in eun_rx_all and c.tty == "BPCK":
            build_bpck(c)
    for scd_name, bn in dd.NEW_SBD:
        sbd = rx_add("", "SBD", f"{scd_name} [{bn}]", "SYN")
        build_sbd(sbd)

    # loratadine chewable: deliberate wrong dose form in 01062025, corrected in 02032025
    fix = rx_concepts[dd.DIFF_RX["fix_dose_form"]]
    wrong_df, right_df = df_concept("Oral Tablet"), df_concept("Chewable Tablet")
    rxrels = [
        (a, r, b, rela)
        for (a, r, b, rela) in rxrels
        if not ({a, b} == {fix.rxcui, right_df.rxcui} and rela in ("has_dose_form", "dose_form_of"))
    ]
    rx_rel(fix.rxcui, "has_dose_form", wrong_df.rxcui, "dose_form_of")

    # extra atoms: SY / TMSY on RXNORM, MTHSPL, SNOMEDCT_US, CVX
    rx_concepts["313782"].atoms.append(
        [rxaui_seq(), "RXNORM", "SY", "313782", "APAP 325 MG Oral Tablet", None, "313782", "N"]
    )
    rx_concepts["861007"].atoms.append(
        [
            rxaui_seq(),
            "RXNORM",
            "TMSY",
            "861007",
            "metFORMIN hydrochloride 500 MG Oral Tablet",
            None,
            "861007",
            "N",
        ]
    )
    for key, s, unii in dd.MTHSPL_SU:
        c = rx_by_name[key[4:]] if key.startswith("PIN:") else rx_concepts[key]
        c.atoms.append([rxaui_seq(), "MTHSPL", "SU", unii, s, "", "", "N"])
    for rxcui, sct in dd.RX_SNOMED.items():
        pt, fsn = pt_desc(sct), fsn_desc(sct)
        rx_concepts[rxcui].atoms.append(
            [rxaui_seq(), "SNOMEDCT_US", "PT", sct, pt["term"], pt["id"], sct, "N"]
        )
        rx_concepts[rxcui].atoms.append(
            [rxaui_seq(), "SNOMEDCT_US", "FN", sct, fsn["term"], fsn["id"], sct, "N"]
        )
    cvx_rx: dict[str, str] = {}
    for code, name in sorted(eun_cvx.items(), key=lambda x: int(x[0])):
        rxcui = rxcui_seq()
        rx_synth.add(rxcui)
        c = RxConcept(
            rxcui, "PT", name, "N", atoms=[[rxaui_seq(), "CVX", "PT", code, name, "", "", "N"]]
        )
        rx_concepts[rxcui] = c
        rx_source[rxcui] = "SYN (CVX-only concept)"
        cvx_rx[code] = rxcui

    # attributes
    def attributes(c: RxConcept) -> list[RxSat]:
        if not c.atoms or c.atoms[0][1] != "RXNORM" or c.suppress == "O":
            return []
        aui = c.atoms[0][0]
        out: list[RxSat] = []
        if c.tty in ("SCD", "SBD", "BPCK"):
            out.append((c.rxcui, aui, "RXN_HUMAN_DRUG", "US"))
        if c.tty in ("SCD", "SBD") and c.strengths:
            out.append((c.rxcui, aui, "RXN_AVAILABLE_STRENGTH", " / ".join(c.strengths)))
        if c.tty == "SCDC":
            m = comp_re.match(c.name)
            assert m, ("cannot parse component", c.name)
            out.append((c.rxcui, aui, "RXN_STRENGTH", f"{m.group(2)} {m.group(3)}"))
        if c.tty == "BN":
            out.append((c.rxcui, aui, "RXN_BN_CARDINALITY", "single"))
        return out

    rxsat: list[RxSat] = [s for c in rx_concepts.values() for s in attributes(c)]
    for rxcui, ndc in dd.NDC:
        rxsat.append((rxcui, rx_concepts[rxcui].atoms[0][0], "NDC", ndc))
    lay_terms.add_brands(rx_add, rx_rel, in_by_name, rxsat)  # issue 37: after every other RxNorm id
    # issue 37: the truncated packs' whole components, after every other id, so that a pack
    # reaches its ingredients (pack -contains-> drug -> component -> ingredient)
    earlier = set(rx_concepts)
    for c in [c for c in rx_concepts.values() if c.tty == "BPCK" and c.truncated]:
        pack_parts_before_cut(c)
    rxsat += [s for k, c in rx_concepts.items() if k not in earlier for s in attributes(c)]
    # issue 37, fourth pass: brands after the packs' components
    lay_terms.add_brands(rx_add, rx_rel, in_by_name, rxsat, lay_terms.LATER_BRANDS)
    rxsat_atui = {k: rxatui_seq() for k in rxsat}
    rxrel_rui: dict[RxRel, str] = {}
    ids = RxIds(rx_concepts, rxrel_rui, rxrui_seq, rxsat_atui)
    write_rxnorm_release(
        os.path.join(out, "rxnorm"), "RxNorm_full_01062025", rx_concepts, rxrels, rxsat, ids
    )

    # 02032025 diff
    rxc2 = copy.deepcopy(rx_concepts)
    rm_scd, rm_bn = dd.DIFF_RX["remove_sbd"]
    rm = rx_by_name[f"{rm_scd} [{rm_bn}]"].rxcui
    del rxc2[rm]
    rxrels2 = [t for t in rxrels if rm not in (t[0], t[2])]
    rxsat2 = [k for k in rxsat if k[0] != rm]
    rxrels2 = [
        (a, r, b, rela)
        for (a, r, b, rela) in rxrels2
        if not ({a, b} == {fix.rxcui, wrong_df.rxcui} and rela in ("has_dose_form", "dose_form_of"))
    ]
    rxrels2.append((right_df.rxcui, "RO", fix.rxcui, "has_dose_form"))
    rxrels2.append((fix.rxcui, "RO", right_df.rxcui, "dose_form_of"))
    write_rxnorm_release(
        os.path.join(out, "rxnorm"), "RxNorm_full_02032025", rxc2, rxrels2, rxsat2, ids
    )
    diff_rx_log = [
        f"SBD {rm} |{rx_concepts[rm].name}| removed (its RXNCONSO atom, its RXNREL rows in both directions and its RXNSAT rows)",
        f"SCD {fix.rxcui} |{fix.name}|: has_dose_form changed from DF {wrong_df.rxcui} |{wrong_df.name}| (01062025, deliberately wrong) "
        f"to DF {right_df.rxcui} |{right_df.name}| (02032025); both directions, new RUIs",
    ]
    return RxBuild(
        rx_concepts, rx_by_name, rxrels, rxrel_rui, cvx_rx, diff_rx_log, rx_source, rx_synth
    )
