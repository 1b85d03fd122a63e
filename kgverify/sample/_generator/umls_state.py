# mypy: allow-redefinition
"""The UMLS build's shared state (concepts, atoms, MRREL rows and their id sequences) and the helpers that add to
it; the build's phases (umls_concepts.py, umls_relations.py, umls_waves.py) fill it in order, umls_write.py writes it.
The order of the calls numbers the CUIs, AUIs, NUIs, LUIs, SUIs, RUIs and ATUIs: keep it."""

from __future__ import annotations

from dataclasses import dataclass, field

from kgverify.sample._generator.common import Row, RxConcept, Seq, UmlsConcept

SRL_OF = {
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

STY_INFO = {
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
    "T058": ("B1.3.1", "Health Care Activity"),
    "T059": ("B1.3.1.1", "Laboratory Procedure"),
    "T060": ("B1.3.1.2", "Diagnostic Procedure"),
    "T061": ("B1.3.1.3", "Therapeutic or Preventive Procedure"),
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
    "T191": ("B2.2.1.2.1.2", "Neoplastic Process"),
    "T195": ("A1.4.1.1.2", "Antibiotic"),
    "T197": ("A1.4.1.2.2", "Inorganic Chemical"),
    "T200": ("A1.3.3", "Clinical Drug"),
}

STYPE = {
    "SNOMEDCT_US": "SCUI",
    "RXNORM": "SCUI",
    "MSH": "SDUI",
    "MED-RT": "SCUI",
    "MSHSPA": "SDUI",
    "MSHFRE": "SDUI",
    "ATC": "SCUI",
}


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


def disease_atom(u: UmlsConcept) -> Row | None:
    return pick_atom(u, "MSH") or pick_atom(u, "SNOMEDCT_US")


def medrt_atom(u: UmlsConcept) -> Row:
    return next(a for a in u.atoms if a["sab"] == "MED-RT")


@dataclass
class UmlsState:
    """Everything the UMLS phases share; each phase sets the fields after its comment."""

    rx_concepts: dict[str, RxConcept]
    cui_seq: Seq = field(default_factory=lambda: Seq("C99{:05d}", 0))
    aui_seq: Seq = field(default_factory=lambda: Seq("A9{:07d}", 0))
    lui_seq: Seq = field(default_factory=lambda: Seq("L9{:07d}", 0))
    sui_seq: Seq = field(default_factory=lambda: Seq("S9{:07d}", 0))
    rui_seq: Seq = field(default_factory=lambda: Seq("R9{:08d}", 0))
    atui_seq: Seq = field(default_factory=lambda: Seq("AT9{:08d}", 0))
    nui_seq: Seq = field(default_factory=lambda: Seq("N99{:08d}", 0))
    concepts: dict[str, UmlsConcept] = field(default_factory=dict)
    key2cui: dict[str, str] = field(default_factory=dict)
    cui_src: dict[str, str] = field(default_factory=dict)
    syn_cuis: set[str] = field(default_factory=set)
    rels: list[Row] = field(default_factory=list)
    # umls_concepts.add_concepts
    exclude_from_umls: set[str] = field(default_factory=set)
    drug_in: dict[str, dict[str, str]] = field(default_factory=dict)
    umls_rx: set[str] = field(default_factory=set)
    trans_atoms: list[tuple[str, Row]] = field(default_factory=list)
    medrt_nui: dict[str, str] = field(default_factory=dict)
    sab_info: dict[str, tuple[str, str, str, str]] = field(default_factory=dict)
    src_cui: dict[str, tuple[str, str]] = field(default_factory=dict)
    # umls_waves.add_drug_classes: the second wave of ids starts after late_aui0 / late_mrrel0
    late_aui0: int = 0
    late_mrrel0: int = 0
    late_cuis: set[str] = field(default_factory=set)
    atc_in: list[tuple[str, list[str], str]] = field(default_factory=list)
    atc_class_cui: dict[str, str] = field(default_factory=dict)
    # umls_waves.add_derivation: the third and fourth waves
    late2_aui0: int = 0
    late2_mrrel0: int = 0
    late2_cuis: set[str] = field(default_factory=set)
    late3_aui0: int = 0
    # common_terms.add_extra_terms: terms for earlier concepts, numbered after every other atom
    late4_aui0: int = 0
    late5_aui0: int = 0  # common_terms.FIFTH_TERMS, after every other atom
    late6_aui0: int = 0  # common_terms.SIXTH_TERMS, after the procedures' atoms
    late7_aui0: int = 0  # common_terms.SEVENTH_TERMS, after every other atom
    atc_atom: dict[tuple[str, str], Row] = field(default_factory=dict)
    eun_derive: dict[str, list[int]] = field(default_factory=dict)

    def ucon(self, key: str, cui: str, src: str, stys: list[str]) -> UmlsConcept:
        if key in self.key2cui:
            return self.concepts[self.key2cui[key]]
        if not cui:
            cui = self.cui_seq()
            self.syn_cuis.add(cui)
            src = "SYN"
        if cui in self.concepts:
            u = self.concepts[cui]
        else:
            u = UmlsConcept(cui)
            self.concepts[cui] = u
            self.cui_src[cui] = src
        for s in stys:
            if s not in u.stys:
                u.stys.append(s)
        self.key2cui[key] = cui
        return u

    def atom(
        self,
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
            aui=self.aui_seq(),
            sab=sab,
            tty=tty,
            code=code,
            str=s,
            lat=lat,
            saui=saui,
            scui=scui,
            sdui=sdui,
            suppress=suppress,
            srl=SRL_OF[sab] if srl is None else srl,
        )
        u.atoms.append(a)
        if pref:
            u.pref = a["aui"]
        return a

    def mrrel(
        self,
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
        self.rels.append(
            dict(
                cui1=cui1,
                aui1=a1["aui"] if a1 else "",
                st1=STYPE.get(a1["sab"], "AUI") if a1 else "CUI",
                rel=rel,
                cui2=cui2,
                aui2=a2["aui"] if a2 else "",
                st2=STYPE.get(a2["sab"], "AUI") if a2 else "CUI",
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
        self,
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
        self.mrrel(
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
        self.mrrel(
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

    def atc_class_atom(self, code: str) -> Row:
        return next(a for a in self.concepts[self.atc_class_cui[code]].atoms if a["sab"] == "ATC")

    def medrt_wave(
        self,
        drugs: set[str],
        treat: list[tuple[str, str, str]],
        prevent: list[tuple[str, str, str]],
    ) -> None:
        """A MED-RT atom for each of ``drugs`` that has none yet (in RXCUI order), then the
        may_treat and may_prevent rows of ``treat`` and ``prevent``, in both directions."""
        for d in sorted(drugs - set(self.medrt_nui), key=int):
            nui = self.nui_seq()
            self.medrt_nui[d] = nui
            self.atom(
                self.concepts[self.key2cui["RX:" + d]],
                "MED-RT",
                "PT",
                nui,
                self.rx_concepts[d].name,
                scui=nui,
            )
        for rel_f, rel_i, lst in [
            ("may_treat", "may_be_treated_by", treat),
            ("may_prevent", "may_be_prevented_by", prevent),
        ]:
            for d, dis, _ in lst:
                du, su = self.concepts[self.key2cui["RX:" + d]], self.concepts[self.key2cui[dis]]
                self.pair(du.cui, rel_f, su.cui, rel_i, "MED-RT", medrt_atom(du), disease_atom(su))
