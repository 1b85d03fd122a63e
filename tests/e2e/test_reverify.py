"""Re-verification on a newer vocabulary release, in the real Neo4j: the sample pipeline runs
on the first sample releases, then a UMLS release with two changed relations is loaded (the
sample's 2025AA with "amoxicillin may treat acute bacterial sinusitis" taken out, "<a
distractor of a strep throat treatment item> may treat streptococcal sore throat" put in and
the CUI of another distractor retired, written as real RRF files), and
`reverify` must flag exactly the items a brute-force re-judgement of every assertion and
every distractor finds no longer standing, while re-checking only some of the assertions.
Then the shipped second releases of all three vocabularies are checked the same way, and a
derivation afterwards must leave out what no longer stands.

The tests share the module's graph and run in file order (each builds on the previous)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rdflib import Graph as RDFGraph
from rdflib.namespace import PROV

from kgverify.api import (
    SAMPLE_RELEASES,
    audit,
    derive_qa,
    export_prov,
    lineage,
    load_vocabulary,
    open_verifier,
    reverify,
    sample_path,
    sample_pipeline,
)
from kgverify.audit.prov import ID
from kgverify.audit.reverify import Reverifier, pending_releases, recheck_items
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.derive.justify import Justifier
from kgverify.derive.model import DistractorCheck
from kgverify.graph import Graph
from kgverify.verify.model import VerdictKind
from kgverify.verify.verifier import judge_evidence
from tests.e2e.helpers import rows, value

pytestmark = pytest.mark.neo4j

AMOXICILLIN, BACTERIAL_SINUSITIS = "UMLS:C0002645", "UMLS:C9900024"
STREP_THROAT, STREP_THROAT_CUI = "SNOMEDCT:43878008", "C0036689"
DROPPED_EDGE = f"{AMOXICILLIN}|MAY_TREAT|{BACTERIAL_SINUSITIS}"
# MRREL rows of the changed relations (both directions, as NLM ships them). The dropped pair
# is R900000881/882 of the sample; the new one states that a drug (CUI level, as MTH rows
# without atoms do) may treat streptococcal sore throat (CUI C0036689).
DROPPED_RUIS = {"R900000881", "R900000882"}


def added_rows(drug_cui: str) -> list[str]:
    strep = STREP_THROAT_CUI
    return [
        f"{strep}||CUI|RO|{drug_cui}||CUI|may_treat|R900009001||MED-RT|MED-RT||Y|N||",
        f"{drug_cui}||CUI|RO|{strep}||CUI|may_be_treated_by|R900009002||MED-RT|MED-RT||N|N||",
    ]


def umls_release(dest: Path, name: str, date: str, added: str, retired: str) -> Path:
    """The sample's UMLS 2025AA with the changed relations (``added``: the CUI that may now
    treat strep throat) and without the CUI ``retired`` (every row of it, in every file), as
    release ``name``."""
    meta = dest / name / "META"
    shutil.copytree(sample_path("umls", "2025AA", "META"), meta)
    for table, columns in (("MRCONSO", (0,)), ("MRSTY", (0,)), ("MRDEF", (0,)), ("MRREL", (0, 4))):
        path = meta / f"{table}.RRF"
        lines = path.read_text(encoding="utf-8").splitlines()
        kept = [ln for ln in lines if all(ln.split("|")[c] != retired for c in columns)]
        assert len(kept) < len(lines) or table == "MRDEF", table
        path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    rel = meta / "MRREL.RRF"
    kept = [
        line
        for line in rel.read_text(encoding="utf-8").splitlines()
        if line.split("|")[8] not in DROPPED_RUIS
    ]
    assert len(kept) == len(rel.read_text(encoding="utf-8").splitlines()) - len(DROPPED_RUIS)
    rel.write_text("\n".join(kept + added_rows(added)) + "\n", encoding="utf-8")
    (meta / "release.dat").write_text(
        f"umls.release.name={name}\numls.release.date={date}\n", encoding="utf-8"
    )
    return dest / name


@dataclass
class Pipeline:
    settings: Settings
    graph: Graph
    tmp: Path
    added: str  # the distractor that the test release says may treat strep throat
    retired: str  # the distractor whose CUI the test release retires


def _distractors(graph: Graph, task: str, object_id: str | None = None) -> list[str]:
    """UMLS distractors of current items of ``task`` (about ``object_id``, when given),
    those that answer no item first."""
    return [
        r["id"]
        for r in rows(
            graph,
            "MATCH (i:Item {task: $task})-[:DISTRACTOR]->(d:UMLS) WHERE i.current "
            "AND ($object IS NULL OR EXISTS { (i)-[:RESTS_ON]->(:Assertion)-[:OBJECT]->"
            "(:Concept)-[:MAPS_TO*0..1]-(:Concept {id: $object}) }) "
            "WITH DISTINCT d, EXISTS { (:Item)-[:ANSWER]->(d) } AS answers "
            "RETURN d.id AS id ORDER BY answers, id",
            task=task,
            object=object_id,
        )
    ]


@pytest.fixture(scope="module")
def pipeline(
    graph: Graph, sample_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Pipeline:
    sample_pipeline(graph, sample_settings)
    assert value(graph, "MATCH (i:Item) RETURN count(i)") > 0
    # The release's changes are chosen among what the items use, so they matter.
    added = _distractors(graph, "treatment", STREP_THROAT)[0]
    retired = next(d for d in _distractors(graph, "treatment") if d != added)
    return Pipeline(sample_settings, graph, tmp_path_factory.mktemp("reverify"), added, retired)


def oracle(p: Pipeline) -> tuple[set[str], set[str]]:
    """Brute force, the naive way: judge every rule-decided assertion again and every
    distractor of every current item; return (assertions that no longer pass, items that
    no longer stand)."""
    assertions = rows(
        p.graph,
        "MATCH (a:Assertion) WHERE a.judged = 'evidence' "
        "RETURN a.id AS id, a.subject_id AS s, a.object_id AS o, a.predicate AS p, "
        "a.confidence AS c, a.passed AS passed",
    )
    items = rows(
        p.graph,
        "MATCH (i:Item) WHERE i.current "
        "RETURN i.id AS id, i.checks AS checks, i.task AS task, i.topic AS topic, "
        "i.answer_concept AS answer, i.why_wrong AS why_wrong, "
        "[(i)-[:RESTS_ON]->(a) | a.id] AS basis, [(i)-[:DISTRACTOR]->(d) | d.id] AS ds, "
        "[(i)-[:ANSWER|DISTRACTOR]->(c) WHERE c.active = false | c.id] AS retired, "
        "[(i)-[:FROM_FACT]->(f:Fact)-[:CODED_AS]->(c:Concept) WHERE f.kind = 'condition' | "
        "{fact_id: f.id, concept_id: c.id, start: toString(f.start), end: toString(f.end), "
        "text: coalesce(c.name, c.id)}] AS shown",
    )
    with open_verifier(p.settings, p.graph, write=False) as verifier:
        triples = [(a["s"], a["o"], a["p"]) for a in assertions]
        found = verifier.evidence_for(triples)
        failing = set()
        passing_now = {}
        for a, t in zip(assertions, triples, strict=True):
            kind, _, deciding = judge_evidence(found[t])
            ok = verifier.policy.passes(kind, deciding.score if deciding else 0.0, a["c"])
            passing_now[a["id"]] = ok
            if a["passed"] and not ok:
                failing.add(a["id"])
        # A patient-specific lure treats the condition (a rule may well support it): what
        # rules it out is the patient's record, so support is no second right answer.
        for_patient = {
            (i["id"], w["concept_id"])
            for i in items
            for w in json.loads(i["why_wrong"] or "[]")
            if w.get("lure") == "patient_specific"
        }
        checks = {
            (i["id"], DistractorCheck.model_validate(c).triple(d))
            for i in items
            for c in json.loads(i["checks"])
            for d in i["ds"]
            if (i["id"], d) not in for_patient
        }
        proven = verifier.evidence_for(t for _, t in checks)
        justifier = Justifier(
            p.graph, verifier.hubs, p.settings.derive_near_depth, p.settings.derive_drug_near_depth
        )
        unjustified = recheck_items(
            justifier, [{**i, "distractors": i["ds"]} for i in items if i["topic"]]
        )
    wrong_distractor = {item for item, t in checks if any(x.stance == "support" for x in proven[t])}
    wrong_distractor |= set(unjustified)
    flagged = {
        i["id"]
        for i in items
        if i["retired"]
        or i["id"] in wrong_distractor
        or any(not passing_now.get(b, True) for b in i["basis"])
    }
    return failing, flagged


def items(p: Pipeline, query: str, role: str | None = None, **params: str) -> set[str]:
    """The items an audit query returns (only those in ``role``, when given)."""
    rows = audit(query, params, settings=p.settings, graph=p.graph)
    return {r["item"] for r in rows if role is None or r["role"] == role}


def flagged_items(p: Pipeline) -> set[str]:
    return items(p, "flagged_items")


def test_a_changed_relation_flags_exactly_the_affected_items(pipeline: Pipeline) -> None:
    p = pipeline
    resting = items(
        p, "items_on_edge", start=AMOXICILLIN, type="MAY_TREAT", end=BACTERIAL_SINUSITIS
    )
    with_added = items(p, "items_on_concept", "distractor", concept=p.added)
    with_retired = items(p, "items_on_concept", concept=p.retired)
    strep_items = items(p, "items_on_concept", concept=STREP_THROAT)
    assert resting and with_added & strep_items and with_retired  # the change will matter
    total = value(p.graph, "MATCH (a:Assertion) RETURN count(a)")

    load_vocabulary(
        "umls",
        umls_release(p.tmp, "2025AC", "20260505", p.added[5:], p.retired[5:]),
        settings=p.settings,
        graph=p.graph,
    )
    report = reverify(settings=p.settings, graph=p.graph)

    assert report.releases == ["UMLS@2025AC"]
    assert report.concepts_changed == 1 and report.edges_changed > 2  # its edges retire too
    assert 0 < report.rechecked < total - report.judged_by_links  # only what it touches
    failing, expected = oracle(p)
    assert failing and report.no_longer_passing == len(failing)
    assert flagged_items(p) == expected
    assert report.items_flagged == len(expected)
    # Every kind of change is among them: items resting on the dropped edge whose
    # assertions found no other path, strep throat items whose distractor now treats it
    # (a rule supports it, and its justification no longer holds), the retired distractor.
    assert expected & resting and expected & with_added and expected & with_retired
    assert set(report.flags) == {
        "an assertion it rests on no longer passes",
        "a rule now supports a distractor",
        "a distractor's justification no longer holds",
        "its answer or a distractor concept was retired",
    }
    # Old verdicts stay; new ones are recorded beside them.
    for a in rows(
        p.graph,
        "MATCH (a:Assertion)-[:RECHECKED]->(c:Recheck) WHERE a.id IN $ids "
        "RETURN a.verdict AS was, a.standing_verdict AS now, c.verdict AS rechecked, "
        "c.previous_verdict AS previous, c.changed AS changed",
        ids=sorted(failing),
    ):
        assert a["was"] == a["previous"] == VerdictKind.SUPPORTED
        assert a["now"] == a["rechecked"] != VerdictKind.SUPPORTED and a["changed"]
    # The lineage and its PROV carry the re-check beside the first verdict.
    item = sorted(expected & resting)[0]
    lin = lineage(item, settings=p.settings, graph=p.graph)
    failed = [a for a in lin.assertions if a.recheck is not None and not a.recheck.passed]
    assert failed and all(a.verdict == "supported" != a.standing_verdict for a in failed)
    assert all(a.recheck is not None and a.recheck.run == report.run for a in failed)
    prov = RDFGraph().parse(data=export_prov(item, settings=p.settings, graph=p.graph))
    revised = {str(o) for o in prov.objects(None, PROV.wasRevisionOf)}
    assert revised >= {f"{ID}assertion/{a.id}" for a in failed}
    changed = audit("changed_evidence", settings=p.settings, graph=p.graph)
    assert {r["item"] for r in changed} >= expected & resting
    assert all(DROPPED_EDGE in r["lost"] for r in changed if r["item"] in resting)
    # Nothing flagged outside the oracle's set keeps flags; everything else stands.
    standing = value(p.graph, "MATCH (i:Item) WHERE i.current AND i.standing RETURN count(i)")
    assert standing == value(p.graph, "MATCH (i:Item) WHERE i.current RETURN count(i)") - len(
        expected
    )


def test_a_killed_reverify_run_again_keeps_one_recheck_per_assertion(
    pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35: `reverify` killed after writing its rechecks left them, and its rerun added
    as many again. Rechecks are keyed by assertion and set of releases, so the rerun
    replaces them. The run above is undone as a kill would leave it (its releases pending,
    finish_run never reached), run again and killed after the rechecks (the item check
    interrupted), then run to the end: the graph holds what the clean run wrote."""
    p = pipeline
    recheck_rows = (
        "MATCH (a:Assertion)-[:RECHECKED]->(c:Recheck) "
        "RETURN a.id AS assertion, c.id AS id, c.verdict AS verdict, c.passed AS passed, "
        "c.previous_verdict AS previous, c.changed AS changed, a.standing_verdict AS now "
        "ORDER BY id"
    )
    clean = rows(p.graph, recheck_rows)
    assert clean and len({r["assertion"] for r in clean}) == len(clean)
    flagged = flagged_items(p)
    [last] = rows(
        p.graph,
        "MATCH (r:Reverification {status: 'complete'}) "
        "RETURN r.releases AS releases, r.report AS report ORDER BY r.finished_at DESC LIMIT 1",
    )
    pending = "MATCH (r:Release) WHERE r.id IN $ids SET r.reverified_in = null"
    rows(p.graph, pending, ids=last["releases"])

    def killed(*args: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Reverifier, "_check_items", killed)
    with pytest.raises(KeyboardInterrupt):
        reverify(settings=p.settings, graph=p.graph)
    monkeypatch.undo()
    assert pending_releases(p.graph) == last["releases"]  # the kill left them pending
    assert rows(p.graph, recheck_rows) == clean

    report = reverify(settings=p.settings, graph=p.graph)
    assert rows(p.graph, recheck_rows) == clean
    assert value(p.graph, "MATCH (c:Recheck) RETURN count(c)") == len(clean)
    assert value(p.graph, "MATCH (c:Recheck)-[r:IN_RUN]->() RETURN count(r)") == len(clean)
    assert flagged_items(p) == flagged
    # Items the clean run flagged are flagged before the rerun: it re-runs all their checks.
    again = {"items_flagged", "items_restored", "distractor_checks", "justification_checks"}
    same = report.model_dump(exclude={"run", "seconds", *again})
    was = json.loads(last["report"])
    assert same == {k: v for k, v in was.items() if k in same}
    assert pending_releases(p.graph) == []


