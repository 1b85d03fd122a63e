"""Audit queries, item lineage, PROV export and the notebooks, on the sample pipeline in the
real Neo4j. The answers of every audit query are checked against what the pipeline wrote to
files (the verdicts JSONL and the QA dataset), which never went through the audit code."""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import networkx as nx
import pytest
from click.testing import CliRunner
from nbclient import NotebookClient
from rdflib import RDF, RDFS, URIRef
from rdflib import Graph as RDFGraph
from rdflib.compare import isomorphic
from rdflib.namespace import PROV

from kgverify.api import audit, audits, export_prov, lineage, sample_pipeline
from kgverify.audit import get_audit
from kgverify.audit.prov import ID, KGV
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.derive import QAItem, read_items
from kgverify.graph import Graph
from kgverify.verify.model import Verdict, VerdictKind, read_verdicts
from tests.e2e.helpers import rows, value

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
    return audit(name, params, settings=r.settings, graph=r.graph).rows


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
    assert missing.exit_code == 2 and "error: no such item: 0000" in missing.output


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
    probing = path.name == "hallucination_filters.ipynb"
    if probing:  # read what the cells left in the kernel, after the notebook's last cell
        nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 4  # verdict shares, rule hits, evidence subgraph, policy sweep
    if probing:
        # + score and confidence per verdict, precision per policy
        assert len(images) >= 6
        text = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
        probe = json.loads(text.split(PROBE_MARK, 1)[1])
        check_quality_cells(run, probe)
        check_dialogue_cells(run, probe)


# Appended to the hallucination-filter notebook by the test: what its cells computed.
PROBE_MARK = "NOTEBOOK-PROBE "
PROBE = f"""
import json
print({PROBE_MARK!r} + json.dumps({{
    "item_id": item_id,
    "title": subgraph.get_title(),
    "texts": [t.get_text() for t in subgraph.texts],
    "overlaps": label_overlaps(subgraph),
    "distributions": [[a.get_title(), a.get_xlabel(), a.get_ylabel()] for a in dist_axes],
    "precision_plot": [precision_ax.get_title(), precision_ax.get_ylabel()],
    "policies": [[sorted(v.value for v in p.accept), p.min_score, p.min_confidence]
                 for p in policies],
    "steps": steps,
    "filled": filled,
    "imported": imported.model_dump(mode="json"),
    "precision": precision,
    "missed": missed,
    "withdrawn": withdrawn.model_dump(mode="json"),
    "dialogue_summary": dialogue_summary.model_dump(),  # the audit rows, as a list
    "dialogue_plot": [dialogue_axes.get_title(), len(dialogue_axes.patches)],
}}, default=str))
"""


def check_dialogue_cells(r: Run, probe: dict[str, Any]) -> None:
    """The simulated-patient section: its per-dialogue counts are those of the verdicts file
    the sample run wrote (read here, not through the audit code), one bar per verdict."""
    from kgverify.dialogue import read_verdicts as read_dialogue_verdicts

    written = list(
        read_dialogue_verdicts(r.settings.cache_dir / "sample" / "dialogue_verdicts.jsonl")
    )
    assert written
    verdicts = ("grounded", "leak", "contradicted", "unsupported", "unlinked")
    expected = {v.dialogue_id: {k: v.counts.get(k, 0) for k in verdicts} for v in written}
    got = {row["dialogue"]: {k: row[k] for k in verdicts} for row in probe["dialogue_summary"]}
    assert got == expected
    title, bars = probe["dialogue_plot"]
    assert "dialogue" in title and bars == len(verdicts) * len(written)


