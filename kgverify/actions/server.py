"""Agent actions on a FHIR server: the resources an agent created or updated, read back as
action records (``read_server_actions``), and the planted sample actions written in
(``post_actions``), so grading reads them from where an agent would leave them.

Which resources are an agent's: those tagged with a task (``meta.tag`` of system
``urn:kgverify:task``, the task id its code; one search per task and resource type), or
those changed since a time (``_lastUpdated``). Each is an ``ActionRecord`` whose id is the
resource's ``Type/id`` and whose patient is the pseudonym ``fhir-rest`` ingest gives the
resource's subject (namespace ``fhir``), so the record it is judged against is the one
ingested from the same server."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kgverify.actions.model import RESOURCE_KINDS, ActionRecord
from kgverify.ehr.fhir_http import FhirClient, FhirHttpError
from kgverify.ehr.fhir_write import resource_id
from kgverify.ehr.privacy import pseudonym

TASK_TAG = "urn:kgverify:task"
"""``meta.tag`` system naming the task a resource was written for."""

FHIR_PATIENT = "fhir:patient"
"""The namespace of the pseudonyms ``fhir-rest`` (and the FHIR file reader) give patients."""

_FHIR_ID = re.compile(r"[^A-Za-z0-9.-]")


def server_patient(salt: str, subject_id: str) -> str:
    """The graph's id for the server's Patient ``subject_id`` once ingested through
    ``fhir-rest``."""
    return pseudonym(salt, FHIR_PATIENT, subject_id)


def read_server_actions(
    client: FhirClient,
    salt: str,
    *,
    tasks: Iterable[str] = (),
    since: str | None = None,
    count: int = 100,
) -> Iterator[ActionRecord]:
    """The agent's resources on the server as action records, one page at a time: those
    tagged with one of ``tasks``, else those changed since ``since`` (a FHIR instant or
    date). A resource in both a task's and another search is read once per search."""
    task_list = list(tasks)
    if not task_list and since is None:
        raise ValueError("name tasks or a time to read actions since")
    searches: list[tuple[str | None, dict[str, str]]] = (
        [(t, {"_tag": f"{TASK_TAG}|{t}"}) for t in task_list]
        if task_list
        else [(None, {"_lastUpdated": f"ge{since}"})]
    )
    for task, params in searches:
        for kind in RESOURCE_KINDS:
            for page in client.pages(kind, {**params, "_count": str(count), "_sort": "_id"}):
                for entry in page.get("entry") or []:
                    resource = entry.get("resource") if isinstance(entry, dict) else None
                    if isinstance(resource, dict) and resource.get("resourceType") == kind:
                        yield _record(resource, task, salt)


def _record(resource: dict[str, Any], task: str | None, salt: str) -> ActionRecord:
    tagged = next(
        (
            t.get("code")
            for t in (resource.get("meta") or {}).get("tag") or []
            if isinstance(t, dict) and t.get("system") == TASK_TAG
        ),
        None,
    )
    subject = resource.get("subject") if "subject" in resource else resource.get("patient")
    reference = subject.get("reference") if isinstance(subject, dict) else None
    patient = None
    if isinstance(reference, str) and reference.startswith("Patient/"):
        patient = server_patient(salt, reference.removeprefix("Patient/"))
    return ActionRecord(
        action_id=f"{resource['resourceType']}/{resource.get('id')}",
        task_id=task or (str(tagged) if tagged else None),
        patient_id=patient,
        resource=resource,
    )


@dataclass
class PostReport:
    """What ``post_actions`` wrote, and what the server refused (``action_id``, reason)."""

    written: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


def post_actions(client: FhirClient, records: Iterable[ActionRecord]) -> PostReport:
    """Write action records into the server as an agent would: each resource PUT under an
    id made from its action id (so a second post updates in place), tagged with its task,
    its subject the server's Patient of the record's patient (``kgv-`` + the pseudonym, as
    ``kgverify fhir load`` writes patients). A resource the server refuses (one it cannot
    parse) is reported with the server's reason, and the others are still written."""
    report = PostReport()
    for record in records:
        resource = dict(record.resource)
        kind = str(resource.get("resourceType"))
        rid = _FHIR_ID.sub("-", record.action_id)[:64]
        resource["id"] = rid
        if record.task_id:
            meta = dict(resource.get("meta") or {})
            meta["tag"] = [{"system": TASK_TAG, "code": record.task_id}]
            resource["meta"] = meta
        if record.patient_id:
            key = "patient" if "patient" in resource and "subject" not in resource else "subject"
            resource[key] = {"reference": f"Patient/{resource_id(record.patient_id)}"}
        try:
            client.request("PUT", client.url(f"{kind}/{rid}"), resource)
        except FhirHttpError as exc:
            report.refused.append((record.action_id, str(exc)))
            continue
        report.written.append(f"{kind}/{rid}")
    return report
