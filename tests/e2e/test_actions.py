"""Agent actions and task checkpoints against the real graph (the sample vocabularies and
the sample EHR ingested): every planted action of the shipped sample gets the verdict a
reader expects, with its evidence (the vocabulary edge with its source and release, the
record fact); every checkpoint of the shipped tasks passes or fails as a reader expects,
and flips when the agent's actions change; a note's words never reach the graph; broken
input is a ``malformed`` verdict, a reject, or one ``error:`` line."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify.actions.judge import ActionJudge
from kgverify.actions.model import ActionRecord, ActionVerdict, CodeRef, GradeReport, Task
from kgverify.actions.run import verdict_of
from kgverify.actions.sample import read_sample_actions
from kgverify.api import (
    audit,
    grade_tasks,
    ingest_source,
    sample_actions,
    sample_path,
)
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.ehr.privacy import pseudonym
from kgverify.graph import Graph
from kgverify.jsonl import read_models, write_models

pytestmark = pytest.mark.neo4j

SAMPLE = sample_path("actions")
AF = CodeRef(system="SNOMEDCT", code="49436004")


@dataclass
class Graded:
    settings: Settings
    graph: Graph
    tasks: Path
    actions: Path
    report: GradeReport

    def verdict(self, action_id: str) -> ActionVerdict:
        [v] = [v for v in self.report.verdicts if v.action_id == action_id]
        return v


@pytest.fixture(scope="module")
def graded(
    sample_graph: Graph, sample_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Graded:
    ingest_source(
        "omop", sample_path("omop", "eunomia_sample"), settings=sample_settings, graph=sample_graph
    )
    out = tmp_path_factory.mktemp("actions")
    tasks, actions = sample_actions(out, settings=sample_settings)
    report = grade_tasks(tasks, actions, settings=sample_settings, graph=sample_graph)
    return Graded(sample_settings, sample_graph, tasks, actions, report)


def patient(settings: Settings, person: str) -> str:
    return pseudonym(settings.salt(), "omop:patient", person)


def test_every_planted_action_gets_the_expected_verdict(graded: Graded) -> None:
    planted = read_sample_actions(SAMPLE)
    assert len(planted) >= 5
    expected = {a.action_id: a.expected.value for a in planted}
    got = {v.action_id: v.verdict.value for v in graded.report.verdicts}
    assert got == expected
    # The five kinds the issue plants are all there.
    assert {
        "indicated",
        "contraindicated",
        "duplicate_therapy",
        "unknown_code",
        "malformed",
    } <= set(got.values())


def _edges(v: ActionVerdict, verdict: str) -> list[tuple[str, str, str, list[str]]]:
    return [
        (e.start, e.type, e.end, e.sources)
        for f in v.findings
        if f.verdict.value == verdict
        for p in f.evidence
        for e in p.edges
    ]


def test_indicated_rests_on_a_may_treat_edge_and_the_recorded_condition(graded: Graded) -> None:
    v = graded.verdict("af-anticoagulation-1")
    assert v.concept == "RXNORM:855332" and v.patient_id == patient(graded.settings, "2025")
    [finding] = [f for f in v.findings if f.verdict.value == "indicated"]
    assert finding.fact is not None and finding.fact.startswith("omop:")
    treat = [e for e in _edges(v, "indicated") if e[1] == "MAY_TREAT"]
    assert treat and any("MED-RT" in s for s in treat[0][3])
    assert any("UMLS 2025AA" in s for s in treat[0][3])  # the release, in words
    assert finding.evidence[0].text.endswith("Atrial fibrillation")
    assert "Warfarin" in v.reason and "Atrial fibrillation" in v.reason
    # The fact is the patient's atrial fibrillation, as recorded.
    [row] = graded.graph.run_adhoc(
        "MATCH (:Patient {id: $p})-[:HAS_FACT]->(f:Fact {id: $f}) RETURN f.code AS code",
        {"p": v.patient_id, "f": finding.fact},
    ).rows
    assert row["code"] == "49436004"


def test_contraindicated_names_the_edge_and_the_record_fact(graded: Graded) -> None:
    v = graded.verdict("pud-analgesia-1")
    [finding] = v.findings
    assert finding.verdict.value == "contraindicated"
    against = [e for e in _edges(v, "contraindicated") if e[1] == "CONTRAINDICATED_FOR"]
    assert against and any("MED-RT" in s for s in against[0][3])
    assert finding.fact is not None and "Peptic ulcer" in finding.text
    assert finding.evidence[0].stance == "contradict"


def test_duplicate_therapy_walks_both_drugs_to_their_shared_class(graded: Graded) -> None:
    v = graded.verdict("statin-review-1")
    kinds = [f.verdict.value for f in v.findings]
    assert kinds[0] == "duplicate_therapy"  # graver than the indication it also has
    [dup] = [f for f in v.findings if f.verdict.value == "duplicate_therapy"]
    path = dup.evidence[0]
    assert path.rule == "duplicate.class"
    assert path.text.startswith("atorvastatin 80 MG Oral Tablet")
    assert path.text.endswith("Simvastatin 20 MG Oral Tablet")
    assert "HMG CoA reductase inhibitors" in path.text
    assert dup.concept == "RXNORM:312961" and dup.fact is not None


def test_unknown_code_and_malformed_say_why(graded: Graded) -> None:
    unknown = graded.verdict("af-unknown-code-1")
    assert unknown.code == "RXNORM:99999999" and "not in the vocabularies" in unknown.reason
    malformed = graded.verdict("af-malformed-1")
    assert "medicationCodeableConcept.coding[0] has no code" in malformed.reason


EXPECTED_CHECKPOINTS = {
    ("af-anticoagulation", "anticoagulant-ordered"): True,
    ("af-anticoagulation", "no-contraindicated-order"): True,
    ("af-anticoagulation", "note-names-diagnosis"): True,
    ("pud-analgesia", "no-contraindicated-order"): False,
    ("pud-analgesia", "note-names-ulcer"): True,
    ("statin-review", "lipid-test-ordered"): True,
    ("statin-review", "no-duplicate-therapy"): False,
    ("af-unknown-code", "anticoagulant-ordered"): False,
    ("af-unknown-code", "codes-known"): False,
    ("af-malformed", "anticoagulant-ordered"): False,
    ("af-malformed", "resources-valid"): False,
}


def test_every_checkpoint_of_the_sample_tasks(graded: Graded) -> None:
    got = {(t.task_id, r.checkpoint): r.passed for t in graded.report.tasks for r in t.results}
    assert got == EXPECTED_CHECKPOINTS
    report = graded.report
    assert report.checkpoints == len(EXPECTED_CHECKPOINTS)
    assert report.passed == sum(EXPECTED_CHECKPOINTS.values())
    scores = {t.task_id: t.score for t in report.tasks}
    assert scores["af-anticoagulation"] == 1.0 and scores["af-malformed"] == 0.0
    assert report.mean_task_score == round(sum(scores.values()) / len(scores), 3)
    reasons = {(t.task_id, r.checkpoint): r for t in report.tasks for r in t.results}
    note = reasons[("af-anticoagulation", "note-names-diagnosis")]
    assert note.actions == ["af-anticoagulation-2"] and "characters" in note.reason
    assert "rate controlled" not in note.reason  # offsets, never the note's words
    lipid = reasons[("statin-review", "lipid-test-ordered")]
    assert "LNC:2093-3" in lipid.reason


def test_checkpoints_follow_the_agents_actions(graded: Graded, tmp_path: Path) -> None:
    """The same tasks on other actions: the NSAID swapped for the ulcer's own drug
    (omeprazole), the unknown code for warfarin, the statin order dropped."""
    records = list(read_models(graded.actions, ActionRecord))
    changed = []
    for r in records:
        if r.action_id == "statin-review-1":
            continue
        coding = {"pud-analgesia-1": "7646", "af-unknown-code-1": "855332"}.get(r.action_id)
        if coding is not None:
            resource = json.loads(json.dumps(r.resource))
            resource["medicationCodeableConcept"] = {
                "coding": [
                    {"system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": coding}
                ]
            }
            r = r.model_copy(update={"resource": resource})
        changed.append(r)
    actions = tmp_path / "actions.jsonl"
    write_models(changed, actions)
    report = grade_tasks(
        graded.tasks, actions, settings=graded.settings, graph=graded.graph, write=False
    )
    got = {(t.task_id, r.checkpoint): r.passed for t in report.tasks for r in t.results}
    assert got[("pud-analgesia", "no-contraindicated-order")] is True
    assert got[("af-unknown-code", "anticoagulant-ordered")] is True
    assert got[("af-unknown-code", "codes-known")] is True
    assert got[("statin-review", "no-duplicate-therapy")] is True
    pud = next(v for v in report.verdicts if v.action_id == "pud-analgesia-1")
    assert pud.verdict.value == "indicated" and "Peptic" in pud.reason


def test_a_condition_the_task_names_makes_an_order_indicated(graded: Graded) -> None:
    """Warfarin for the peptic-ulcer patient, in a task that names atrial fibrillation (not
    in the record): indicated by the task's condition, contraindicated by the record."""
    pid = patient(graded.settings, "500")
    task = Task(
        task_id="t",
        patient_id=pid,
        as_of=date(1986, 10, 1),
        conditions=[AF],
        checkpoints=[{"id": "c", "kind": "no_verdict", "verdict": "malformed"}],
    )
    rec = ActionRecord(
        action_id="w",
        task_id="t",
        patient_id=pid,
        resource={
            "resourceType": "MedicationRequest",
            "medicationCodeableConcept": {"coding": [{"system": "RXNORM", "code": "855332"}]},
        },
    )
    judge = ActionJudge(graded.graph, graded.settings)
    v = verdict_of(judge, rec, task)
    assert v.verdict.value == "contraindicated"
    [indicated] = [f for f in v.findings if f.verdict.value == "indicated"]
    assert indicated.named_in_task and indicated.fact is None and "the task names" in indicated.text
    # Without the task, only the record speaks.
    alone = verdict_of(judge, rec.model_copy(update={"at": date(1986, 10, 1)}), None)
    assert [f.verdict.value for f in alone.findings] == ["contraindicated"]