def test_a_rerun_without_a_new_release_changes_nothing(pipeline: Pipeline) -> None:
    before = flagged_items(pipeline)
    result = CliRunner().invoke(
        cli, ["reverify", "--json"], env=_env(pipeline.settings), catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["releases"] == [] and report["rechecked"] == 0
    assert report["items_flagged"] == report["items_restored"] == 0
    assert flagged_items(pipeline) == before


def test_the_shipped_second_releases(pipeline: Pipeline) -> None:
    """SNOMED CT 20250601 and RxNorm 02032025 as shipped: an inactivated concept with its
    relationships, a removed drug and a changed dose form. (UMLS 2025AB is older than the
    test's 2025AC, so it is not loaded here.)"""
    p = pipeline
    second = {
        "snomed": ("snomed", "SnomedCT_InternationalRF2_PRODUCTION_20250601T120000Z"),
        "rxnorm": ("rxnorm", "RxNorm_full_02032025"),
    }
    assert set(second) < set(SAMPLE_RELEASES)
    for name, parts in second.items():
        load_vocabulary(name, sample_path(*parts), settings=p.settings, graph=p.graph)
    report = reverify(settings=p.settings, graph=p.graph)
    assert report.releases == ["RXNORM@2025-02-03", "SNOMEDCT@20250601"]
    assert report.concepts_changed == 2 and report.edges_changed > 0
    assert 0 < report.rechecked < report.assertions
    _, expected = oracle(p)
    assert flagged_items(p) == expected


def test_derivation_after_reverify_leaves_out_what_no_longer_stands(pipeline: Pipeline) -> None:
    p = pipeline
    flagged = flagged_items(p)
    derive_qa(p.tmp / "qa-after", settings=p.settings, graph=p.graph)
    assert flagged
    # Items resting on assertions that fail now are not produced again; items whose
    # distractor became right are re-derived with other distractors (a new id), so no
    # current item is flagged.
    assert not flagged_items(p)
    failing = {
        r["id"]
        for r in rows(p.graph, "MATCH (a:Assertion) WHERE NOT a.standing_passed RETURN a.id AS id")
    }
    basis = rows(
        p.graph,
        "MATCH (i:Item)-[:RESTS_ON]->(a:Assertion) WHERE i.current RETURN DISTINCT a.id AS id",
    )
    assert failing.isdisjoint(r["id"] for r in basis)
    # The drug that may now treat strep throat is offered for it only as a lure for this
    # patient: it treats the condition, but the record shows what it is contraindicated for.
    for row in rows(
        p.graph,
        "MATCH (i:Item)-[:DISTRACTOR]->(:Concept {id: $d}) WHERE i.current "
        "MATCH (i)-[:RESTS_ON]->(:Assertion)-[:OBJECT]->(o:Concept) "
        "RETURN o.id AS o, i.why_wrong AS why",
        d=p.added,
    ):
        if row["o"] == STREP_THROAT:
            why = [w for w in json.loads(row["why"]) if w["concept_id"] == p.added]
            assert why and all(w["lure"] == "patient_specific" for w in why), why
            rules = {j["rule"] for w in why for j in w["justifications"]}
            assert rules == {"treatment.contraindicated_for_patient"}, why
    # A re-derivation never offers the concept the release retired.
    offered = rows(
        p.graph,
        "MATCH (i:Item)-[:ANSWER|DISTRACTOR]->(c:Concept) WHERE i.current AND "
        "(c.id = $retired OR NOT coalesce(c.active, true)) RETURN i.id AS item, c.id AS c",
        retired=p.retired,
    )
    assert offered == []


def test_bad_release_names_are_refused(pipeline: Pipeline) -> None:
    result = CliRunner().invoke(
        cli, ["reverify", "--release", "UMLS@1999AA"], env=_env(pipeline.settings)
    )
    assert result.exit_code == 2
    assert result.output.startswith("error: no such release in the graph: UMLS@1999AA")
    assert "Traceback" not in result.output


def _env(settings: Settings) -> dict[str, Any]:
    return {
        "KGVERIFY_NEO4J_HOME": str(settings.local_home),
        "KGVERIFY_BOLT_PORT": str(settings.bolt_port),
        "KGVERIFY_CACHE_DIR": str(settings.cache_dir),
    }