def check_quality_cells(r: Run, probe: dict[str, Any]) -> None:
    """The quality cells of the hallucination-filter notebook, recomputed from the verdict
    files and the dataset (never through the audit code) and the sheet its demonstration
    review filled."""
    from kgverify.audit import evidence_graph
    from kgverify.verify.verifier import FilterPolicy

    by_id = {v.assertion_id: v for v in r.verdicts.values()}
    items = {i.item_id: i for i in r.items}
    policies = [
        FilterPolicy(
            accept=frozenset(VerdictKind(a) for a in accept), min_score=s, min_confidence=c
        )
        for accept, s, c in probe["policies"]
    ]

    def passes(assertion: str, p: FilterPolicy) -> bool:
        v = by_id[assertion]
        return p.passes(v.verdict, v.score, v.relation.confidence)

    # The evidence subgraph: titled with the item, concept labels with vocabulary prefixes,
    # no label over another.
    item_id = probe["item_id"]
    assert item_id in items
    assert item_id in probe["title"] and probe["title"].startswith("Evidence subgraph")
    assert probe["overlaps"] == []
    g = evidence_graph(lineage(item_id, settings=r.settings, graph=r.graph))
    concepts = [
        n for n, d in g.nodes(data=True) if d["kind"] in ("concept", "answer", "distractor")
    ]
    assert concepts and all(re.fullmatch(r"[A-Z][A-Z0-9_-]*:\S+", c) for c in concepts)
    for c in concepts:
        name = g.nodes[c]["label"]
        first = (name.split() or [""])[0][:12]
        assert any(t.endswith(c) and first in t for t in probe["texts"]), c
    # Score and confidence per verdict, precision per policy: titled and labelled.
    assert [d[0] for d in probe["distributions"]] == ["Score per verdict", "Confidence per verdict"]
    assert all(d[1] for d in probe["distributions"]) and probe["distributions"][0][2]
    assert "Precision" in probe["precision_plot"][0] and probe["precision_plot"][1]

    # What each policy step removes, against the verdict files.
    before: FilterPolicy | None = None
    assert len(probe["steps"]) == len(policies)
    for step, p in zip(probe["steps"], policies, strict=True):
        was = {a for a in by_id if before is None or passes(a, before)}
        now = {a for a in by_id if passes(a, p)}
        assert (step["removed"], step["added"]) == (len(was - now), len(now - was))
        assert len(step["removed_examples"]) == min(3, len(was - now))
        for ex in step["removed_examples"]:
            v = by_id[ex["assertion"]]
            assert ex["assertion"] in was - now
            assert (ex["verdict"], ex["score"], ex["confidence"]) == (
                v.verdict.value,
                v.score,
                v.relation.confidence,
            )
            assert ex["subject"] and ex["object"]
        before = p
    assert probe["steps"][0]["removed"] > 0

    # The demonstration review: labels as the sheet was filled (a relation judged false in
    # any row is false), item decisions per item row.
    filled = probe["filled"]
    assert filled and probe["imported"]["imported"] == len(filled)
    labels: dict[str, bool] = {}
    decisions: dict[str, str] = {}
    for row in filled:  # an item's row, or a relation row (its assertion judged)
        assertion = row["assertion_id"]
        if not assertion:
            decisions[row["item_id"]] = row["decision"]
            continue
        assert assertion in items[row["item_id"]].basis and row["relation"]
        labels[assertion] = labels.get(assertion, True) and row["decision"] == "true"
    assert set(decisions.values()) == {"accept", "reject"} and False in labels.values()
    some = False
    for row, p in zip(probe["precision"], policies, strict=True):
        kept = [a for a in labels if passes(a, p)]
        true = sum(labels[a] for a in kept)
        assert row["kept"] == sum(passes(a, p) for a in by_id)
        assert (row["reviewed"], row["true"], row["false"]) == (len(kept), true, len(kept) - true)
        if kept:
            some = True
            assert row["precision"] == round(true / len(kept), 4)
            assert 0 <= row["low"] <= row["precision"] <= row["high"] <= 1
        else:
            assert row["precision"] is None and row["low"] is None
        rejected = [a for a in labels if not passes(a, p)]
        assert row["rejected_reviewed"] == len(rejected)
        assert row["rejected_true"] == sum(labels[a] for a in rejected)
        kept_items = [i for i in decisions if all(passes(a, p) for a in items[i].basis)]
        accepted = sum(decisions[i] == "accept" for i in kept_items)
        assert (row["items_reviewed"], row["items_accepted"]) == (len(kept_items), accepted)
        if kept_items:
            assert row["item_precision"] == round(accepted / len(kept_items), 4)
            assert 0 <= row["item_low"] <= row["item_precision"] <= row["item_high"] <= 1
        else:
            assert row["item_precision"] is None
    assert some
    # Rejected by a policy, reviewed true.
    missed = {a for a, ok in labels.items() if ok and any(not passes(a, p) for p in policies)}
    assert missed and {m["assertion"] for m in probe["missed"]} == missed
    for m in probe["missed"]:
        assert m["label"] is True and m["rejected_by"]
        assert len(m["rejected_by"]) == sum(not passes(m["assertion"], p) for p in policies)

    # Withdrawn at the end: no label, flag or reviewed item is left in the graph.
    assert probe["withdrawn"]["retracted"] == sum(probe["imported"]["reviews"].values())
    assert all(row["label"] is None for row in ask(r, "relation_scores"))
    assert ask(r, "reviewed_items") == []
    assert all(row["reviewed"] == 0 for row in ask(r, "review_coverage"))
    assert not [f for f in ask(r, "flagged_items") if "review:" in json.dumps(f)]


