"""A FHIR server as the EHR agents work in (docs/fhir.md): an EHR source's patients written
into one (``load_fhir``), and the sample's FHIR leg (``sample_fhir_grades``: load, ingest
back through ``fhir-rest``, post the planted agent actions, grade the sample tasks)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kgverify.api.actions import grade_tasks, sample_actions
from kgverify.api.bookkeeping import cache_rejects, graph_of, read_trajectories, sample_path
from kgverify.api.chain import SAMPLE_EHR
from kgverify.api.sources import ingest_source
from kgverify.collector import batch_work
from kgverify.config import Settings
from kgverify.graph.driver import Graph
from kgverify.rows import RejectSink

if TYPE_CHECKING:
    from kgverify.actions.model import GradeReport
    from kgverify.ehr.fhir_write import FhirLoadReport


@batch_work
def load_fhir(
    source: str,
    path: str | Path,
    *,
    url: str | None = None,
    settings: Settings | None = None,
    rejects_path: Path | None = None,
    on_patient: Callable[[int], None] | None = None,
) -> FhirLoadReport:
    """Write an EHR source's patients into a FHIR server (``kgverify fhir load``).

    The source is read by its reader (pseudonyms, age bands; docs/fhir.md), each patient
    written as Patient, Encounter, Condition, MedicationRequest, Observation and Procedure
    resources with stable ids, ``fhir_load_batch`` patients per transaction bundle. ``url``:
    the server's base URL; default the ``fhir_url`` setting, else the local server of
    ``kgverify fhir start``. Loading twice updates in place.

    >>> report = load_fhir("omop", sample_path("omop", "eunomia_sample"))
    >>> report.patients, report.resources["Condition"]
    """
    from kgverify.ehr import Ledger
    from kgverify.ehr.fhir_http import FhirClient
    from kgverify.ehr.fhir_write import FhirLoadReport, write_trajectories
    from kgverify.server.fhir import local_url

    settings = settings or Settings()
    base = (url or local_url(settings)).rstrip("/")
    client = FhirClient.from_settings(base, settings)
    client.get("metadata")  # one error line for a server that does not answer, before reading
    sink = RejectSink(rejects_path or cache_rejects(settings) / f"fhir-load-{source}.jsonl")
    ledger = Ledger(sink)
    try:
        writer = write_trajectories(
            read_trajectories(source, path, ledger, settings),
            client,
            batch=settings.fhir_load_batch,
            rejects=sink,
            on_patient=on_patient,
        )
    finally:
        sink.close()
    return FhirLoadReport(
        url=base,
        source=source,
        patients=writer.patients,
        resources=dict(sorted(writer.counts.items())),
        bundles=writer.bundles,
        refused_patients=writer.refused,
        notes_not_written=writer.notes,
        requests=client.requests,
        retried=client.retried,
        rows=ledger.reports(),
        rejects=str(sink.path) if sink.count else None,
    )


def sample_fhir_grades(
    *,
    url: str | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
    write: bool = True,
) -> GradeReport:
    """The sample's FHIR leg (docs/fhir.md), graded from the server.

    The sample EHR is loaded into the FHIR server (``url``; default the local one of
    ``kgverify fhir start``, started when not running), ingested back through
    ``fhir-rest``, the planted actions are written into the server as an agent would, and
    the sample tasks are graded from the server's resources.
    """
    from kgverify.actions.model import ActionRecord as Record
    from kgverify.actions.server import post_actions
    from kgverify.ehr.fhir_http import FhirClient
    from kgverify.jsonl import read_models
    from kgverify.server.fhir import LocalFhirServer, local_url

    settings = settings or Settings()
    if url is None and settings.fhir_url is None:
        LocalFhirServer(settings).start()
    base = (url or local_url(settings)).rstrip("/")
    load_fhir("omop", sample_path(*SAMPLE_EHR[1]), url=base, settings=settings)
    with graph_of(settings, graph) as g:
        ingest_source("fhir-rest", base, settings=settings, graph=g)
        folder = settings.cache_dir / "sample" / "actions-fhir"
        tasks, actions = sample_actions(folder, settings=settings, server=True)
        posted = post_actions(
            FhirClient.from_settings(base, settings), read_models(actions, Record)
        )
        report = grade_tasks(tasks, server=base, settings=settings, graph=g, write=write)
    report.source = f"{base} ({len(posted.written)} actions written, {len(posted.refused)} refused)"
    return report
