"""The sample's FHIR leg against the real HAPI FHIR server the session starts
(``fhir_server``) and the real graph: the sample EHR loaded into the server and ingested
back through ``fhir-rest``, the planted actions written into the server as an agent would
(tagged with their task), and the sample tasks graded from the server's resources: the
same verdicts and checkpoints as from the actions file; a server that is down is one
``error:`` line.

Named to run after ``test_fhir.py``, which counts what the session's server holds: this
module adds the whole sample under its own pseudonyms, and nothing here counts patients."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify.actions.sample import read_sample_actions
from kgverify.api import sample_actions, sample_fhir_grades, sample_path
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.graph import Graph
from tests.conftest import free_port
from tests.e2e.test_actions import EXPECTED_CHECKPOINTS

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def both(sample_settings: Settings, fhir_server: Settings) -> Settings:
    """The module's graph settings, with the session's FHIR server."""
    return sample_settings.model_copy(
        update={"fhir_port": fhir_server.fhir_port, "fhir_home": fhir_server.fhir_home}
    )


def test_the_sample_tasks_graded_from_the_server(sample_graph: Graph, both: Settings) -> None:
    url = f"http://127.0.0.1:{both.fhir_port}/fhir"
    report = sample_fhir_grades(url=url, settings=both, graph=sample_graph)
    assert "8 actions written, 0 refused" in report.source
    expected = {a.action_id: a.expected.value for a in read_sample_actions(sample_path("actions"))}
    got = {v.action_id.split("/", 1)[1]: v.verdict.value for v in report.verdicts}
    assert got == expected
    assert all(v.action_id.split("/", 1)[0] == v.resource_type for v in report.verdicts)
    graded = {(t.task_id, r.checkpoint): r.passed for t in report.tasks for r in t.results}
    assert graded == EXPECTED_CHECKPOINTS
    # The patients are those fhir-rest ingested from the server, and their record is read:
    # the warfarin order is indicated by the atrial fibrillation recorded there.
    indicated = next(v for v in report.verdicts if v.verdict.value == "indicated")
    assert indicated.findings[0].fact is not None
    assert indicated.findings[0].fact.startswith("fhir")
    # Posting again updates in place: the same actions, no more.
    again = sample_fhir_grades(url=url, settings=both, graph=sample_graph, write=False)
    assert len(again.verdicts) == len(report.verdicts)


def test_a_server_that_is_down_is_one_error_line(cli_env: Settings, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/fhir"
    tasks, _ = sample_actions(tmp_path, settings=cli_env)
    result = CliRunner().invoke(cli, ["grade", str(tasks), "--server", url, "--no-write"])
    assert result.exit_code != 0
    assert result.stderr.count("error:") == 1 and "Traceback" not in result.output
    assert url.removesuffix("/fhir") in result.stderr or "127.0.0.1" in result.stderr


def test_check_actions_reads_what_changed_since(
    sample_graph: Graph, both: Settings, tmp_path: Path
) -> None:
    """An action written now is the only one changed since a moment ago: --since reads it
    alone (the loaded sample and the earlier posts are older), and judges it."""
    from datetime import UTC, datetime, timedelta

    from kgverify.actions.model import ActionRecord
    from kgverify.actions.server import post_actions
    from kgverify.api import check_actions
    from kgverify.ehr.fhir_http import FhirClient
    from kgverify.ehr.privacy import pseudonym

    url = f"http://127.0.0.1:{both.fhir_port}/fhir"
    since = (datetime.now(UTC) - timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    patient = pseudonym(both.salt(), "omop:patient", "500")
    order = ActionRecord(
        action_id="since-naproxen",
        task_id="late",
        patient_id=patient,
        resource={
            "resourceType": "MedicationRequest",
            "status": "active",
            "intent": "order",
            "authoredOn": "1986-10-01",
            "medicationCodeableConcept": {
                "coding": [
                    {"system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": "198014"}
                ]
            },
        },
    )
    posted = post_actions(FhirClient(url), [order])
    assert posted.written == ["MedicationRequest/since-naproxen"] and not posted.refused
    out = tmp_path / "verdicts.jsonl"
    report = check_actions(
        None, out, server=url, since=since, settings=both, graph=sample_graph, write=False
    )
    assert report.actions == 1, report.verdicts
    assert report.verdicts == {"contraindicated": 1}  # naproxen, and the recorded peptic ulcer