def test_relation_scores_reconcile_and_evidence_pictures_keep_labels_apart(run: Run) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kgverify.audit import evidence_graph
    from kgverify.audit.plots import draw_evidence_graph, label_overlaps

    rows = {row["assertion"]: row for row in ask(run, "relation_scores")}
    by_id = {v.assertion_id: v for v in run.verdicts.values()}
    assert rows.keys() == by_id.keys()
    for a, v in by_id.items():
        row = rows[a]
        assert (row["verdict"], row["score"], row["confidence"], row["passed"]) == (
            v.verdict.value,
            v.score,
            v.relation.confidence,
            v.passed,
        )
        assert row["label"] is None and row["reviews"] == 0
    resting = Counter(b for i in run.items for b in i.basis)
    assert {a: row["items"] for a, row in rows.items() if row["items"]} == dict(resting)
    # The largest evidence subgraphs: titled with the item, no label over another.
    biggest = sorted(run.items, key=lambda i: (-len(i.basis), i.item_id))[:6]
    for item in biggest:
        g = evidence_graph(lineage(item.item_id, settings=run.settings, graph=run.graph))
        ax = draw_evidence_graph(g)
        try:
            assert item.item_id in ax.get_title()
            assert label_overlaps(ax) == [], item.item_id
            texts = [t.get_text() for t in ax.texts]
            assert all(any(t.endswith(n) for t in texts) for n in g if ":" in n)
        finally:
            plt.close("all")


# -- issue 17: lineage an auditor can read, provenance naming sources, errors that never lie --


def edge_sources(r: Run, item: QAItem) -> dict[tuple[str, str, str], set[tuple[str, str]]]:
    """(start, type, end) of every evidence edge of the item -> {(sab, release)}, read
    straight from the graph (not through the audit code)."""
    keys = {
        (e.start, e.type, e.end)
        for b in item.basis
        for p in r.verdicts[b].evidence
        for e in p.edges
    }
    found = rows(
        r.graph,
        "UNWIND $edges AS e MATCH (:Concept {id: e[0]})-[x]->(:Concept {id: e[2]}) "
        "WHERE type(x) = e[1] RETURN e, x.sab AS sab, x.release AS release",
        edges=[list(k) for k in keys],
    )
    out: dict[tuple[str, str, str], set[tuple[str, str]]] = {k: set() for k in keys}
    for f in found:
        out[(f["e"][0], f["e"][1], f["e"][2])].add((f["sab"], f["release"]))
    return out


