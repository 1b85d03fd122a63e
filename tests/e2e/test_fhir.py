"""The FHIR leg against the real HAPI FHIR JPA server the session starts (tests/conftest.py,
``fhir_server``): the OMOP sample loaded into it, read back through ``fhir-rest`` page by
page, ingested, pulled incrementally, and the failures (a server that is down, a resource
the reader cannot read) as one error line or one reject."""

from __future__ import annotations

import csv
import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify import api
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.ehr import Ledger
from kgverify.ehr.fhir_http import FhirClient
from kgverify.ehr.fhir_write import FhirLoadReport, FhirWriter
from kgverify.ehr.model import Trajectory
from kgverify.graph import Graph
from kgverify.rows import RejectSink
from kgverify.runs import list_runs
from tests.conftest import free_port
from tests.unit.test_fhir_client import fact_content

OMOP = api.sample_path("omop", "eunomia_sample")
SUBSET = 12  # sample patients in the server: more than a page of 5, few enough to load fast
READ_TYPES = ("Patient", "Encounter", "Condition", "MedicationRequest", "Observation", "Procedure")


@pytest.fixture(scope="module")
def fhir(fhir_server: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The session's FHIR server with a cache of the module's own (rejects)."""
    update = {"cache_dir": tmp_path_factory.mktemp("fhir-cache"), "fhir_timeout_s": 600.0}
    return fhir_server.model_copy(update=update)


@pytest.fixture(scope="module")
def url(fhir: Settings) -> str:
    return f"http://127.0.0.1:{fhir.fhir_port}/fhir"


@pytest.fixture(scope="module")
def cdm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The OMOP sample's first SUBSET persons with visits, then others: the same CSV tables,
    the other persons' rows left out."""
    out = tmp_path_factory.mktemp("cdm")
    with (OMOP / "visit_occurrence.csv").open(newline="") as f:
        visited = sorted({row["PERSON_ID"] for row in csv.DictReader(f)}, key=int)
    with (OMOP / "person.csv").open(newline="") as f:
        everyone = [row["PERSON_ID"] for row in csv.DictReader(f)]
    kept = set((visited + [p for p in everyone if p not in visited])[:SUBSET])
    for table in OMOP.glob("*.csv"):
        with table.open(newline="") as f, (out / table.name).open("w", newline="") as o:
            reader = csv.DictReader(f)
            writer = csv.DictWriter(o, fieldnames=reader.fieldnames or [])
            writer.writeheader()
            writer.writerows(
                r for r in reader if r.get("PERSON_ID", "") in kept or "PERSON_ID" not in r
            )
    return out


@pytest.fixture(scope="module")
def omop(cdm: Path, fhir: Settings, tmp_path_factory: pytest.TempPathFactory) -> list[Trajectory]:
    rejects = tmp_path_factory.mktemp("omop") / "rejects.jsonl"
    return list(api.read_trajectories("omop", cdm, Ledger(RejectSink(rejects)), fhir))


@pytest.fixture(scope="module")
def loaded(cdm: Path, fhir: Settings) -> FhirLoadReport:
    """The sample subset in the server (``kgverify fhir load`` through the API)."""
    started = time.perf_counter()
    report = api.load_fhir("omop", cdm, settings=fhir)
    took = time.perf_counter() - started
    print(f"fhir load of {report.patients} patients: {took:.1f}s")  # noqa: T201 (the suite's log)
    return report


def _total(client: FhirClient, kind: str) -> int:
    return int(client.get(kind, {"_summary": "count"})["total"])


def test_load_writes_every_patient_and_again_in_place(
    loaded: FhirLoadReport, omop: list[Trajectory], fhir: Settings, url: str
) -> None:
    client = FhirClient(url)
    items = [item for t in omop for item in t.items()]
    assert loaded.patients == len(omop) and loaded.refused_patients == 0
    assert loaded.resources["Patient"] == len(omop)
    assert loaded.resources["Encounter"] == sum(len(t.encounters) for t in omop)
    assert sum(loaded.resources.values()) == len(omop) + loaded.resources["Encounter"] + len(items)
    before = {kind: _total(client, kind) for kind in READ_TYPES}
    assert before == {kind: loaded.resources.get(kind, 0) for kind in READ_TYPES}
    # Stable ids: writing patients again updates them, it adds nothing.
    writer = FhirWriter(client, batch=2, rejects=None)
    for trajectory in omop[:3]:
        writer.add(trajectory)
    writer.flush()
    assert writer.patients == 3 and writer.bundles == 2
    assert {kind: _total(client, kind) for kind in READ_TYPES} == before


def test_round_trip_gives_the_same_facts_over_pages(
    cdm: Path,
    loaded: FhirLoadReport,
    omop: list[Trajectory],
    fhir: Settings,
    url: str,
    graph: Graph,
    settings: Settings,
    tmp_path: Path,
) -> None:
    assert len(omop) == SUBSET and loaded.patients > 5  # more patients than one page
    ledger = Ledger(RejectSink(tmp_path / "rejects.jsonl"))
    started = time.perf_counter()
    back = list(api.read_trajectories("fhir-rest", f"{url}?_count=5", ledger, fhir))
    took = time.perf_counter() - started
    assert len(back) == len(omop)
    assert fact_content(back) == fact_content(omop)
    assert ledger.reconciles and not any(r.rejected for r in ledger.reports())
    print(f"fhir-rest read of {len(back)} patients: {took:.1f}s")  # noqa: T201 (the suite's log)
    # Read one patient at a time, the same trajectories come in the same order (the
    # default asks for four at once: fhir_read_workers).
    assert fhir.fhir_read_workers > 1
    alone = fhir.model_copy(update={"fhir_read_workers": 1})
    ledger_alone = Ledger(RejectSink(tmp_path / "rejects-alone.jsonl"))
    one = list(api.read_trajectories("fhir-rest", f"{url}?_count=5", ledger_alone, alone))
    assert [t.model_dump() for t in one] == [t.model_dump() for t in back]
    assert [r.model_dump() for r in ledger_alone.reports()] == [
        r.model_dump() for r in ledger.reports()
    ]
    # Ingested into the graph, both sources write the same patients, encounters and facts.
    both = settings.model_copy(update={"fhir_count": 5, "cache_dir": tmp_path})
    direct = api.ingest_source("omop", cdm, settings=both, graph=graph).ingest
    rest = api.ingest_source("fhir-rest", url, settings=both, graph=graph).ingest
    assert rest == direct and rest.facts > 0


def test_incremental_pull_reads_only_changed_patients(
    loaded: FhirLoadReport,
    url: str,
    fhir: Settings,
    cli_env: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = FhirClient(url)
    since = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    time.sleep(1.1)
    # One patient's Condition changes, another patient's Patient resource changes.
    page = client.get("Condition", {"_count": "1", "_sort": "_id"})
    condition = page["entry"][0]["resource"]
    condition["onsetDateTime"] = "2001-02-03"
    client.request("PUT", client.url(f"Condition/{condition['id']}"), condition)
    first = condition["subject"]["reference"].split("/")[-1]
    patients = client.get("Patient", {"_count": "2", "_sort": "-_id"})["entry"]
    other = next(p["resource"] for p in patients if p["resource"]["id"] != first)
    other["gender"] = "other"
    client.request("PUT", client.url(f"Patient/{other['id']}"), other)

    monkeypatch.setenv("KGVERIFY_FHIR_PORT", str(fhir.fhir_port))
    result = CliRunner().invoke(
        cli, ["ingest", "fhir-rest", f"{url}?_lastUpdated=gt{since}", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ingest"]["patients"] == 2
    patient_rows = next(r for r in report["rows"] if r["file"] == "Patient")
    assert patient_rows["loaded"] == 2


def test_a_resource_the_reader_cannot_read_is_one_reject(
    loaded: FhirLoadReport, url: str, fhir: Settings, tmp_path: Path
) -> None:
    client = FhirClient(url)
    patient = client.get("Patient", {"_count": "1", "_sort": "_id"})["entry"][0]["resource"]
    bad = {
        "resourceType": "Condition",
        "id": "no-coding-1",
        "subject": {"reference": f"Patient/{patient['id']}"},
        "code": {"text": "written by hand, no coding"},
    }
    client.request("PUT", client.url("Condition/no-coding-1"), bad)
    rejects = tmp_path / "rejects.jsonl"
    ledger = Ledger(RejectSink(rejects))
    source = f"{url}?_id={patient['id']}"
    (trajectory,) = api.read_trajectories("fhir-rest", source, ledger, fhir)
    ledger.rejects.close()
    conditions = ledger.report("Condition")
    assert conditions.rejected == 1 and conditions.loaded == conditions.read - 1 > 0
    assert (
        len(trajectory.items_outside_encounters.conditions)
        + sum(len(e.conditions) for e in trajectory.encounters)
        == conditions.loaded
    )
    (line,) = rejects.read_text().splitlines()
    row = json.loads(line)
    assert row["text"] == "Condition/no-coding-1" and "no coding" in row["reason"]


def test_a_server_that_is_down_is_one_error_line_and_no_run(
    cli_env: Settings, graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = len(list_runs(graph))
    monkeypatch.setenv("KGVERIFY_FHIR_RETRIES", "1")
    down = f"http://127.0.0.1:{free_port()}/fhir"
    result = CliRunner().invoke(cli, ["ingest", "fhir-rest", down])
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "cannot reach" in lines[0]
    assert len(list_runs(graph)) == runs  # nothing begun, nothing half-written


def test_fhir_status_says_where_the_server_runs(
    fhir_server: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KGVERIFY_FHIR_HOME", str(fhir_server.fhir_local_home))
    monkeypatch.setenv("KGVERIFY_FHIR_PORT", str(fhir_server.fhir_port))
    result = CliRunner().invoke(cli, ["fhir", "status", "--json"])
    assert result.exit_code == 0, result.output
    status = json.loads(result.stdout)
    assert status["running"] and status["url"] == f"http://127.0.0.1:{fhir_server.fhir_port}/fhir"


def test_a_patient_the_server_refuses_is_a_reject_and_not_half_written(
    loaded: FhirLoadReport, omop: list[Trajectory], url: str, tmp_path: Path
) -> None:
    client = FhirClient(url)
    good, original = omop[0], omop[1]
    # The second patient again under an id no FHIR server takes ("bad id!"): its bundle is
    # refused whole, so its resources, already loaded, keep their own patient.
    bad = original.model_copy(
        update={"patient": original.patient.model_copy(update={"patient_id": "bad id!"})}
    )
    rejects = RejectSink(tmp_path / "rejects.jsonl")
    writer = FhirWriter(client, batch=5, rejects=rejects)
    writer.add(good)
    writer.add(bad)
    writer.flush()
    rejects.close()
    assert (writer.patients, writer.refused, writer.bundles) == (1, 1, 1)
    (line,) = (tmp_path / "rejects.jsonl").read_text().splitlines()
    assert json.loads(line)["text"] == "Patient/kgv-bad id!"
    item = next(original.items())
    resource = client.get(f"{_TYPES[type(item).__name__]}/kgv-{item.item_id}")
    assert resource["subject"]["reference"] == f"Patient/kgv-{original.patient.patient_id}"
    found = client.get("Patient", {"identifier": "urn:kgverify:pseudonym|bad id!"})
    assert not found.get("entry")


_TYPES = {
    "Condition": "Condition",
    "DrugExposure": "MedicationRequest",
    "Measurement": "Observation",
    "Procedure": "Procedure",
}