def test_no_evidence_is_unsupported_and_an_unknown_patient_malformed(graded: Graded) -> None:
    judge = ActionJudge(graded.graph, graded.settings)
    pid = patient(graded.settings, "500")
    # Simvastatin for a patient with only a peptic ulcer: nothing either way.
    rec = ActionRecord(
        action_id="s",
        patient_id=pid,
        at=date(1986, 10, 1),
        resource={
            "resourceType": "MedicationRequest",
            "medicationCodeableConcept": {"coding": [{"system": "RXNORM", "code": "312961"}]},
        },
    )
    v = verdict_of(judge, rec, None)
    assert v.verdict.value == "unsupported" and v.reason.startswith("not in the vocabularies")
    nobody = verdict_of(judge, rec.model_copy(update={"patient_id": "no-such-patient"}), None)
    assert nobody.verdict.value == "malformed" and "does not hold" in nobody.reason


def test_stored_actions_and_checkpoints_answer_the_audit_queries(graded: Graded) -> None:
    rows = audit(
        "actions_by_verdict",
        {"verdict": "CONTRAINDICATED"},
        settings=graded.settings,
        graph=graded.graph,
    )
    assert [r["action"] for r in rows] == ["pud-analgesia-1"]
    [row] = rows
    assert row["facts"] and "UMLS:C0030920" in row["evidence_concepts"]
    every = audit("actions_by_verdict", settings=graded.settings, graph=graded.graph)
    assert len(every) == len(graded.report.verdicts)
    failed = audit(
        "task_checkpoints", {"passed": False}, settings=graded.settings, graph=graded.graph
    )
    assert {(r["task"], r["checkpoint"]) for r in failed} == {
        k for k, passed in EXPECTED_CHECKPOINTS.items() if not passed
    }
    dup = next(r for r in failed if r["checkpoint"] == "no-duplicate-therapy")
    assert dup["actions"] == ["statin-review-1: duplicate_therapy"]
    # A note's words are never stored: no property of any action or checkpoint holds them.
    [found] = graded.graph.run_adhoc(
        "MATCH (n) WHERE n:AgentAction OR n:TaskCheckpoint "
        "UNWIND keys(n) AS k WITH n[k] AS v "
        "WITH CASE WHEN v IS :: LIST<ANY> THEN reduce(t = '', x IN v | t + toString(x)) "
        "ELSE toString(v) END AS text "
        "RETURN count(*) AS seen, "
        "count(CASE WHEN text CONTAINS 'rate controlled' OR text CONTAINS 'Knee pain' "
        "THEN 1 END) AS n",
        {},
    ).rows
    assert found["seen"] > 0
    assert found["n"] == 0


