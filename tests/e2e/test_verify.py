"""Verification rules against the sample vocabularies in the real Neo4j: each rule with
positive and negative cases, planted hallucinations, provenance written back idempotently,
and hostile or bad input."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgverify.api import (
    extract_relations,
    ingest_source,
    open_verifier,
    sample_path,
    verify_relations_file,
)
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.extract.relation import CandidateRelation, ExtractorInfo, Mention, Predicate
from kgverify.graph import Graph
from kgverify.verify.model import Verdict, VerdictKind, read_verdicts
from kgverify.verify.rules import RULES
from kgverify.verify.verifier import Verifier

pytestmark = pytest.mark.neo4j

LLM = ExtractorInfo(name="openai", version="test", model="planted")


@pytest.fixture(scope="module")
def verifier(sample_graph: Graph, sample_settings: Settings) -> Iterator[Verifier]:
    with open_verifier(sample_settings, sample_graph, write=False) as v:
        yield v


def rel(
    subject: str | Mention, predicate: str, obj: str | Mention, patient: str = "p-test"
) -> CandidateRelation:
    def mention(m: str | Mention) -> Mention:
        return m if isinstance(m, Mention) else Mention(text=m)

    return CandidateRelation(
        patient_id=patient,
        subject=mention(subject),
        predicate=Predicate(predicate),
        object=mention(obj),
        extractor=LLM,
        confidence=0.9,
    )


def judge(verifier: Verifier, *relations: CandidateRelation) -> list[Verdict]:
    return verifier.verify(list(relations))


def edge_types(verdict: Verdict) -> list[str]:
    return [e.type for e in verdict.evidence[0].edges]


# -- rules: positive and negative ----------------------------------------------------------


def test_direct_rule(verifier: Verifier) -> None:
    true, false = judge(
        verifier,
        rel("metformin", "treats", "type 2 diabetes mellitus"),
        rel("amoxicillin", "treats", "type 2 diabetes mellitus"),
    )
    assert (true.verdict, true.rule, true.score) == (VerdictKind.SUPPORTED, "direct.support", 1.0)
    assert true.evidence[0].edges[0].model_dump() == {
        "start": "UMLS:C0025598",
        "type": "MAY_TREAT",
        "end": "UMLS:C0011860",
    }
    assert true.rule_version == next(r.version for r in RULES if r.name == "direct")
    assert true.passed
    assert (false.verdict, false.evidence, false.passed) == (VerdictKind.UNSUPPORTED, [], False)


def test_crossing_vocabularies_through_mappings(verifier: Verifier) -> None:
    [v] = judge(
        verifier,
        rel(
            Mention(text="x", code_system="RXNORM", code="6809"),
            "treats",
            Mention(text="y", code_system="SNOMEDCT", code="44054006"),
        ),
    )
    assert v.verdict is VerdictKind.SUPPORTED and v.rule == "direct.support"
    path = v.evidence[0]
    assert path.nodes[0] == "RXNORM:6809" and path.nodes[-1] == "SNOMEDCT:44054006"
    assert edge_types(v) == ["MAPS_TO", "MAY_TREAT", "MAPS_TO"]


def test_ancestor_rule_climbs_from_the_object_only(verifier: Verifier) -> None:
    child, parent = judge(
        verifier,
        # MED-RT: lisinopril may_treat hypertensive disease; essential hypertension is-a it.
        rel("lisinopril", "treats", "essential hypertension"),
        # ... which says nothing about the disorders above hypertensive disease.
        rel("lisinopril", "treats", "disorder of cardiovascular system"),
    )
    assert child.verdict is VerdictKind.SUPPORTED and child.rule == "ancestor.support"
    assert child.evidence[0].depth == 1 and child.score == pytest.approx(0.85)
    assert "IS_A" in edge_types(child)
    assert parent.verdict is VerdictKind.UNSUPPORTED


def test_hubs_never_count_as_evidence(
    sample_graph: Graph, sample_settings: Settings, verifier: Verifier
) -> None:
    for hub in ("SNOMEDCT:64572001", "SNOMEDCT:404684003", "UMLS:C0012634"):  # Disease, ...
        assert hub in verifier.hubs
    # Make "hypertensive disease" a hub: the ancestor path through it no longer counts,
    # though the vocabulary edge is still there.
    strict = sample_settings.model_copy(update={"verify_hub_ids": ["UMLS:C0020538"]})
    with open_verifier(strict, sample_graph, write=False) as v:
        [child] = judge(v, rel("lisinopril", "treats", "essential hypertension"))
        [direct] = judge(v, rel("lisinopril", "treats", "hypertensive disease"))
    assert child.verdict is VerdictKind.UNSUPPORTED
    assert direct.verdict is VerdictKind.SUPPORTED  # the relation's own concept is no hub


def test_ingredient_rule_normalizes_brands_and_products(verifier: Verifier) -> None:
    brand, product, wrong = judge(
        verifier,
        rel("Glucophage", "treats", "T2DM"),
        rel(
            Mention(text="metformin tablet", code_system="RXNORM", code="861007"),
            "treats",
            "type 2 diabetes mellitus",
        ),
        rel("Glucophage", "treats", "asthma"),
    )
    assert brand.verdict is VerdictKind.SUPPORTED and brand.rule == "ingredient.support"
    assert "TRADENAME_OF" in edge_types(brand)
    assert product.verdict is VerdictKind.SUPPORTED and product.rule == "ingredient.support"
    assert {"CONSISTS_OF", "HAS_INGREDIENT"} & set(edge_types(product))
    assert wrong.verdict is VerdictKind.UNSUPPORTED


def test_contradicting_evidence(verifier: Verifier) -> None:
    contraindicated, reversed_cause, true_cause = judge(
        verifier,
        rel("ibuprofen", "treats", "peptic ulcer"),
        rel("pathological fracture due to osteoporosis", "leads_to", "osteoporosis"),
        rel("osteoporosis", "leads_to", "pathological fracture due to osteoporosis"),
    )
    assert contraindicated.verdict is VerdictKind.CONTRADICTED
    assert contraindicated.rule == "direct.contradict"
    assert edge_types(contraindicated) == ["CONTRAINDICATED_FOR"]
    assert not contraindicated.passed
    assert reversed_cause.verdict is VerdictKind.CONTRADICTED
    assert true_cause.verdict is VerdictKind.SUPPORTED
    assert true_cause.evidence[0].edges[0].type == "DUE_TO"


def test_documented_sequelae_support_leads_to_and_nothing_around_them(verifier: Verifier) -> None:
    """The sample's documented sequelae (``label_knowledge.DUE_TO``): a viral sinusitis leads
    to an acute bacterial sinusitis (the MTH due_to row, cited), the reverse is contradicted,
    and neither the generic sinusitis nor a kind of the cause that is no viral sinusitis
    borrows the row (only the object climbs)."""

    def coded(text: str, code: str) -> Mention:
        return Mention(text=text, code_system="SNOMEDCT", code=code)

    viral = coded("Viral sinusitis", "444814009")
    bacterial = coded("Acute bacterial sinusitis", "75498004")
    sequel, reverse, generic, chronic = judge(
        verifier,
        rel(viral, "leads_to", bacterial),
        rel(bacterial, "leads_to", viral),
        rel(viral, "leads_to", coded("Sinusitis", "36971009")),
        rel(bacterial, "leads_to", coded("Chronic sinusitis", "40055000")),
    )
    assert sequel.verdict is VerdictKind.SUPPORTED and sequel.passed
    [due] = [e for e in sequel.evidence[0].edges if e.type == "DUE_TO"]
    assert (due.start, due.end) == ("UMLS:C9900024", "UMLS:C9900023")  # outcome -> cause
    assert reverse.verdict is VerdictKind.CONTRADICTED
    assert generic.verdict is VerdictKind.UNSUPPORTED
    assert chronic.verdict is VerdictKind.UNSUPPORTED


def test_indicates_uses_manifestations(verifier: Verifier) -> None:
    true, false = judge(
        verifier,
        rel("polyuria", "indicates", "type 2 diabetes mellitus"),
        rel("chest pain", "indicates", "type 2 diabetes mellitus"),
    )
    assert true.verdict is VerdictKind.SUPPORTED
    assert true.evidence[0].edges[0].model_dump() == {
        "start": "UMLS:C0011860",
        "type": "HAS_MANIFESTATION",
        "end": "UMLS:C0032617",
    }
    assert false.verdict is VerdictKind.UNSUPPORTED


def test_linking_outcomes_become_verdicts(verifier: Verifier) -> None:
    unlinked, wrong_kind, ambiguous = judge(
        verifier,
        rel("quantum flux capacitor", "treats", "asthma"),
        rel("metformin", "treats", "metformin"),
        rel("aspirin", "treats", "MI"),
    )
    assert unlinked.verdict is VerdictKind.UNLINKED and "subject" in unlinked.reason
    assert wrong_kind.verdict is VerdictKind.TYPE_MISMATCH and "object" in wrong_kind.reason
    assert ambiguous.verdict is VerdictKind.AMBIGUOUS
    assert not any(v.passed for v in (unlinked, wrong_kind, ambiguous))


def test_planted_hallucinations(verifier: Verifier) -> None:
    """True relations and hallucinated ones mixed in one batch, as an extractor emits them."""
    planted: list[tuple[CandidateRelation, set[VerdictKind]]] = [
        (rel("metformin", "treats", "type 2 diabetes mellitus"), {VerdictKind.SUPPORTED}),
        (rel("atorvastatin", "treats", "hyperlipidemia"), {VerdictKind.SUPPORTED}),
        (rel("albuterol", "treats", "asthma"), {VerdictKind.SUPPORTED}),
        (rel("levothyroxine", "treats", "hypothyroidism"), {VerdictKind.SUPPORTED}),
        (rel("polydipsia", "indicates", "type 2 diabetes mellitus"), {VerdictKind.SUPPORTED}),
        # Hallucinations: a drug with a disease it does not treat, a finding that does not
        # indicate the diagnosis, a drug for a condition it is contraindicated in.
        (rel("albuterol", "treats", "hypothyroidism"), {VerdictKind.UNSUPPORTED}),
        (rel("levothyroxine", "treats", "asthma"), {VerdictKind.UNSUPPORTED}),
        (rel("metformin", "treats", "atrial fibrillation"), {VerdictKind.UNSUPPORTED}),
        (rel("polyuria", "indicates", "asthma"), {VerdictKind.UNSUPPORTED}),
        (
            rel("naproxen", "treats", "peptic ulcer"),
            {VerdictKind.CONTRADICTED, VerdictKind.UNSUPPORTED},
        ),
    ]
    verdicts = judge(verifier, *(r for r, _ in planted))
    for (relation, expected), verdict in zip(planted, verdicts, strict=True):
        assert verdict.verdict in expected, (relation.subject.text, relation.object.text, verdict)
        if verdict.verdict is VerdictKind.SUPPORTED:
            assert verdict.evidence and verdict.evidence[0].edges
    assert verdicts[-1].verdict is VerdictKind.CONTRADICTED


def test_enrichment_of_passing_relations(sample_graph: Graph, sample_settings: Settings) -> None:
    with open_verifier(sample_settings, sample_graph, write=False) as v:
        [true, false] = v.verify(
            [
                rel("Glucophage", "treats", "type 2 diabetes mellitus"),
                rel("amoxicillin", "treats", "type 2 diabetes mellitus"),
            ]
        )
    assert false.enrichment is None
    e = true.enrichment
    assert e is not None
    assert e.subject_name == "Glucophage" and e.object_name == "Diabetes Mellitus, Type 2"
    assert "SNOMEDCT:44054006" in e.codes["object"] and "RXNORM:9900332" in e.codes["subject"]
    assert "Diabetes mellitus" in e.object_ancestors
    assert not {"Disease", "Clinical finding"} & set(e.object_ancestors)
    assert e.distractors and "UMLS:C0025598" not in e.distractors
    # Every distractor really has no support path to the object.
    with open_verifier(sample_settings, sample_graph, write=False) as v:
        checks = v.verify(
            [
                rel(
                    Mention(text=d, code_system=d.split(":")[0], code=d.split(":")[1]),
                    "treats",
                    Mention(text="t2dm", code_system="UMLS", code="C0011860"),
                )
                for d in e.distractors
            ]
        )
    assert all(c.verdict is not VerdictKind.SUPPORTED for c in checks)


def test_distractors_leave_out_what_the_patient_has_whatever_was_read_before(
    sample_graph: Graph, sample_settings: Settings
) -> None:
    """A triple's enrichment is read once and kept for the run; each relation's distractors
    then leave out the concepts its own patient has a fact of, and only then are cut to
    ``verify_distractors``: the same list the enrichment statement gave per patient before
    it was kept."""
    with open_verifier(
        sample_settings.model_copy(update={"verify_distractors": 100}), sample_graph, write=False
    ) as v:
        [whole] = v.verify([rel("amoxicillin", "treats", "acute bacterial sinusitis", "p-none")])
    assert whole.enrichment is not None
    full = whole.enrichment.distractors
    assert len(full) >= 5, full
    owned = [full[0], full[2]]
    sample_graph.run_adhoc(
        "CREATE (p:Patient {id: 'p-owns'}) WITH p UNWIND $ids AS cid "
        "MATCH (c:Concept {id: cid}) "
        "CREATE (p)-[:HAS_FACT]->(:Fact {id: 'f-' + cid, kind: 'condition'})-[:CODED_AS]->(c)",
        {"ids": owned},
        write=True,
    )
    try:
        few = sample_settings.model_copy(update={"verify_distractors": 3})
        with open_verifier(few, sample_graph, write=False) as v:
            batches = [
                v.verify(
                    [
                        rel("amoxicillin", "treats", "acute bacterial sinusitis", p)
                        for p in ("p-none", "p-owns")
                    ]
                )
                for _ in range(2)  # the second from the kept enrichment
            ]
        for none, owns in batches:
            assert none.enrichment is not None and owns.enrichment is not None
            assert none.enrichment.distractors == full[:3]
            assert owns.enrichment.distractors == [d for d in full if d not in owned][:3]
    finally:
        sample_graph.run_adhoc(
            "MATCH (p:Patient {id: 'p-owns'})-[:HAS_FACT]->(f:Fact) DETACH DELETE p, f",
            {},
            write=True,
        )


# -- provenance, files and bad input --------------------------------------------------------


@pytest.fixture(scope="module")
def ingested(sample_graph: Graph, sample_settings: Settings) -> Path:
    ingest_source(
        "omop", sample_path("omop", "eunomia_sample"), settings=sample_settings, graph=sample_graph
    )
    out = sample_settings.cache_dir / "relations.jsonl"
    extract_relations("omop", sample_path("omop", "eunomia_sample"), out, settings=sample_settings)
    return out


def count(graph: Graph, cypher: str) -> int:
    return int(graph._driver.execute_query(cypher).records[0][0])


def test_assertions_are_written_back_idempotently(
    sample_graph: Graph, sample_settings: Settings, ingested: Path
) -> None:
    lines = ingested.read_text().splitlines()[:300]
    source = sample_settings.cache_dir / "subset.jsonl"
    source.write_text("\n".join(lines) + "\n")
    first = verify_relations_file(
        source, sample_settings.cache_dir / "v1.jsonl", settings=sample_settings, graph=sample_graph
    )
    assert first.read == first.verified == first.written == 300
    assert first.unknown_patients == 0
    shape = {
        q: count(sample_graph, q)
        for q in (
            "MATCH (a:Assertion) RETURN count(a)",
            "MATCH (:Assertion)-[r]->() RETURN count(r)",
            "MATCH (r:Rule) RETURN count(r)",
        )
    }
    assert shape["MATCH (a:Assertion) RETURN count(a)"] == len(
        {json.loads(x)["relation_id"] for x in lines}
    )
    again = verify_relations_file(
        source, sample_settings.cache_dir / "v2.jsonl", settings=sample_settings, graph=sample_graph
    )
    assert again.written == 300
    assert {q: count(sample_graph, q) for q in shape} == shape
    # The provenance of a supported relation: facts, concepts, evidence, rule version.
    supported = next(v for v in read_verdicts(sample_settings.cache_dir / "v1.jsonl") if v.passed)
    rows = sample_graph._driver.execute_query(
        "MATCH (a:Assertion {id: $id}) "
        "RETURN a.verdict AS verdict, "
        "COUNT { (a)-[:FROM_FACT]->(:Fact) } AS facts, "
        "COUNT { (a)-[:ABOUT]->(:Patient) } AS patients, "
        "[(a)-[:DECIDED_BY]->(r:Rule) | r.key] AS rules, "
        "[(a)-[:EVIDENCE]->(c) | c.id] AS evidence, "
        "[(a)-[:SUBJECT]->(c) | c.id] AS subject",
        id=supported.relation_id,
    ).records[0]
    assert rows["verdict"] == "supported" and rows["patients"] == 1
    assert rows["facts"] == len(set(supported.relation.evidence)) > 0
    assert rows["rules"] == [f"{supported.rule}@{supported.rule_version}"]
    assert set(rows["evidence"]) == {n for p in supported.evidence for n in p.nodes}
    assert rows["subject"] == [supported.subject.concept_id]


def test_evidence_kept_between_batches_decides_the_same(
    sample_graph: Graph, sample_settings: Settings, ingested: Path
) -> None:
    """The sample's relations in batches of 25: with the evidence kept between batches,
    without it, and with room for 5 triples, the verdicts are the same; the counts say
    what was read and what was kept, and the kept evidence stays within its bound."""
    from kgverify.link.relations import LinkReport, link_relations
    from kgverify.verify.report import read_relations_any

    relations = [r for r in read_relations_any(ingested) if isinstance(r, CandidateRelation)]
    with open_verifier(sample_settings, sample_graph) as linking:
        linked = list(link_relations(relations, linking.linker, LinkReport()))
    runs = {}
    for room in (20_000, 0, 5):
        settings = sample_settings.model_copy(update={"verify_cache": room})
        with open_verifier(settings, sample_graph) as v:
            runs[room] = ([x.model_dump_json() for x in v.iter_verify(linked, 25)], v)
            assert len(v._evidence) <= room
    kept, none, small = runs[20_000][1], runs[0][1], runs[5][1]
    assert runs[20_000][0] == runs[0][0] == runs[5][0]
    assert len(runs[0][0]) == len(relations) > 1_000
    triples = {
        (r.subject.concept_id, r.object.concept_id, r.relation.predicate.value)
        for r in linked
        if r.subject.concept_id is not None and r.object.concept_id is not None
    }
    assert kept.evidence_read == len(triples) and kept.evidence_cached > 0
    assert none.evidence_cached == 0 and none.evidence_read > kept.evidence_read
    assert kept.evidence_read < small.evidence_read < none.evidence_read
    # what evidence_for hands out is the caller's own list
    some = next(t for t in sorted(triples) if none.evidence_for([t])[t])
    kept.evidence_for([some])[some].clear()
    assert kept.evidence_for([some])[some] == none.evidence_for([some])[some] != []


def test_hostile_text_is_only_ever_a_parameter(sample_graph: Graph, verifier: Verifier) -> None:
    before = count(sample_graph, "MATCH (n) RETURN count(n)")
    hostile = [
        "x'}) MATCH (n) DETACH DELETE n //",
        "`Concept` RETURN 1 UNION MATCH (n) DETACH DELETE n",
        '"; CALL db.clearQueryCaches() //',
    ]
    verdicts = judge(verifier, *(rel(text, "treats", text) for text in hostile))
    assert all(v.verdict in {VerdictKind.UNLINKED, VerdictKind.TYPE_MISMATCH} for v in verdicts)
    assert count(sample_graph, "MATCH (n) RETURN count(n)") == before


def test_cli_rejects_bad_lines_and_reports_unknown_patients(
    sample_graph: Graph,
    cli_env: Settings,
    sample_settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(sample_settings.cache_dir))
    good = rel("metformin", "treats", "type 2 diabetes mellitus", patient="nobody")
    unknown_predicate: dict[str, Any] = json.loads(good.model_dump_json())
    unknown_predicate["predicate"] = "cures"
    unknown_predicate["relation_id"] = ""
    source = tmp_path / "in.jsonl"
    source.write_text(
        "\n".join([good.model_dump_json(), json.dumps(unknown_predicate), "{oops"]) + "\n"
    )
    out = tmp_path / "verdicts.jsonl"
    result = CliRunner().invoke(cli, ["verify", str(source), "-o", str(out), "--json"])
    # The report comes first; 2 bad lines of 3 exceed max_reject_share: exit 3, one line.
    assert result.exit_code == 3, result.output
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: verify: 2 of 3 rows rejected (66.67% > 1.00%)")
    report = json.loads(result.stdout)
    assert (report["read"], report["verified"], report["rejected"]) == (3, 1, 2)
    assert report["by_predicate"] == {"treats": {"supported": 1}}
    assert report["unknown_patients"] == 1
    # The relation linked on the way is summed up (issue 38: by_status was {}, seconds 0.0).
    assert report["link"]["by_status"] == {"linked": 2}
    assert report["link"]["by_method"] and report["link"]["seconds"] > 0
    rejects = [json.loads(x) for x in Path(report["rejects"]).read_text().splitlines()]
    assert [(r["line"], r["reason"].split(":")[0]) for r in rejects] == [
        (2, "predicate"),
        (3, "invalid JSON"),
    ]
    [verdict] = list(read_verdicts(out))
    assert verdict.verdict is VerdictKind.SUPPORTED
    table = CliRunner().invoke(cli, ["verify", str(source), "-o", str(out), "--no-write"])
    assert table.exit_code == 3 and "Verdicts by predicate" in table.stdout
