# mypy: allow-redefinition
"""SNOMED CT RF2 20250101 and its 20250601 diff, from snomed_data.py's table."""

from __future__ import annotations

import collections
import copy
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

from kgverify.sample._generator import procedures as pr
from kgverify.sample._generator import snomed_data as sd
from kgverify.sample._generator.common import (
    Row,
    Seq,
    SnomedConcept,
    sctid,
    verhoeff_ok,
    write_lines,
)
from kgverify.sample._generator.eunomia import Eunomia

module = "900000000000207008"
primitive, defined_status = "900000000000074008", "900000000000073002"
fsn_t, syn_t = "900000000000003001", "900000000000013009"
case_ins, case_sens = "900000000000448009", "900000000000017005"
inferred, existential = "900000000000011006", "900000000000451002"
us_refset, preferred, acceptable = (
    "900000000000509007",
    "900000000000548007",
    "900000000000549004",
)
uuid_ns = uuid.UUID("6f1c3a52-8b7e-5d2a-9c41-2e0f5a7b9d10")


def desc_tty(d: Row) -> str:
    """The UMLS term type of an active concept's RF2 description: FN, PT or SY."""
    return "FN" if d["type"] == fsn_t else ("PT" if d["accept"] == preferred else "SY")


@dataclass
class SnomedBuild:
    """What the later vocabularies read from the SNOMED CT build."""

    concepts: dict[str, SnomedConcept]
    desc_by_concept: dict[str, list[Row]]
    rels: list[Row]
    diff_log: list[str]

    def pt_desc(self, cid: str) -> Row:
        return next(
            d for d in self.desc_by_concept[cid] if d["type"] == syn_t and d["accept"] == preferred
        )

    def fsn_desc(self, cid: str) -> Row:
        return next(d for d in self.desc_by_concept[cid] if d["type"] == fsn_t)


def write_concepts(term: str, date: str, concepts: dict[str, SnomedConcept]) -> None:
    """sct2_Concept_Snapshot."""
    lines = ["id\teffectiveTime\tactive\tmoduleId\tdefinitionStatusId"]
    for c in sorted(concepts.values(), key=lambda c: int(c.id)):
        lines.append(
            "\t".join(
                [
                    c.id,
                    c.time,
                    "1" if c.active else "0",
                    module,
                    defined_status if c.defined else primitive,
                ]
            )
        )
    write_lines(os.path.join(term, f"sct2_Concept_Snapshot_INT_{date}.txt"), lines)


def write_descriptions(term: str, date: str, descs: list[Row]) -> None:
    """sct2_Description_Snapshot-en."""
    lines = [
        "id\teffectiveTime\tactive\tmoduleId\tconceptId\tlanguageCode\ttypeId\tterm\tcaseSignificanceId"
    ]
    for d in sorted(descs, key=lambda d: int(d["id"])):
        lines.append(
            "\t".join(
                [
                    d["id"],
                    d["time"],
                    "1" if d["active"] else "0",
                    module,
                    d["concept"],
                    "en",
                    d["type"],
                    d["term"],
                    d["case"],
                ]
            )
        )
    write_lines(os.path.join(term, f"sct2_Description_Snapshot-en_INT_{date}.txt"), lines)


def write_relationships(term: str, date: str, rels: list[Row]) -> None:
    """sct2_Relationship_Snapshot (inferred, existential)."""
    lines = [
        "id\teffectiveTime\tactive\tmoduleId\tsourceId\tdestinationId\trelationshipGroup\ttypeId\tcharacteristicTypeId\tmodifierId"
    ]
    for r in sorted(rels, key=lambda r: int(r["id"])):
        lines.append(
            "\t".join(
                [
                    r["id"],
                    r["time"],
                    "1" if r["active"] else "0",
                    module,
                    r["src"],
                    r["dst"],
                    str(r["group"]),
                    r["type"],
                    inferred,
                    existential,
                ]
            )
        )
    write_lines(os.path.join(term, f"sct2_Relationship_Snapshot_INT_{date}.txt"), lines)


def write_language_refset(base: str, date: str, descs: list[Row]) -> None:
    """der2_cRefset_LanguageSnapshot-en: the US English acceptability of every description."""
    lines = [
        "id\teffectiveTime\tactive\tmoduleId\trefsetId\treferencedComponentId\tacceptabilityId"
    ]
    for d in sorted(descs, key=lambda d: int(d["id"])):
        lines.append(
            "\t".join(
                [
                    str(uuid.uuid5(uuid_ns, d["id"])),
                    d["time"],
                    "1",
                    module,
                    us_refset,
                    d["id"],
                    d["accept"],
                ]
            )
        )
    write_lines(
        os.path.join(
            base, "Refset", "Language", f"der2_cRefset_LanguageSnapshot-en_INT_{date}.txt"
        ),
        lines,
    )


