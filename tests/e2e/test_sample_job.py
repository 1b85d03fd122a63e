"""The README's main job on the shipped sample, through the CLI as a user runs it."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kgverify.cli import cli
from kgverify.graph import Graph

pytestmark = pytest.mark.neo4j


@pytest.mark.usefixtures("cli_env")
def test_sample_job_loads_all_three_and_summarises(fresh_graph: Graph) -> None:
    result = CliRunner().invoke(cli, ["sample", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [r["release"] for r in out["loads"]] == [
        "UMLS@2025AA",
        "SNOMEDCT@20250101",
        "RXNORM@2025-01-06",
    ]
    assert all(r["status"] == "complete" and r["files"] for r in out["loads"])
    for report in out["loads"]:
        for f in report["files"]:
            assert f["read"] == f["loaded"] + f["skipped"] + f["rejected"], f
            assert f["rejected"] == 0, f
    assert out["ingest"]["ingest"]["patients"] == 39
    assert out["extract"]["relations"] > 0 and out["extract"]["patients"] == 39
    assert out["summary"]["facts"]
    # Linking: the template relations carry codes; the LLM-style ones hold the hard cases.
    template, llm_style = out["link"]
    assert template["read"] == template["linked_relations"] == out["extract"]["relations"]
    assert template["by_method"]["code"] > 0.9 * 2 * template["read"]
    assert llm_style["read"] == 12 and llm_style["rejected"] == 0
    assert llm_style["by_status"] == {"ambiguous": 1, "linked": 22, "unlinked": 1}
    # Verification of both: every relation gets a verdict and an assertion in the graph.
    template_v, llm_v = out["verify"]
    assert template_v["verified"] == template_v["written"] == out["extract"]["relations"]
    assert template_v["by_predicate"]["treats"]["supported"] > 0
    assert template_v["unknown_patients"] == 0
    assert llm_v["by_predicate"]["treats"] == {
        "ambiguous": 1,
        "supported": 5,
        "unlinked": 1,
        "unsupported": 3,
    }
    assert llm_v["unknown_patients"] == 12  # hand-written relations of no ingested patient
    # Derivation: items of every task from the validated graph, and a sheet per patient.
    qa, facts = out["derive"]["qa"], out["derive"]["facts"]
    assert set(qa["items"]) == {"diagnosis", "treatment", "prognosis"}, qa["skipped"]
    assert all(sum(splits.values()) > 0 for splits in qa["items"].values())
    assert qa["written"] == sum(sum(s.values()) for s in qa["items"].values())
    assert qa["assertions"]["unsupported"] == qa["filtered"]["verdict unsupported"]
    assert facts["sheets"] == 39 and facts["facts"]["diagnosis"] > 0
    assert facts["facts"]["procedure"] > 0  # grounded since the sample loads procedures
    # The shipped dialogues, checked against those sheets: every patient found, and both
    # faithful and unfaithful turns among them.
    dialogues = out["dialogues"]
    assert dialogues["dialogues"] == 8 and dialogues["unknown_patients"] == 0
    assert dialogues["rejected"] == 0
    assert dialogues["verdicts"]["grounded"] > 0 and dialogues["verdicts"]["leak"] > 0
    assert sum(dialogues["verdicts"].values()) == dialogues["mentions"]
    vocabs = {row["vocab"]: row for row in out["summary"]["concepts"]}
    # 2025AA: 492 concepts, and, added for derivation, 48 ATC classes and 6 Eunomia ingredients;
    # issue 37's fourth pass: 97 common conditions and symptoms and 56 drugs no patient has;
    # its fifth: 8 more conditions and symptoms and 7 drugs; its sixth: 69 procedures (52
    # that Eunomia records, 11 common ones, 6 groups)
    assert vocabs["UMLS"]["active"] == 546 + 97 + 56 + 15 + 69
    assert vocabs["SNOMEDCT"]["retired"] == 1
    # After all three, UMLS mappings point at owned (non-stub) SNOMED and RxNorm concepts.
    joined = fresh_graph._driver.execute_query(
        "MATCH (:UMLS {code: 'C0025598'})-[:MAPS_TO]->(r:RXNORM {code: '6809'}) "
        "RETURN r.stub AS stub, r.name AS name"
    ).records
    assert [(r["stub"], r["name"]) for r in joined] == [(False, "Metformin")]


@pytest.mark.usefixtures("cli_env")
def test_summary_table_and_help(fresh_graph: Graph) -> None:
    runner = CliRunner()
    help_text = runner.invoke(cli, ["--help"]).output
    for command in ("load", "neo4j", "sample", "summary", "queries", "find"):
        assert command in help_text
    load_help = runner.invoke(cli, ["load", "--help"]).output
    assert "--bulk" in load_help and "--max-reject-share" in load_help
    table = runner.invoke(cli, ["summary"])
    assert table.exit_code == 0 and "Releases" in table.output
