"""Audit queries, item lineage, PROV export and the notebooks, on the sample pipeline in the
real Neo4j. The answers of every audit query are checked against what the pipeline wrote to
files (the verdicts JSONL and the QA dataset), which never went through the audit code."""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from click.testing import CliRunner
from nbclient import NotebookClient
from rdflib import RDF, RDFS, URIRef
from rdflib import Graph as RDFGraph
from rdflib.compare import isomorphic
from rdflib.namespace import PROV

from kgverify.api import audit, audits, export_prov, lineage, sample_pipeline
from kgverify.audit.prov import ID, KGV
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.derive import QAItem, read_items
from kgverify.graph import Graph
from kgverify.verify.model import Verdict, VerdictKind, read_verdicts
from tests.e2e.helpers import rows

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@dataclass
class Run:
    settings: Settings
    graph: Graph
    items: list[QAItem]
    verdicts: dict[str, Verdict]


@pytest.fixture(scope="module")
def run(graph: Graph, sample_settings: Settings) -> Run:
    sample_pipeline(graph, sample_settings)
    out = sample_settings.cache_dir / "sample"
    verdicts = {
        v.relation_id: v
        for name in ("verdicts.jsonl", "verdicts_llm_style.jsonl")
        for v in read_verdicts(out / name)
    }
    items = list(read_items(out / "qa"))
    assert items and verdicts
    return Run(sample_settings, graph, items, verdicts)


def ask(r: Run, name: str, **params: Any) -> list[dict[str, Any]]:
    return audit(name, params, settings=r.settings, graph=r.graph)


def test_every_audit_query_is_listed_with_typed_parameters() -> None:
    files = sorted(p.stem for p in (ROOT / "queries" / "audit").glob("*.cypher"))
    listed = audits()
    assert [a.name for a in listed] == files
    assert len(files) >= 10
    for a in listed:
        assert a.description and a.returns
        assert all(p.type in ("str", "int", "float", "bool") and p.description for p in a.params)
    result = CliRunner().invoke(cli, ["audit", "--list", "--json"])
    assert result.exit_code == 0, result.output
    assert [a["name"] for a in json.loads(result.output)] == files
    text = CliRunner().invoke(cli, ["audit", "--list"]).output
    assert all(name in text for name in files) and "--param item=<str>" in text


def test_lineage_of_every_item_matches_the_dataset_and_the_verdicts(run: Run) -> None:
    edges: set[tuple[str, str, str]] = set()
    for item in run.items:
        lin = lineage(item.item_id, settings=run.settings, graph=run.graph)
        assert [a.id for a in lin.assertions] == sorted(item.basis)
        assert lin.task == item.task.value and lin.answer_concept == item.answer_concept
        assert lin.question == item.question and lin.current and lin.standing
        options = {o.concept_id for o in item.options if o.label != item.answer}
        assert {d.id for d in lin.distractors} == options
        assert {a.rule for a in lin.assertions} == set(item.rules)
        for a in lin.assertions:
            verdict = run.verdicts[a.id]
            extractor = verdict.relation.extractor
            assert a.extractor == f"{extractor.name}@{extractor.version}"
            assert (a.subject, a.object) == (verdict.subject.concept_id, verdict.object.concept_id)
            assert a.evidence == verdict.evidence and a.evidence  # every path, in order
            assert {c.id for c in a.evidence_concepts} == {
                n for p in verdict.evidence for n in p.nodes
            }
            # The facts the relation was extracted from, each with its source table and row.
            assert sorted(f.id.split(":", 1)[1] for f in a.facts) == sorted(
                set(verdict.relation.evidence)
            )
            assert all(f.table and f.row for f in a.facts)
            edges |= {(e.start, e.type, e.end) for p in a.evidence for e in p.edges}
    found = rows(
        run.graph,
        "UNWIND $edges AS e MATCH (:Concept {id: e[0]})-[r]->(:Concept {id: e[2]}) "
        "WHERE type(r) = e[1] RETURN DISTINCT e",
        edges=[list(e) for e in edges],
    )
    assert {tuple(r["e"]) for r in found} == edges  # every evidence edge is in the graph