def write_snomed_release(
    root: str, date: str, concepts: dict[str, SnomedConcept], descs: list[Row], rels: list[Row]
) -> None:
    """Writes one RF2 Snapshot release folder."""
    base = os.path.join(root, f"SnomedCT_InternationalRF2_PRODUCTION_{date}T120000Z", "Snapshot")
    term = os.path.join(base, "Terminology")
    write_concepts(term, date, concepts)
    write_descriptions(term, date, descs)
    write_relationships(term, date, rels)
    write_language_refset(base, date, descs)


def build_snomed(out: Path, eun: Eunomia) -> SnomedBuild:
    """Writes OUT/snomed's two releases (the 20250601 one a documented diff of the first)."""
    eun_snomed_all = eun.snomed_all

    def approx_time(cid: str) -> str:
        """Approximate first-release date by identifier range (documented as approximate)."""
        n = int(cid)
        if n >= 700000000000 or cid.startswith("9000000"):
            return "20020131"
        if n >= 700000000:
            return "20170731"
        if n >= 440000000:
            return "20090731"
        if n >= 400000000:
            return "20050131"
        return "20020131"

    def parse_snomed() -> dict[str, SnomedConcept]:
        concepts: dict[str, SnomedConcept] = {}
        for line in sd.TABLE.strip().splitlines():
            f = [x.strip() for x in line.split("|")]
            while len(f) < 7:
                f.append("")
            cid, tag, pt, parents, attrs, syns, fsn = f[:7]
            assert cid not in concepts, cid
            c = SnomedConcept(
                id=cid,
                tag=tag,
                pt=pt,
                fsn=fsn or f"{pt} ({tag})",
                parents=[p for p in parents.split(",") if p],
                attrs=[],
                syns=[s for s in syns.split(";") if s],
                active=True,
                time=approx_time(cid),
            )
            for a in [a for a in attrs.split(";") if a]:
                t, d, g = a.split(":")
                c.attrs.append((sd.ATTR[t], d, int(g)))
            concepts[cid] = c
        for cid, tag, pt, t in sd.RETIRED:
            concepts[cid] = SnomedConcept(
                id=cid,
                tag=tag,
                pt=pt,
                fsn=f"{pt} ({tag})",
                parents=[],
                attrs=[],
                syns=[],
                active=False,
                time=t,
            )
        # checks: Eunomia names, Eunomia coverage, references
        for code, name in eun_snomed_all.items():
            assert code in concepts, ("missing Eunomia SNOMED concept", code, name)
            assert concepts[code].pt == name, (
                "PT differs from Eunomia",
                code,
                concepts[code].pt,
                name,
            )
        for c in concepts.values():
            for p in c.parents:
                assert p in concepts, (c.id, p)
            for t, d, _g in c.attrs:
                assert d in concepts and t in concepts, (c.id, t, d)
            assert verhoeff_ok(c.id) and c.id[-3:-1] == "00", ("bad concept SCTID", c.id)
            c.defined = bool(c.attrs) and c.tag == "disorder" and len(c.attrs) >= 2
        return concepts

    sct_concepts = parse_snomed()

    # descriptions
    desc_seq = Seq("{}", 990000000)
    all_descs: list[Row] = []  # id, time, active, concept, type, term, case, accept
    desc_by_concept: dict[str, list[Row]] = collections.defaultdict(list)

    proper_first = (
        "Alzheimer's",
        "Alzheimer",
        "Escherichia",
        "Streptococcus",
        "Staphylococcus",
        "E.",
    )

    def case_of(term: str) -> str:
        if any(ch.isupper() for ch in term[1:]) or term.split()[0] in proper_first:
            return case_sens
        return case_ins

    def add_descriptions(c: SnomedConcept) -> None:
        """The concept's FSN, preferred term and synonyms, numbered in that order."""
        terms = [(fsn_t, c.fsn, preferred), (syn_t, c.pt, preferred)] + [
            (syn_t, s, acceptable) for s in c.syns
        ]
        seen = set()
        for typ, term, acc in terms:
            assert (typ, term) not in seen, (c.id, term)
            seen.add((typ, term))
            desc: Row = dict(
                id=sctid(desc_seq(), "01"),
                time=c.time,
                active=True,
                concept=c.id,
                type=typ,
                term=term,
                case=case_of(term),
                accept=acc,
            )
            all_descs.append(desc)
            desc_by_concept[c.id].append(desc)

    for c in sct_concepts.values():
        add_descriptions(c)

    # relationships
    rel_seq = Seq("{}", 990000000)
    sct_rels: list[Row] = []  # id, time, active, src, dst, group, type

    def add_rel(
        src: str, typ: str, dst: str, group: int, active: bool = True, time: str | None = None
    ) -> Row:
        r: Row = dict(
            id=sctid(rel_seq(), "02"),
            time=time or max(sct_concepts[src].time, "20020131"),
            active=active,
            src=src,
            dst=dst,
            group=group,
            type=typ,
        )
        sct_rels.append(r)
        return r

    for c in sct_concepts.values():
        for p in c.parents:
            add_rel(c.id, sd.ATTR["isa"], p, 0)
        for t, d, g in c.attrs:
            add_rel(c.id, t, d, g)
    for src, t, dst, g, tm in sd.INACTIVE_RELS_BASE:
        add_rel(src, sd.ATTR[t], dst, g, active=False, time=tm)
    # 20250601 diff
    sct2 = copy.deepcopy(sct_concepts)
    rels2 = copy.deepcopy(sct_rels)
    diff_sct_log: list[str] = []
    ic = sd.DIFF_0601["inactivate_concept"]
    sct2[ic].active = False
    sct2[ic].time = "20250601"
    diff_sct_log.append(
        f"concept {ic} |{sct2[ic].fsn}| inactivated (active=0, effectiveTime 20250601)"
    )
    for r in rels2:
        if r["src"] == ic and r["active"]:
            r["active"], r["time"] = False, "20250601"
            diff_sct_log.append(
                f"relationship {r['id']} ({r['src']} -{r['type']}-> {r['dst']}) inactivated with its source concept"
            )
    s, t, d, g = sd.DIFF_0601["inactivate_rel"]
    for r in rels2:
        if (r["src"], r["type"], r["dst"], r["group"]) == (s, sd.ATTR[t], d, g) and r["active"]:
            r["active"], r["time"] = False, "20250601"
            diff_sct_log.append(
                f"relationship {r['id']} ({s} -{sd.ATTR[t]} {sct_concepts[sd.ATTR[t]].pt}-> {d}, group {g}) inactivated"
            )
    s, t, d, g = sd.DIFF_0601["add_rel"]
    nr = dict(
        id=sctid(rel_seq(), "02"),
        time="20250601",
        active=True,
        src=s,
        dst=d,
        group=g,
        type=sd.ATTR[t],
    )
    rels2.append(nr)
    diff_sct_log.append(
        f"relationship {nr['id']} ({s} -{sd.ATTR[t]} {sct_concepts[sd.ATTR[t]].pt}-> {d}, group {g}) added (effectiveTime 20250601)"
    )
    # Procedures (issue 37, sixth pass): in both releases, their description and
    # relationship ids after every earlier one (the 20250601 diff's included)
    for p in pr.PROCEDURES:
        assert p.sctid not in sct_concepts, ("procedure already a sample concept", p.sctid)
        assert verhoeff_ok(p.sctid) and p.sctid[-3:-1] == "00", ("bad SCTID", p.sctid)
        if p.eunomia:
            assert eun.procedures.get(p.sctid) == p.name, ("not Eunomia's name", p.sctid)
        else:
            assert p.sctid not in eun.procedures, ("Eunomia codes it", p.sctid)
        c = SnomedConcept(
            id=p.sctid,
            tag="procedure",
            pt=p.name,
            fsn=f"{p.name} (procedure)",
            parents=[p.parent],
            attrs=[],
            syns=list(p.synonyms),
            active=True,
            time=approx_time(p.sctid),
        )
        assert p.parent in sct_concepts, (p.sctid, p.parent)  # parents come first
        sct_concepts[c.id] = c
        sct2[c.id] = copy.deepcopy(c)
        add_descriptions(c)
        rels2.append(copy.deepcopy(add_rel(c.id, sd.ATTR["isa"], p.parent, 0)))
    missing = set(eun.procedures) - set(sct_concepts) - set(pr.LEFT_OUT)
    assert not missing, ("Eunomia procedures neither loaded nor left out", sorted(missing))
    write_snomed_release(os.path.join(out, "snomed"), "20250101", sct_concepts, all_descs, sct_rels)
    write_snomed_release(os.path.join(out, "snomed"), "20250601", sct2, all_descs, rels2)
    return SnomedBuild(sct_concepts, desc_by_concept, sct_rels, diff_sct_log)
