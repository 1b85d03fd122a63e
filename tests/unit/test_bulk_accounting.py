"""What neo4j-admin reports it did not import is counted and handed on, never lost."""

from __future__ import annotations

from typing import Any

from kgverify.ehr.bulk import account
from kgverify.ehr.ingest import IngestReport


def test_a_repeated_fact_id_and_a_dangling_edge_leave_the_written_counts() -> None:
    report = IngestReport(patients=2, encounters=3, facts=10, unknown=10)
    refused: list[tuple[str, dict[str, Any], str]] = []
    problems = [
        # neo4j-admin's own wording (DuplicateInputIdException.message)
        "Id 'omop:abc' is defined more than once in group 'Fact'",
        "Id 'p1' is defined more than once in group 'Patient'",
        "omop:def (Fact)-[RECORDED_IN]->e9 (Encounter) referring to missing node e9",
    ]
    account(report, problems, lambda kind, row, why: refused.append((kind, row, why)))
    assert (report.patients, report.encounters, report.facts, report.unknown) == (1, 3, 9, 9)
    assert report.not_written == {"fact": 1, "patient": 1, "relationship": 1}
    assert [k for k, _, _ in refused] == ["fact", "patient", "relationship"]
    assert refused[0][1]["id"] == problems[0]  # the import's line names the row
    assert report.facts == report.known + report.unknown