def test_what_depends_on_an_assertion_a_rule_an_extractor_a_concept(run: Run) -> None:
    by_assertion: dict[str, set[str]] = {}
    for item in run.items:
        for a in item.basis:
            by_assertion.setdefault(a, set()).add(item.item_id)
    for a, expected in by_assertion.items():
        assert {r["item"] for r in ask(run, "items_on_assertion", assertion=a)} == expected
    keys = {key for item in run.items for key in item.rules}
    for key in keys:
        rule, version = key.split("@")
        expected = {i.item_id for i in run.items if key in i.rules}
        got = {r["item"] for r in ask(run, "items_on_rule", rule=rule, version=version)}
        assert got == expected
        assert {r["item"] for r in ask(run, "items_on_rule", rule=rule)} >= expected
    extractor_of = {
        rid: f"{v.relation.extractor.name}@{v.relation.extractor.version}"
        for rid, v in run.verdicts.items()
    }
    for name in {e.split("@")[0] for e in extractor_of.values()}:
        expected = {
            i.item_id
            for i in run.items
            if any(extractor_of[b].startswith(name + "@") for b in i.basis)
        }
        assert {r["item"] for r in ask(run, "items_on_extractor", extractor=name)} == expected
    template = {r["item"] for r in ask(run, "items_on_extractor", extractor="template@0.1.0")}
    assert template and template <= {i.item_id for i in run.items}
    answers = Counter(i.answer_concept for i in run.items)
    concept, _ = answers.most_common(1)[0]
    used = ask(run, "items_on_concept", concept=concept)
    assert {r["item"] for r in used if r["role"] == "answer"} == {
        i.item_id for i in run.items if i.answer_concept == concept
    }
    assert {r["item"] for r in used if r["role"] == "distractor"} == {
        i.item_id
        for i in run.items
        if any(o.concept_id == concept and o.label != i.answer for o in i.options)
    }


def test_items_resting_on_a_vocabulary_edge(run: Run) -> None:
    uses: dict[tuple[str, str, str], set[str]] = {}
    for item in run.items:
        for b in item.basis:
            for p in run.verdicts[b].evidence:
                for e in p.edges:
                    uses.setdefault((e.start, e.type, e.end), set()).add(item.item_id)
    treat_edges = [e for e in uses if e[1] == "MAY_TREAT"]
    assert treat_edges
    for start, rel, end in treat_edges:
        got = ask(run, "items_on_edge", start=start, type=rel, end=end)
        assert {r["item"] for r in got} == uses[(start, rel, end)]
    assert ask(run, "items_on_edge", start=end, type=rel, end=start) == []  # direction counts


def test_rejected_relations_and_filter_rates_reconcile_with_the_verdict_files(run: Run) -> None:
    rejected = Counter(v.verdict.value for v in run.verdicts.values() if not v.passed)
    assert rejected["unsupported"] > 0
    for verdict, n in rejected.items():
        got = ask(run, "rejected_relations", verdict=verdict, limit=100_000)
        assert len(got) == n and all(r["verdict"] == verdict for r in got)
    assert len(ask(run, "rejected_relations", limit=3)) == 3
    template = ask(run, "rejected_relations", extractor="template", predicate="treats", limit=10**5)
    assert len(template) == sum(
        1
        for v in run.verdicts.values()
        if not v.passed
        and v.relation.extractor.name == "template"
        and v.relation.predicate == "treats"
    )
    rates = ask(run, "filter_rates")
    expected = Counter(
        (v.relation.predicate.value, f"{v.relation.extractor.name}@{v.relation.extractor.version}")
        for v in run.verdicts.values()
    )
    assert {(r["predicate"], r["extractor"]): r["relations"] for r in rates} == dict(expected)
    for r in rates:
        assert sum(r[v.value] for v in VerdictKind) == r["relations"]
        assert r["passed"] + r["filtered"] == r["relations"]
    hits = {r["rule"]: r["assertions"] for r in ask(run, "rule_hits")}
    decided = Counter(f"{v.rule}@{v.rule_version}" for v in run.verdicts.values() if v.rule)
    assert hits == dict(decided)