def treats_item(r: Run) -> QAItem:
    """An item with a MAY_TREAT edge on its evidence (the issue's example shape)."""
    return next(
        i
        for i in sorted(r.items, key=lambda i: i.item_id)
        if any(
            e.type == "MAY_TREAT" for b in i.basis for p in r.verdicts[b].evidence for e in p.edges
        )
    )


def test_item_lineage_prints_names_question_answer_and_readable_paths(
    run: Run, cli_env: Settings
) -> None:
    item = treats_item(run)
    # wide enough that no line wraps: the checks below look for whole lines
    result = CliRunner().invoke(
        cli, ["audit", "item_lineage", "-p", f"item={item.item_id}"], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 0, result.output
    text = result.output
    assert "0 rows" not in text and '{"rule"' not in text  # no raw EvidencePath JSON
    assert f"question:    {item.question.splitlines()[0]}" in text
    assert all(line in text for line in item.question.splitlines())
    for o in item.options:
        assert f"{o.label}. {o.text}  [{o.concept_id}]" in text
    assert "<- answer" in text and "wrong: " in text
    for check in item.checks:  # the clue each distractor check fixes, named
        assert re.search(rf"distractor check: .*\S \({re.escape(check.fixed)}\)", text), text
    lin = lineage(item.item_id, settings=run.settings, graph=run.graph)
    sources = edge_sources(run, item)
    for b in item.basis:
        v = run.verdicts[b]
        assert "Assertion " in text and b in text
        subject, obj = v.subject.concept_id, v.object.concept_id
        assert subject and obj
        subject_name = value(run.graph, "MATCH (c:Concept {id: $id}) RETURN c.name", id=subject)
        object_name = value(run.graph, "MATCH (c:Concept {id: $id}) RETURN c.name", id=obj)
        linked = f"{subject_name} ({subject}) {v.relation.predicate.value} {object_name} ({obj})"
        assert linked in text  # names beside ids
        for path in v.evidence:
            for e in path.edges:
                for sab, release in sources[(e.start, e.type, e.end)]:
                    assert f"{e.type}, {sab}, {release.replace('@', ' ')}" in text
    # The example shape: Drug -[MAY_TREAT, MED-RT, UMLS 2025AA]-> Condition
    assert re.search(r"\S -\[MAY_TREAT, [^,\]]+, UMLS \d{4}AA\]-> \S", text), text
    for a in lin.assertions:
        for f in a.facts:
            assert f"source table {f.table}, row {f.row}" in text
        assert f"extractor:  {a.extractor}" in text
    dump = os.environ.get("KGVERIFY_DOC_LINEAGE")  # docs/audit.md's example, when asked
    if dump:
        Path(dump).write_text(f"$ kgverify audit item_lineage -p item={item.item_id}\n{text}")


def test_audit_rows_carry_names_and_match_their_declared_columns(run: Run) -> None:
    item = treats_item(run)
    edge = next(
        e
        for b in item.basis
        for p in run.verdicts[b].evidence
        for e in p.edges
        if e.type == "MAY_TREAT"
    )
    got = ask(run, "items_on_edge", start=edge.start, type=edge.type, end=edge.end)
    assert item.item_id in {r["item"] for r in got}
    by_id = {i.item_id: i for i in run.items}
    for r in got:
        assert r["question"] == by_id[r["item"]].question
        assert r["answer"] == by_id[r["item"]].answer
        assert re.fullmatch(r".+ -\[MAY_TREAT\]-> .+", r["edge"]) and edge.start not in r["edge"]
    concept = ask(run, "items_on_concept", concept=item.answer_concept)
    assert all(r["concept_name"] and r["question"] for r in concept)
    for name, params in (
        ("items_on_edge", {"start": edge.start, "type": edge.type, "end": edge.end}),
        ("items_on_concept", {"concept": item.answer_concept}),
        ("items_on_assertion", {"assertion": item.basis[0]}),
        ("item_lineage", {"item": item.item_id}),
        ("rejected_relations", {"limit": 5}),
        ("flagged_items", {}),
        ("changed_evidence", {}),
    ):
        declared = [c.strip() for c in get_audit(name).returns.split(",")]
        assert "question" in declared or name in ("rejected_relations", "item_lineage")
        for r in ask(run, name, **params):
            assert list(r) == declared, name
    rejected = ask(run, "rejected_relations", limit=100)
    assert any(r["subject_name"] for r in rejected)


def test_prov_names_the_source_and_release_of_every_evidence_edge(
    run: Run, cli_env: Settings
) -> None:
    item = treats_item(run)
    g = RDFGraph().parse(
        data=export_prov(item.item_id, "turtle", settings=run.settings, graph=run.graph),
        format="turtle",
    )
    labels = {str(g.value(e, RDFS.label)) for e in g.subjects(RDF.type, KGV.VocabularyEdge)}
    lin = lineage(item.item_id, settings=run.settings, graph=run.graph)
    names = {c.id: c.name for a in lin.assertions for c in a.evidence_concepts}
    for (start, rel, end), found in edge_sources(run, item).items():
        assert found
        for sab, release in found:
            said = f"{names[start]} {rel} {names[end]} according to {sab} in {release}"
            assert said in labels, (said, labels)
    # each path derives from its edges; MAY_TREAT read in words with its source and release
    paths = list(g.subjects(RDF.type, KGV.EvidencePath))
    assert paths and all(list(g.objects(p, PROV.wasDerivedFrom)) for p in paths)
    assert any(re.search(r"MAY_TREAT .+ according to .+ in UMLS@", label) for label in labels)
    checks = list(g.objects(URIRef(f"{ID}item/{item.item_id}"), KGV.distractorCheck))
    assert len(checks) == len(item.checks) > 0
    assert all(str(g.value(c, RDFS.label)).count("distractor") == 1 for c in checks)


def test_audit_output_as_csv_tsv_json_and_graphml(
    run: Run, cli_env: Settings, tmp_path: Path
) -> None:
    runner = CliRunner()
    expected = ask(run, "filter_rates")
    for flags, delimiter in ((["--csv"], ","), (["--format", "tsv"], "\t"), (["--tsv"], "\t")):
        result = runner.invoke(cli, ["audit", "filter_rates", *flags])
        assert result.exit_code == 0, result.output
        got = list(csv.DictReader(io.StringIO(result.stdout), delimiter=delimiter))
        assert got == [{k: str(v) for k, v in r.items()} for r in expected]
    as_json = runner.invoke(cli, ["audit", "filter_rates", "--format", "json"])
    assert json.loads(as_json.stdout) == expected
    empty = runner.invoke(cli, ["audit", "flagged_items", "--csv"])  # header even with no row
    assert empty.exit_code == 0 and empty.stdout.splitlines()[0].startswith("item,task,split")
    item = treats_item(run)
    lin_csv = runner.invoke(cli, ["audit", "item_lineage", "-p", f"item={item.item_id}", "--csv"])
    got = list(csv.DictReader(io.StringIO(lin_csv.stdout)))
    assert [r["assertion"] for r in got] == sorted(item.basis)
    out = tmp_path / "g" / "item.graphml"
    drawn = runner.invoke(
        cli, ["audit", "item_lineage", "-p", f"item={item.item_id}", "--graphml", str(out)]
    )
    assert drawn.exit_code == 0, drawn.output
    g = nx.read_graphml(out)
    assert g.nodes[item.item_id]["kind"] == "item"
    assert g.nodes[item.item_id]["question"] == item.question
    assert g.nodes[item.answer_concept]["kind"] == "answer"
    assert set(item.basis) <= set(g.nodes)
    treat = [d for _, _, d in g.edges(data=True) if d["type"] == "MAY_TREAT"]
    assert treat and all(d["source"] and d["release"].startswith("UMLS@") for d in treat)
    for args, message in (
        (["audit", "filter_rates", "--csv", "--json"], "choose one output format"),
        (["audit", "filter_rates", "--graphml", str(out)], "use it with item_lineage"),
    ):
        failed = runner.invoke(cli, args)
        assert failed.exit_code == 2 and message in failed.output, failed.output


def test_enumerated_parameters_and_unknown_ids_are_errors_not_empty_answers(
    run: Run, cli_env: Settings
) -> None:
    runner = CliRunner()
    item = treats_item(run)
    edge = next(
        e
        for b in item.basis
        for p in run.verdicts[b].evidence
        for e in p.edges
        if e.type == "MAY_TREAT"
    )
    # case-insensitive where the model's lists allow it
    upper = ask(run, "rejected_relations", verdict="UNSUPPORTED", limit=10**5)
    assert upper == ask(run, "rejected_relations", verdict="unsupported", limit=10**5) != []
    lower = ask(run, "items_on_edge", start=edge.start, type="may_treat", end=edge.end)
    assert lower == ask(run, "items_on_edge", start=edge.start, type="MAY_TREAT", end=edge.end)
    assert lower
    for args, message in ((["-p", "item=nosuchitem"], "error: no such item: nosuchitem"),):
        failed = runner.invoke(cli, ["audit", "item_lineage", *args])
        assert failed.exit_code == 2 and message in failed.output, failed.output
    for args, message in (
        (["rejected_relations", "-p", "verdict=hallucinated"], "'hallucinated' is not one of"),
        (
            ["rejected_relations", "-p", "predicate=cures"],
            "'cures' is not one of indicates, treats",
        ),
        (
            [
                "items_on_edge",
                "-p",
                f"start={edge.start}",
                "-p",
                "type=may_cure",
                "-p",
                f"end={edge.end}",
            ],
            "'may_cure' is not one of IS_A",
        ),
        (
            [
                "items_on_edge",
                "-p",
                "start=UMLS:NOPE",
                "-p",
                "type=MAY_TREAT",
                "-p",
                f"end={edge.end}",
            ],
            "no such concept: UMLS:NOPE",
        ),
        (["items_on_concept", "-p", "concept=SNOMEDCT:0"], "no such concept: SNOMEDCT:0"),
        (["items_on_assertion", "-p", "assertion=nope"], "no such assertion: nope"),
        (["items_on_rule", "-p", "rule=no.rule"], "no such rule: no.rule"),
        (["changed_evidence", "-p", "run=norun"], "no such run: norun"),
    ):
        failed = runner.invoke(cli, ["audit", *args])
        assert failed.exit_code == 2, (args, failed.output)
        assert message in failed.output and "Traceback" not in failed.output, failed.output
    listed = runner.invoke(cli, ["audit", "--list", "--json"])
    verdict = next(
        p
        for a in json.loads(listed.stdout)
        if a["name"] == "rejected_relations"
        for p in a["params"]
        if p["name"] == "verdict"
    )
    assert verdict["choices"] == [v.value for v in VerdictKind]


def test_ingest_of_a_file_that_is_not_fhir_exits_3_after_its_report(
    run: Run, cli_env: Settings, tmp_path: Path
) -> None:
    """The reject rule of `load` holds for `ingest` too (docs/configuration.md)."""
    bad = tmp_path / "not_fhir.json"
    bad.write_text('{"hello": "world"}\n', encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["ingest", "fhir", str(bad), "--rejects", str(tmp_path / "r.jsonl")]
    )
    assert result.exit_code == 3, result.output
    assert "Source rows" in result.stdout  # the report first
    assert "error: ingest fhir: 1 of 1 rows rejected (100.00% > 1.00%)" in result.output
    assert (tmp_path / "r.jsonl").read_text().strip()
