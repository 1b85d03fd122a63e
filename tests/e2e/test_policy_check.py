"""The filter policy at derivation, and questions without writes (issue 17, parts 4 and 5),
on the sample in the real Neo4j.

Derivation with a given policy (an option, the environment, the config file) re-applies it
to the stored verdicts, scores and confidences, and the dataset records it; without one it
uses the stored flags and says so. ``api.check`` / ``api.explain`` / ``kgverify check``
answer by name and never write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify.api import check, derive_qa, explain, open_verifier
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.derive import read_items
from kgverify.extract.relation import CandidateRelation, ExtractorInfo, Mention, Predicate
from kgverify.graph import Graph
from kgverify.verify.check import Explanation
from kgverify.verify.model import VerdictKind
from tests.e2e.helpers import value, verified_sample_ehr

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def verified(
    sample_graph: Graph, sample_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Graph:
    verified_sample_ehr(sample_graph, sample_settings, tmp_path_factory.mktemp("policy"))
    return sample_graph


def assertion_count(graph: Graph) -> int:
    return int(value(graph, "MATCH (a:Assertion) RETURN count(a) AS n"))


def test_a_stricter_policy_keeps_fewer_items_and_the_dataset_records_it(
    verified: Graph,
    sample_settings: Settings,
    cli_env: Settings,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    stored = derive_qa(tmp_path / "stored", settings=sample_settings, graph=verified, write=False)
    assert stored.policy == "stored" and stored.policy_values is None
    card = (tmp_path / "stored" / "README.md").read_text()
    assert "Filter policy: stored" in card
    assert json.loads((tmp_path / "stored" / "policy.json").read_text())["applied"] is False
    assert {i.policy for i in read_items(tmp_path / "stored")} == {"stored"}

    # The issue's own repro: the variable was silently ignored by derivation.
    monkeypatch.setenv("KGVERIFY_VERIFY_MIN_SCORE", "0.9")
    out = tmp_path / "strict"
    result = CliRunner().invoke(cli, ["derive", "qa", "-o", str(out), "--no-write", "--json"])
    assert result.exit_code == 0, result.output
    strict = json.loads(result.output)
    assert strict["policy"].startswith("policy@")
    assert strict["policy_values"] == {
        "accept": ["supported"],
        "min_score": 0.9,
        "min_confidence": 0.0,
    }
    total = sum(sum(s.values()) for s in strict["items"].values())
    assert 0 < total < sum(sum(s.values()) for s in stored.items.values())
    assert strict["filtered"].get("supported, below the policy's score or confidence", 0) > 0
    record = json.loads((out / "policy.json").read_text())
    assert record["applied"] is True and record["min_score"] == 0.9
    assert record["policy"] == strict["policy"]
    assert f"Filter policy `{strict['policy']}`, re-applied" in (out / "README.md").read_text()
    assert {i.policy for i in read_items(out)} == {strict["policy"]}

    # An option beats the variable, and the items in the graph record the policy too.
    monkeypatch.delenv("KGVERIFY_VERIFY_MIN_SCORE")
    optioned = CliRunner().invoke(
        cli, ["derive", "qa", "-o", str(tmp_path / "opt"), "--min-score", "0.9", "--json"]
    )
    assert optioned.exit_code == 0, optioned.output
    assert json.loads(optioned.output)["policy"] == strict["policy"]
    policies = value(
        verified, "MATCH (i:Item {current: true}) RETURN collect(DISTINCT i.policy) AS p"
    )
    assert policies == [strict["policy"]]


def test_check_answers_a_supported_relation_with_named_evidence(
    verified: Graph, sample_settings: Settings
) -> None:
    before = assertion_count(verified)
    result = check("metformin", "treats", "type 2 diabetes mellitus", settings=sample_settings)
    assert result.verdict is VerdictKind.SUPPORTED and result.rule == "direct.support"
    assert result.subject.concept is not None and result.subject.concept.name
    assert result.object.concept is not None and result.object.concept.name
    path = result.evidence[0]
    assert path.edges[0].type == "MAY_TREAT" and path.edges[0].start_name
    assert path.edges[0].sources and "MED-RT" in path.edges[0].sources[0]
    assert "-[MAY_TREAT, MED-RT" in path.text and "UMLS:" not in path.text
    assert result.answer.startswith("supported by the vocabularies")
    assert assertion_count(verified) == before


def test_check_says_not_in_the_vocabularies_never_false(
    verified: Graph, sample_settings: Settings
) -> None:
    before = assertion_count(verified)
    result = check("metformin", "treats", "atrial fibrillation", settings=sample_settings)
    assert result.verdict is VerdictKind.UNSUPPORTED and not result.evidence
    assert result.answer.startswith("not in the vocabularies")
    assert "false" not in result.answer.lower()
    why = explain("albuterol", "treats", "hypothyroidism", settings=sample_settings)
    assert isinstance(why, Explanation) and why.verdict is VerdictKind.UNSUPPORTED
    assert why.subject.candidates and any("linked to" in s for s in why.steps)
    assert "false" not in str(why).lower()
    assert assertion_count(verified) == before


def test_cli_check_json_and_text(verified: Graph, cli_env: Settings) -> None:
    before = assertion_count(verified)
    result = CliRunner().invoke(
        cli, ["check", "lisinopril", "treats", "essential hypertension", "--json"]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["verdict"] == "supported" and answer["rule"] == "ancestor.support"
    assert answer["evidence"][0]["edges"]
    text = CliRunner().invoke(cli, ["check", "polyuria", "indicates", "asthma", "--explain"])
    assert text.exit_code == 0, text.output
    assert text.output.startswith("not in the vocabularies")
    assert assertion_count(verified) == before


def test_open_verifier_judges_without_writing_unless_asked(
    sample_graph: Graph, sample_settings: Settings
) -> None:
    relation = CandidateRelation(
        patient_id="p-adhoc",
        subject=Mention(text="metformin"),
        predicate=Predicate.TREATS,
        object=Mention(text="type 2 diabetes mellitus"),
        extractor=ExtractorInfo(name="notebook", version="1"),
        confidence=1.0,
    )
    before = assertion_count(sample_graph)
    with open_verifier(sample_settings, sample_graph) as verifier:
        [verdict] = verifier.verify([relation])
    assert verdict.verdict is VerdictKind.SUPPORTED and verifier.written == 0
    assert assertion_count(sample_graph) == before
