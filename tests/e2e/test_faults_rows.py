"""Row faults (issue 15, points 2 and 6) against the real Neo4j: an over-long id is a rejected
line, never a failed run; a row the database refuses costs only itself; a repeated
relation_id is a rejected line; a relation_id reused for another relation gets its own
assertion, and the same relation verified again keeps one."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgverify.api import (
    ingest_source,
    link_relations_file,
    open_verifier,
    sample_path,
    verify_relations_file,
)
from kgverify.audit.catalog import run_audit
from kgverify.bounds import MAX_ID_CHARS
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.dates import DateShift
from kgverify.derive.export import CardFacts, QAWriter
from kgverify.derive.model import DeriveReport, QAItem, Task
from kgverify.ehr.ingest import ingest
from kgverify.ehr.model import Condition, Encounter, Patient, SourceRef, Trajectory
from kgverify.extract.relation import CandidateRelation, ExtractorInfo, Mention, Predicate
from kgverify.graph import Graph
from kgverify.verify.model import Verdict, VerdictKind, assertion_id_of, read_verdicts
from tests.e2e.helpers import rows, value

pytestmark = pytest.mark.neo4j

LLM = ExtractorInfo(name="openai", version="test", model="faults")
HUGE = "x" * 100_000


def rel(subject: str, predicate: str, obj: str, relation_id: str = "") -> CandidateRelation:
    return CandidateRelation(
        relation_id=relation_id,
        patient_id="p-faults",
        subject=Mention(text=subject),
        predicate=Predicate(predicate),
        object=Mention(text=obj),
        extractor=LLM,
        confidence=0.9,
    )


def line(relation: CandidateRelation, **changes: Any) -> str:
    return json.dumps({**json.loads(relation.model_dump_json()), **changes})


def rejects_of(path: str | None) -> list[dict[str, Any]]:
    assert path is not None
    return [json.loads(x) for x in Path(path).read_text().splitlines()]


def assertions(graph: Graph, relation_id: str) -> list[dict[str, Any]]:
    return rows(
        graph,
        "MATCH (a:Assertion {relation_id: $rid}) "
        "RETURN a.id AS id, a.verdict AS verdict, a.object_text AS object ORDER BY a.object_text",
        rid=relation_id,
    )


# -- point 2: bounded fields, refused rows --------------------------------------------------


def test_an_overlong_relation_id_is_a_rejected_line(
    sample_graph: Graph,
    cli_env: Settings,
    sample_settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(sample_settings.cache_dir))
    good = [
        rel("metformin", "treats", "type 2 diabetes mellitus", "long-1"),
        rel("lisinopril", "treats", "essential hypertension", "long-3"),
        rel("amoxicillin", "treats", "type 2 diabetes mellitus", "long-4"),
    ]
    source = tmp_path / "in.jsonl"
    source.write_text(
        "\n".join([good[0].model_dump_json(), line(good[0], relation_id=HUGE)])
        + "\n"
        + "\n".join(g.model_dump_json() for g in good[1:])
        + "\n"
    )
    out = tmp_path / "verdicts.jsonl"
    result = CliRunner().invoke(cli, ["verify", str(source), "-o", str(out), "--json"])
    # Every valid line is done and reported; 1 bad line of 4 is over max_reject_share, so
    # the run ends in exit 3 after its report, as any command reading rows does.
    assert result.exit_code == 3, result.output
    assert "1 of 4 rows rejected" in result.stderr
    report = json.loads(result.stdout)
    assert (report["read"], report["verified"], report["rejected"]) == (4, 3, 1)
    assert (report["written"], report["not_written"]) == (3, 0)
    [reject] = rejects_of(report["rejects"])
    assert reject["line"] == 2
    assert reject["reason"].startswith("relation_id:") and f"{MAX_ID_CHARS}" in reject["reason"]
    assert [v.relation_id for v in read_verdicts(out)] == ["long-1", "long-3", "long-4"]
    for relation in good:
        assert len(assertions(sample_graph, relation.relation_id)) == 1


def test_a_refused_assertion_costs_only_its_row(
    sample_graph: Graph, sample_settings: Settings
) -> None:
    # Past the model's bound (built without validation), the key is over Neo4j's index
    # limit: the database refuses that row and only that row.
    bad = CandidateRelation.model_construct(
        **{**dict(rel("metformin", "treats", "asthma")), "relation_id": HUGE}
    )
    batch = [
        rel("metformin", "treats", "type 2 diabetes mellitus", "refuse-1"),
        bad,
        rel("lisinopril", "treats", "essential hypertension", "refuse-3"),
    ]
    refused: list[tuple[Verdict, str]] = []
    with open_verifier(sample_settings, sample_graph, write=True) as verifier:
        verifier.on_refused = lambda verdict, reason: refused.append((verdict, reason))
        verdicts = verifier.verify(batch)
    assert len(verdicts) == 3
    assert (verifier.written, verifier.not_written) == (2, 1)
    [(verdict, reason)] = refused
    assert verdict.relation_id == HUGE and "too large to index" in reason
    assert verifier.not_written_reasons == {
        "refused by the database: Property value is too large to index": 1
    }
    assert [len(assertions(sample_graph, f"refuse-{n}")) for n in (1, 3)] == [1, 1]


def test_a_stream_with_a_refused_row_is_what_one_batch_at_a_time_gives(
    sample_graph: Graph, sample_settings: Settings
) -> None:
    """iter_verify over batches of one, a refused row among them: the verdicts, the written
    and refused counts and the refusal callback (on the caller's thread) are what judging
    one relation at a time gives, and only the refused row is missing from the graph."""
    import threading

    bad = CandidateRelation.model_construct(
        **{**dict(rel("metformin", "treats", "asthma")), "relation_id": HUGE}
    )
    stream = [
        rel("metformin", "treats", "type 2 diabetes mellitus", "stream-1"),
        bad,
        rel("lisinopril", "treats", "essential hypertension", "stream-3"),
        rel("aspirin", "treats", "headache", "stream-4"),
    ]
    refused: list[tuple[str, int]] = []
    with open_verifier(sample_settings, sample_graph, write=True) as verifier:
        verifier.on_refused = lambda verdict, reason: refused.append(
            (verdict.relation_id, threading.get_ident())
        )
        streamed = list(verifier.iter_verify(stream, batch_size=1))
    with open_verifier(sample_settings, sample_graph, write=False) as reader:
        one_by_one = [v for r in stream for v in reader.verify([r])]
    assert [v.model_dump(exclude={"verified_at"}) for v in streamed] == [
        v.model_dump(exclude={"verified_at"}) for v in one_by_one
    ]
    assert (verifier.written, verifier.not_written) == (3, 1)
    assert refused == [(HUGE, threading.get_ident())]
    assert [len(assertions(sample_graph, f"stream-{n}")) for n in (1, 3, 4)] == [1, 1, 1]


def test_a_consumer_that_fails_mid_stream_leaves_no_write_in_flight(
    sample_graph: Graph, sample_settings: Settings
) -> None:
    """A verdicts file that cannot be written (a full disk) stops the consumer with a write-back
    in flight, and the generator is left unclosed (its frame is in the traceback). Closing the
    verifier waits for that write: in CI the driver was closed under it, a BufferError from
    the Bolt buffer instead of one error line."""
    import threading
    from types import GeneratorType

    class StopError(Exception):
        pass

    stream = [
        rel("metformin", "treats", "type 2 diabetes mellitus", "midway-1"),
        rel("lisinopril", "treats", "essential hypertension", "midway-2"),
    ]
    with (
        pytest.raises(StopError),
        open_verifier(sample_settings, sample_graph, write=True) as verifier,
    ):
        # Held by name, as write_verdicts' frame holds it: unwinding does not close it.
        verdicts = verifier.iter_verify(stream, batch_size=1)
        for seen, _ in enumerate(verdicts):
            if seen == 1:  # the second batch's write-back was handed to the writer
                raise StopError
    # Not closed: its executor is still open, only the verifier's close can stop the writer.
    assert isinstance(verdicts, GeneratorType) and verdicts.gi_frame is not None
    writers = [t for t in threading.enumerate() if t.name.startswith("kgverify-write-back")]
    assert [t for t in writers if t.is_alive()] == []
    assert [len(assertions(sample_graph, f"midway-{n}")) for n in (1, 2)] == [1, 1]


def test_a_refused_item_costs_only_its_row(graph: Graph, tmp_path: Path) -> None:
    def item(item_id: str) -> QAItem:
        return QAItem(
            item_id=item_id,
            task=Task.TREATMENT,
            split="train",
            patient_id="p-faults",
            episode="e",
            question="q",
            context=[],
            options=[],
            answer="A",
            answer_concept="UMLS:C0000000",
            basis=[],
            rules=[],
            template="treatment@t",
            seed=13,
            topic="UMLS:C0000000",
            content_key=item_id[:20],
            content_group=item_id[:20],
            why_wrong=[],
            releases=[],
            policy="default@x",
        )

    report = DeriveReport()
    card = CardFacts(
        settings="s",
        policy={},
        reviews={},
        near_depth=2,
        drug_near_depth=1,
        justify_version="v",
        dates=DateShift("exact", ""),
    )
    writer = QAWriter(tmp_path, graph, "run-faults", report, batch=10, card=card)
    writer.write([item("faults-item-1"), item(HUGE), item("faults-item-3")])
    assert (report.written, report.not_written) == (2, 1)
    assert list(report.not_written_reasons) == [
        "refused by the database: Property value is too large to index"
    ]
    # The refused item is still in its file; the graph holds the other two (written
    # pending: publish_items makes a run's items current).
    assert len((tmp_path / "treatment" / "train.jsonl").read_text().splitlines()) == 3
    assert value(graph, "MATCH (i:Item {pending_run: 'run-faults'}) RETURN count(i)") == 2


# -- point 6: duplicate relation_ids, the assertion key -------------------------------------


def test_a_repeated_relation_id_is_rejected_naming_its_first_line(
    sample_graph: Graph, sample_settings: Settings, tmp_path: Path
) -> None:
    first = rel("metformin", "treats", "type 2 diabetes mellitus", "dup-1")
    other = rel("amoxicillin", "treats", "asthma", "dup-1")  # another relation, the same id
    third = rel("lisinopril", "treats", "essential hypertension", "dup-3")
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(r.model_dump_json() for r in (first, other, third, first)) + "\n")
    before = value(sample_graph, "MATCH (a:Assertion) RETURN count(a)")
    report = verify_relations_file(
        source, tmp_path / "v.jsonl", settings=sample_settings, graph=sample_graph
    )
    assert (report.read, report.verified, report.rejected, report.written) == (4, 2, 2, 2)
    rejects = rejects_of(report.rejects)
    assert [(r["line"], r["reason"]) for r in rejects] == [
        (2, "duplicate relation_id: first on line 1"),
        (4, "duplicate relation_id: first on line 1"),
    ]
    assert rejects[0]["text"] and other.model_dump_json().startswith(rejects[0]["text"])
    # "written" is what the graph gained: one assertion per verified line.
    assert value(sample_graph, "MATCH (a:Assertion) RETURN count(a)") == before + 2
    assert [a["object"] for a in assertions(sample_graph, "dup-1")] == ["type 2 diabetes mellitus"]
    # Linking rejects the repeat the same way.
    linked = link_relations_file(
        source, tmp_path / "l.jsonl", settings=sample_settings, graph=sample_graph
    )
    assert (linked.read, linked.linked_relations, linked.rejected) == (4, 2, 2)
    assert [r["line"] for r in rejects_of(linked.rejects)] == [2, 4]


def test_an_id_reused_in_a_later_run_gets_its_own_assertion(
    sample_graph: Graph, sample_settings: Settings, tmp_path: Path
) -> None:
    true = rel("metformin", "treats", "type 2 diabetes mellitus", "reused-1")
    false = rel("amoxicillin", "treats", "asthma", "reused-1")
    for n, relation in enumerate((true, false)):
        source = tmp_path / f"in{n}.jsonl"
        source.write_text(relation.model_dump_json() + "\n")
        report = verify_relations_file(
            source, tmp_path / f"v{n}.jsonl", settings=sample_settings, graph=sample_graph
        )
        assert report.written == 1
    found = assertions(sample_graph, "reused-1")
    assert [(a["object"], a["verdict"]) for a in found] == [
        ("asthma", VerdictKind.UNSUPPORTED.value),
        ("type 2 diabetes mellitus", VerdictKind.SUPPORTED.value),
    ]
    assert sorted(a["id"] for a in found) == sorted(assertion_id_of(r) for r in (true, false))
    assert all(a["id"].startswith("reused-1#") for a in found)
    # An audit by the shared relation_id answers for both assertions, saying which is which.
    rows(
        sample_graph,
        "MATCH (a:Assertion {relation_id: 'reused-1'}) "
        "CREATE (:Item {id: 'item-' + a.object_text, current: true})-[:RESTS_ON]->(a)",
    )
    by_id = run_audit(sample_graph, "items_on_assertion", assertion="reused-1")
    assert {(r["assertion"], r["item"]) for r in by_id} == {
        (a["id"], f"item-{a['object']}") for a in found
    }
    by_key = run_audit(sample_graph, "items_on_assertion", assertion=found[0]["id"])
    assert [r["item"] for r in by_key] == ["item-asthma"]


def test_the_same_relation_verified_twice_is_one_assertion(
    sample_graph: Graph, sample_settings: Settings, tmp_path: Path
) -> None:
    named = rel("metformin", "treats", "type 2 diabetes mellitus", "again-1")
    hashed = rel("Glucophage", "treats", "T2DM")  # the id is the content hash
    source = tmp_path / "in.jsonl"
    source.write_text(named.model_dump_json() + "\n" + hashed.model_dump_json() + "\n")
    for n in range(2):
        report = verify_relations_file(
            source, tmp_path / f"v{n}.jsonl", settings=sample_settings, graph=sample_graph
        )
        assert report.written == 2
    assert len(assertions(sample_graph, "again-1")) == 1
    # A content-hash id is the key as it is: graphs written before keep their keys.
    [hashed_row] = assertions(sample_graph, hashed.relation_id)
    assert hashed_row["id"] == hashed.relation_id == assertion_id_of(hashed)


# -- point 2 for EHR ingest ----------------------------------------------------------------


def test_an_overlong_code_is_a_rejected_source_row(
    sample_graph: Graph, sample_settings: Settings, tmp_path: Path
) -> None:
    original = sample_path("omop", "eunomia_sample")
    before = ingest_source(
        "omop", original, settings=sample_settings, graph=sample_graph, rejects_path=tmp_path / "a"
    )
    copy = tmp_path / "omop"
    shutil.copytree(original, copy)
    table = copy / "condition_occurrence.csv"
    with table.open(newline="") as handle:
        records = list(csv.reader(handle))
    header = records[0]
    row = records[1]
    for column in ("CONDITION_CONCEPT_ID", "CONDITION_SOURCE_CONCEPT_ID"):
        row[header.index(column)] = "0"
    row[header.index("CONDITION_SOURCE_VALUE")] = HUGE  # the code of an unmapped condition
    with table.open("w", newline="") as handle:
        csv.writer(handle).writerows(records)
    rejects = tmp_path / "rejects.jsonl"
    after = ingest_source(
        "omop", copy, settings=sample_settings, graph=sample_graph, rejects_path=rejects
    )
    [reject] = rejects_of(str(rejects))
    assert "condition_occurrence" in reject["file"] and reject["line"] is not None
    assert reject["reason"].startswith("invalid code:") and f"{MAX_ID_CHARS}" in reject["reason"]
    assert after.ingest.facts == before.ingest.facts - 1
    assert after.ingest.not_written == {}
    assert value(sample_graph, "MATCH (f:Fact) WHERE size(f.code) > 256 RETURN count(f)") == 0


def test_a_refused_fact_costs_only_its_row(graph: Graph) -> None:
    def condition(item_id: str, code: str) -> Condition:
        ref = SourceRef(table="condition_occurrence", row=code, code_system="OMOP", code=code)
        return Condition.model_construct(
            item_id=item_id, source=ref, code_system="SNOMEDCT", code=code, mapped=True
        )

    conditions = [condition("f1", "1"), condition(HUGE, "2"), condition("f3", "3")]
    trajectory = Trajectory(
        source="omop",
        patient=Patient(patient_id="faults-patient"),
        encounters=[
            Encounter(
                encounter_id="faults-enc", start="2020-01-01", kind="other", conditions=conditions
            )
        ],
    )
    refused: list[tuple[str, dict[str, Any], str]] = []
    report = ingest([trajectory], graph, on_refused=lambda *r: refused.append(r))
    assert (report.patients, report.encounters, report.facts) == (1, 1, 2)
    assert report.not_written == {"fact": 1}
    [(kind, row, reason)] = refused
    assert kind == "fact" and row["id"] == f"omop:{HUGE}" and "too large to index" in reason
    assert (
        value(graph, "MATCH (:Patient {id: 'faults-patient'})-[:HAS_FACT]->(f) RETURN count(f)")
        == 2
    )


def test_a_refused_fact_in_a_writer_threads_batch_is_handed_back(graph: Graph) -> None:
    """With batches of one fact written two at a time on writer threads, the refused row
    still reaches ``on_refused`` (on the caller's thread) and every other row is written."""

    def trajectory(n: int, item_id: str) -> Trajectory:
        code = str(n)
        ref = SourceRef(table="condition_occurrence", row=code, code_system="OMOP", code=code)
        condition = Condition.model_construct(
            item_id=item_id, source=ref, code_system="SNOMEDCT", code=code, mapped=True
        )
        return Trajectory(
            source="omop",
            patient=Patient(patient_id=f"par-patient-{n}"),
            encounters=[
                Encounter(
                    encounter_id=f"par-enc-{n}",
                    start="2020-01-01",
                    kind="other",
                    conditions=[condition],
                )
            ],
        )

    trajectories = [trajectory(n, HUGE if n == 5 else f"par-{n}") for n in range(9)]
    refused: list[tuple[str, dict[str, Any], str]] = []
    report = ingest(
        trajectories,
        graph,
        batch_size=1,
        parallel=2,
        on_refused=lambda *r: refused.append(r),
    )
    assert (report.patients, report.encounters, report.facts) == (9, 9, 8)
    assert report.not_written == {"fact": 1}
    [(kind, row, reason)] = refused
    assert kind == "fact" and row["id"] == f"omop:{HUGE}" and "too large to index" in reason
    written = "MATCH (p:Patient)-[:HAS_FACT]->(f) WHERE p.id STARTS WITH 'par-' RETURN count(f)"
    assert value(graph, written) == 8