def test_audit_command_line(run: Run, cli_env: Settings) -> None:
    runner = CliRunner()
    concept = run.items[0].answer_concept
    result = runner.invoke(cli, ["audit", "items_on_concept", "-p", f"concept={concept}", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == ask(run, "items_on_concept", concept=concept)
    table = runner.invoke(cli, ["audit", "item_lineage", "--param", f"item={run.items[0].item_id}"])
    assert table.exit_code == 0 and run.items[0].basis[0] in table.output
    for args, message in (
        (["audit", "items_on_concept"], "error: audit items_on_concept needs --param concept="),
        (["audit", "rejected_relations", "-p", "limit=many"], "expected int, got 'many'"),
        (["audit", "rejected_relations", "-p", "colour=red"], "unknown parameter 'colour'"),
        (["audit", "no_such_query"], "error: no audit query 'no_such_query'; known: "),
        (["audit", "rejected_relations", "-p", "limit"], "--param takes KEY=VALUE"),
    ):
        failed = runner.invoke(cli, args)
        assert failed.exit_code == 2, (args, failed.output)
        assert message in failed.output and "Traceback" not in failed.output


def test_prov_export_of_an_item_in_turtle_and_json_ld(
    run: Run, cli_env: Settings, tmp_path: Path
) -> None:
    item = max(run.items, key=lambda i: (len(i.basis), i.item_id))  # most assertions
    turtle = export_prov(item.item_id, "turtle", settings=run.settings, graph=run.graph)
    jsonld = export_prov(item.item_id, "json-ld", settings=run.settings, graph=run.graph)
    g = RDFGraph().parse(data=turtle, format="turtle")
    assert isomorphic(g, RDFGraph().parse(data=jsonld, format="json-ld"))
    json.loads(jsonld)

    def node(kind: str, key: str) -> Any:
        found = URIRef(f"{ID}{kind}/{key}")
        assert (found, RDF.type, PROV.Entity) in g
        return found

    subject = node("item", item.item_id)
    derived_from = {str(o) for o in g.objects(subject, PROV.wasDerivedFrom)}
    assert derived_from == {f"{ID}assertion/{a}" for a in item.basis}
    for a in item.basis:
        assertion = node("assertion", a)
        verdict = run.verdicts[a]
        [rule] = list(g.objects(assertion, PROV.wasAttributedTo))
        assert (rule, RDF.type, PROV.SoftwareAgent) in g
        assert str(g.value(rule, RDFS.label)) == f"{verdict.rule}@{verdict.rule_version}"
        relation = node("relation", a)
        [extractor] = list(g.objects(relation, PROV.wasAttributedTo))
        assert str(g.value(extractor, RDFS.label)).startswith(verdict.relation.extractor.name)
        facts = list(g.objects(relation, PROV.wasDerivedFrom))
        assert len(facts) == len(set(verdict.relation.evidence))
        assert all(g.value(f, KGV.sourceTable) is not None for f in facts)
        paths = list(g.objects(g.value(assertion, PROV.wasGeneratedBy), PROV.used))
        assert sum((p, RDF.type, KGV.EvidencePath) in g for p in paths) == len(verdict.evidence)
    out = tmp_path / "prov" / "item.jsonld"
    result = CliRunner().invoke(cli, ["prov", item.item_id, "--format", "json-ld", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert isomorphic(g, RDFGraph().parse(out, format="json-ld"))
    missing = CliRunner().invoke(cli, ["prov", "0000"])
    assert missing.exit_code == 2 and "error: no item '0000' in the graph" in missing.output


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes_against_the_sample_run(
    path: Path, run: Run, cli_env: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Executed headlessly as CI does; the kernel reads the connection from the environment
    (``cli_env`` points it at the test server)."""
    assert os.environ["KGVERIFY_BOLT_PORT"] == str(run.settings.bolt_port)
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(run.settings.cache_dir))
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")  # committed clean
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 4  # verdict shares, rule hits, evidence subgraph, policy sweep