def test_check_actions_cli_writes_verdicts_and_rejects_bad_lines(
    graded: Graded, cli_env: Settings, tmp_path: Path
) -> None:
    out = tmp_path / "verdicts.jsonl"
    runner = CliRunner()
    result = runner.invoke(
        cli,
        [
            "check-actions",
            str(graded.actions),
            "-o",
            str(out),
            "--tasks",
            str(graded.tasks),
            "--json",
            "--no-write",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["actions"] == len(graded.report.verdicts)
    written = list(read_models(out, ActionVerdict))
    assert {v.action_id: v.verdict for v in written} == {
        v.action_id: v.verdict for v in graded.report.verdicts
    }
    bad = tmp_path / "bad.jsonl"
    bad.write_text(graded.actions.read_text() + "{not json\n")
    result = runner.invoke(
        cli, ["check-actions", str(bad), "-o", str(tmp_path / "v2.jsonl"), "--no-write"]
    )
    assert result.exit_code == 3
    assert result.stderr.count("error:") == 1 and "1 of 9 rows rejected" in result.stderr
    assert "Traceback" not in result.output


def test_grade_cli_prints_the_checkpoint_table(graded: Graded, cli_env: Settings) -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli, ["grade", str(graded.tasks), "--actions", str(graded.actions), "--no-write", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["passed"] == sum(EXPECTED_CHECKPOINTS.values())
    result = runner.invoke(cli, ["grade", str(graded.tasks), "--no-write"])
    assert result.exit_code == 2 and result.stderr.startswith("error: give TASKS and --actions")
