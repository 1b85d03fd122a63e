# mypy: allow-redefinition
"""UMLS 2025AA and its 2025AB diff: the identifiers numbered at write time (LUI, SUI, ATUI, RUI), the preferred
names, and the META files."""

from __future__ import annotations

import collections
import copy
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from kgverify.sample._generator import umls_data as ud
from kgverify.sample._generator.common import Row, UmlsConcept, rrf, write_lines
from kgverify.sample._generator.rxnorm_write import RxBuild
from kgverify.sample._generator.umls_state import (
    SRL_OF,
    STY_INFO,
    UmlsState,
    disease_atom,
    medrt_atom,
)

PREF_RANK = [
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


def norm(s: str) -> str:
    w = re.sub(r"[^\w\s]", " ", s.lower()).split()
    return " ".join(sorted(w))


@dataclass
class UmlsIds:
    """The LUIs, SUIs, ATUIs and RUIs numbered on first use, shared by both releases."""

    st: UmlsState
    lui_of: dict[str, str] = field(default_factory=dict)
    sui_of: dict[str, str] = field(default_factory=dict)
    sty_atuis: dict[tuple[str, str], str] = field(default_factory=dict)
    rui_of: dict[tuple[str, ...], str] = field(default_factory=dict)
    def_atuis: dict[tuple[str, str], str] = field(default_factory=dict)

    def wave(self, a: Row) -> int:
        """0: the earlier sample, 1: added with the drug classes, 2: added for derivation, 3: the
        consumer terms and common concepts, 4: more terms for earlier concepts, 5: the fifth
        pass's terms and the procedures, 6: the sixth pass's terms for earlier concepts, 7: the
        seventh pass's."""
        n = int(a["aui"][2:])  # AUIs are 'A9' + the sequence number
        return (
            0
            if n <= self.st.late_aui0
            else 1
            if n <= self.st.late2_aui0
            else 2
            if n <= self.st.late3_aui0
            else 3
            if n <= self.st.late4_aui0
            else 4
            if n <= self.st.late5_aui0
            else 5
            if n <= self.st.late6_aui0
            else 6
            if n <= self.st.late7_aui0
            else 7
        )

    def finalise(
        self, ucon_map: dict[str, UmlsConcept], override: dict[str, tuple[str, str, str]]
    ) -> None:
        # LUIs/SUIs in atom order, those of the atoms added with the drug classes after all others, and those added
        # for derivation after them
        for w in (0, 1, 2, 3, 4, 5, 6, 7):
            for u in ucon_map.values():
                for a in u.atoms:
                    if self.wave(a) == w:
                        a["lui"] = self.lui_of.setdefault(norm(a["str"]), self.st.lui_seq())
                        a["sui"] = self.sui_of.setdefault(a["str"], self.st.sui_seq())
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
                                PREF_RANK.index((a["sab"], a["tty"]))
                                if (a["sab"], a["tty"]) in PREF_RANK
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
                        PREF_RANK.index((a["sab"], a["tty"]))
                        if (a["sab"], a["tty"]) in PREF_RANK
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

    def sty_atui(self, cui: str, t: str) -> str:
        if (cui, t) not in self.sty_atuis:
            self.sty_atuis[(cui, t)] = self.st.atui_seq()
        return self.sty_atuis[(cui, t)]

    def rel_rui(self, r: Row) -> str:
        k = (r["cui1"], r["aui1"], r["rel"], r["cui2"], r["aui2"], r["rela"], r["sab"])
        if k not in self.rui_of:
            self.rui_of[k] = self.st.rui_seq()
        return self.rui_of[k]

    def def_atui(self, cui: str) -> str:
        if ("DEF", cui) not in self.def_atuis:
            self.def_atuis[("DEF", cui)] = self.st.atui_seq()
        return self.def_atuis[("DEF", cui)]

    def reserve_ids(
        self,
        ucon_map: dict[str, UmlsConcept],
        mrrel_rows: list[Row],
        cuis: set[str],
        defs: bool = True,
    ) -> None:
        """Numbers the ids that write_umls numbers on first use (MRSTY ATUIs in CUI order, MRREL RUIs in row order,
        MRDEF ATUIs), for the given concepts and rows, in write_umls's order."""
        for cui in sorted(c for c in ucon_map if c in cuis):
            for t in ucon_map[cui].stys:
                self.sty_atui(cui, t)
        for r in mrrel_rows:
            self.rel_rui(r)
        for key in ud.DEFS if defs else ():
            if self.st.key2cui[key] in ucon_map:
                self.def_atui(self.st.key2cui[key])


def write_mrconso(meta: str, ucon_map: dict[str, UmlsConcept]) -> None:
    """MRCONSO: atoms by CUI, the preferred first."""
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


def write_mrsty(meta: str, ucon_map: dict[str, UmlsConcept], ids: UmlsIds) -> None:
    """MRSTY: semantic types by CUI."""
    lines = []
    for cui in sorted(ucon_map):
        for t in ucon_map[cui].stys:
            lines.append(rrf([cui, t, STY_INFO[t][0], STY_INFO[t][1], ids.sty_atui(cui, t), ""]))
    write_lines(os.path.join(meta, "MRSTY.RRF"), lines)


def write_mrrel(meta: str, mrrel_rows: list[Row], ids: UmlsIds) -> None:
    """MRREL: the rows in build order."""
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
                    ids.rel_rui(r),
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


def write_mrdef(meta: str, ucon_map: dict[str, UmlsConcept], ids: UmlsIds) -> None:
    """MRDEF: definitions (umls_data.DEFS) of the release's concepts."""
    lines = []
    for key, text in ud.DEFS.items():
        cui = ids.st.key2cui[key]
        if cui not in ucon_map:
            continue
        lines.append(
            rrf([cui, ucon_map[cui].pref_atom["aui"], ids.def_atui(cui), "", "MTH", text, "N", ""])
        )
    write_lines(os.path.join(meta, "MRDEF.RRF"), sorted(lines))


def write_mrsab(meta: str, rel: str, ucon_map: dict[str, UmlsConcept], ids: UmlsIds) -> None:
    """MRSAB: one row per source, with its atom and concept counts."""
    lines = []
    for sab, (vsab, son, sver, lic) in ids.st.sab_info.items():
        atoms = [(cui, a) for cui, u in ucon_map.items() for a in u.atoms if a["sab"] == sab]
        ttys = sorted({a["tty"] for _, a in atoms})
        lat = sorted({a["lat"] for _, a in atoms})
        vcui, rcui = ids.st.src_cui.get(sab, ("", ""))
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
                    SRL_OF[sab],
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


def write_umls_release(
    root: str,
    rel: str,
    ucon_map: dict[str, UmlsConcept],
    mrrel_rows: list[Row],
    ids: UmlsIds,
    extra_files: dict[str, list[str]],
) -> None:
    """Writes one release's META folder; the files' order numbers the ids they number on first use."""
    meta = os.path.join(root, rel, "META")
    write_mrconso(meta, ucon_map)
    write_mrsty(meta, ucon_map, ids)
    write_mrrel(meta, mrrel_rows, ids)
    write_mrdef(meta, ucon_map, ids)
    write_mrsab(meta, rel, ucon_map, ids)
    for fn, content in extra_files.items():
        write_lines(os.path.join(meta, fn), content)


def write_umls(out: Path, st: UmlsState, rx: RxBuild) -> list[str]:
    """Writes OUT/umls's two releases (2025AB a documented diff of 2025AA) and returns the diff log."""
    umls_concepts = st.concepts
    key2cui = st.key2cui
    umls_rels = st.rels
    pair = st.pair
    late_mrrel0 = st.late_mrrel0
    late_cuis = st.late_cuis
    late2_mrrel0 = st.late2_mrrel0
    late2_cuis = st.late2_cuis
    rx_concepts = rx.concepts

    ids = UmlsIds(st)
    finalise, reserve_ids = ids.finalise, ids.reserve_ids
    finalise(umls_concepts, {key2cui["38341003"]: ("SNOMEDCT_US", "SY", "Hypertensive disease")})
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
    write_umls_release(
        os.path.join(out, "umls"),
        "2025AA",
        umls_concepts,
        umls_rels,
        ids,
        {"release.dat": release_aa},
    )
    write_umls_release(
        os.path.join(out, "umls"),
        "2025AB",
        ucon2,
        mrrel2,
        ids,
        {"release.dat": release_ab, "MRCUI.RRF": mrcui},
    )
    diff_ab_log = [
        f"CUI {retired} |{umls_concepts[retired].pref_atom['str']}| removed: all its MRCONSO, MRSTY, MRDEF and MRREL rows; MRCUI.RRF row `{mrcui[0]}`",
        f"may_treat removed: {rx_concepts[rd[3:]].name} (CUI {d_cui}) may_treat {umls_concepts[s_cui].pref_atom['str']} (CUI {s_cui}) - both directions",
        f"may_treat added: {rx_concepts[ad[3:]].name} (CUI {du.cui}) may_treat {umls_concepts[su.cui].pref_atom['str']} (CUI {su.cui}) - both directions (new RUIs)",
        f"preferred name of {rn_cui} changed from '{old_pref}' to '{ucon2[rn_cui].pref_atom['str']}' (TS/STT/ISPREF of its atoms recomputed; atoms unchanged)",
    ]

    return diff_ab_log
