"""Trajectories -> FHIR R4 resources, written to a FHIR server as transaction bundles.

What ``kgverify fhir load`` does with any EHR source (OMOP, MIMIC-IV, FHIR files): the
source is read by its reader (so only pseudonymized data leaves it), each patient becomes a
Patient with its Encounters, Conditions, MedicationRequests, Observations and Procedures, and
``fhir_load_batch`` patients go in one transaction bundle. Every entry is a PUT with a stable
id made from the trajectory's pseudonyms and item ids, so a second load updates in place
(HAPI stores no new version of an unchanged resource) and a transaction either writes a
batch whole or not at all. A batch the server refuses (4xx) is retried patient by patient;
a patient still refused is a reject (``Patient/id`` and the server's reason), never a
half-written patient. 429 and 5xx answers are retried with backoff by the client.

Privacy: the Patient has the pseudonym, sex and a birth year only: the middle of its age
band at the first encounter (``90+`` is written as 90), so reading it back gives the same
band; no name, address or day of birth. Dates of events are the recorded ones, as in the
graph. Notes are not written (their text would leave the graph's text-free records).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, Field

from kgverify.ehr.codes import system_uri
from kgverify.ehr.fhir_http import FhirClient, FhirHttpError
from kgverify.ehr.model import (
    CodedItem,
    Condition,
    DrugExposure,
    Encounter,
    Measurement,
    Note,
    Procedure,
    Trajectory,
    sort_key,
)
from kgverify.rows import FileReport, RejectedRow, RejectSink

log = logging.getLogger(__name__)

ID_PREFIX = "kgv-"
"""Resource ids are ``kgv-`` + a pseudonym or item id: never all digits, which servers with
HAPI's default id strategy refuse for client-assigned ids."""
PSEUDONYM_SYSTEM = "urn:kgverify:pseudonym"
"""Patient.identifier system holding the trajectory's patient pseudonym (the graph's id)."""
LOAD_TAG = {"system": "urn:kgverify:tag", "code": "loaded", "display": "written by kgverify"}
"""meta.tag on every resource ``fhir load`` writes: what an agent adds later has none."""

ENCOUNTER_CLASSES = {
    "inpatient": ("http://terminology.hl7.org/CodeSystem/v3-ActCode", "IMP"),
    "outpatient": ("http://terminology.hl7.org/CodeSystem/v3-ActCode", "AMB"),
    "emergency": ("http://terminology.hl7.org/CodeSystem/v3-ActCode", "EMER"),
    "other": ("http://terminology.hl7.org/CodeSystem/v3-NullFlavor", "UNK"),
}
INTERPRETATION_CODES = {"high": "H", "low": "L", "normal": "N", "abnormal": "A"}
INTERPRETATION_SYSTEM = "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation"
# The age written for each band: its middle, and exactly 90 for "90+" (never older).
_BAND_AGE = {"0-9": 5, "90+": 90}


class FhirLoadReport(BaseModel):
    """What ``kgverify fhir load`` wrote (``api.load_fhir``)."""

    url: str
    source: str
    patients: int = Field(description="patients written")
    resources: dict[str, int] = Field(description="resources written, per type")
    bundles: int = Field(description="transaction bundles accepted")
    refused_patients: int = Field(0, description="patients the server refused (rejects)")
    notes_not_written: int = 0
    requests: int = Field(0, description="HTTP requests, retries included")
    retried: int = Field(0, description="requests repeated after 429, 5xx or no answer")
    rows: list[FileReport] = Field(default_factory=list, description="the source's rows")
    rejects: str | None = None


def resource_id(pseudonym: str) -> str:
    return f"{ID_PREFIX}{pseudonym}"


def _when(value: date | datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _concept(item: CodedItem) -> dict[str, Any]:
    coding: dict[str, Any] = {"system": system_uri(item.code_system), "code": item.code}
    if item.display:
        coding["display"] = item.display
    return {"coding": [coding]}


def _birth_year(trajectory: Trajectory) -> str | None:
    """The year of birth whose age at the first dated event is the middle of the band."""
    band = trajectory.patient.age_band
    if band is None:
        return None
    starts = [e.start for e in trajectory.encounters]
    dated = [i.start for i in trajectory.items() if i.start is not None]
    first = min(starts or dated, key=sort_key, default=None)
    if first is None:
        return None
    age = _BAND_AGE[band] if band in _BAND_AGE else int(band.split("-")[0]) + 5
    return f"{first.year - age:04d}"


def patient_resource(trajectory: Trajectory) -> dict[str, Any]:
    patient = trajectory.patient
    resource: dict[str, Any] = {
        "resourceType": "Patient",
        "id": resource_id(patient.patient_id),
        "meta": {"tag": [LOAD_TAG]},
        "identifier": [{"system": PSEUDONYM_SYSTEM, "value": patient.patient_id}],
        "gender": {"F": "female", "M": "male"}.get(patient.sex, "unknown"),
    }
    year = _birth_year(trajectory)
    if year is not None:
        resource["birthDate"] = year
    return resource


def _encounter(encounter: Encounter, subject: dict[str, str]) -> dict[str, Any]:
    system, code = ENCOUNTER_CLASSES[encounter.kind]
    period = {"start": _when(encounter.start)}
    if encounter.end is not None:
        period["end"] = _when(encounter.end)
    return {
        "resourceType": "Encounter",
        "id": resource_id(encounter.encounter_id),
        "meta": {"tag": [LOAD_TAG]},
        "status": "finished",
        "class": {"system": system, "code": code},
        "subject": subject,
        "period": period,
    }


def _condition(item: Condition) -> dict[str, Any]:
    resource: dict[str, Any] = {
        "resourceType": "Condition",
        "clinicalStatus": {
            "coding": [
                {
                    "system": "http://terminology.hl7.org/CodeSystem/condition-clinical",
                    "code": "resolved" if item.end is not None else "active",
                }
            ]
        },
        "code": _concept(item),
    }
    if item.start is not None:
        resource["onsetDateTime"] = _when(item.start)
    if item.end is not None:
        resource["abatementDateTime"] = _when(item.end)
    return resource


def _dose(text: str | None) -> int | float | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def _medication(item: DrugExposure) -> dict[str, Any]:
    resource: dict[str, Any] = {
        "resourceType": "MedicationRequest",
        "status": "completed" if item.end is not None else "active",
        "intent": "order",
        "medicationCodeableConcept": _concept(item),
    }
    if item.start is not None:
        resource["authoredOn"] = _when(item.start)
    if item.end is not None:
        validity = {"end": _when(item.end)}
        if item.start is not None:
            validity = {"start": _when(item.start), **validity}
        resource["dispenseRequest"] = {"validityPeriod": validity}
    dosage: dict[str, Any] = {}
    if item.route:
        dosage["route"] = {"text": item.route}
    value = _dose(item.dose)
    if value is not None:
        quantity: dict[str, Any] = {"value": value}
        if item.dose_unit:
            quantity["unit"] = item.dose_unit
        dosage["doseAndRate"] = [{"doseQuantity": quantity}]
    elif item.dose:
        dosage["text"] = f"{item.dose} {item.dose_unit or ''}".strip()
    if dosage:
        resource["dosageInstruction"] = [dosage]
    return resource


def _observation(item: Measurement) -> dict[str, Any]:
    resource: dict[str, Any] = {
        "resourceType": "Observation",
        "status": "final",
        "code": _concept(item),
    }
    if item.start is not None:
        resource["effectiveDateTime"] = _when(item.start)
    if item.value is not None:
        quantity: dict[str, Any] = {"value": item.value}
        if item.unit:
            quantity["unit"] = item.unit
        resource["valueQuantity"] = quantity
    elif item.value_text:
        resource["valueString"] = item.value_text
    limits = {
        k: {"value": v}
        for k, v in (("low", item.ref_low), ("high", item.ref_high))
        if v is not None
    }
    if limits:
        resource["referenceRange"] = [limits]
    if item.flag is not None:
        code = INTERPRETATION_CODES[item.flag]
        resource["interpretation"] = [{"coding": [{"system": INTERPRETATION_SYSTEM, "code": code}]}]
    return resource


def _procedure(item: Procedure) -> dict[str, Any]:
    resource: dict[str, Any] = {
        "resourceType": "Procedure",
        "status": "completed",
        "code": _concept(item),
    }
    if item.end is not None:
        period = {"start": _when(item.start), "end": _when(item.end)}
        resource["performedPeriod"] = {k: v for k, v in period.items() if v is not None}
    elif item.start is not None:
        resource["performedDateTime"] = _when(item.start)
    return resource


_MAKERS: dict[type, Callable[[Any], dict[str, Any]]] = {
    Condition: _condition,
    DrugExposure: _medication,
    Measurement: _observation,
    Procedure: _procedure,
}


def trajectory_resources(trajectory: Trajectory) -> tuple[list[dict[str, Any]], int]:
    """The patient's resources (Patient first, then encounters, then items) and how many
    notes were left out."""
    patient = patient_resource(trajectory)
    subject = {"reference": f"Patient/{patient['id']}"}
    resources = [patient]
    notes = 0
    seen: set[str] = set()

    def add(item: Any, encounter: dict[str, Any] | None) -> None:
        nonlocal notes
        if isinstance(item, Note):
            notes += 1
            return
        resource = _MAKERS[type(item)](item)
        rid = resource_id(item.item_id)
        if rid in seen:  # one source row read twice: written once
            return
        seen.add(rid)
        resource = {
            "resourceType": resource.pop("resourceType"),
            "id": rid,
            "meta": {"tag": [LOAD_TAG]},
            **resource,
        }
        resource["subject"] = subject
        if encounter is not None:
            resource["encounter"] = {"reference": f"Encounter/{encounter['id']}"}
        resources.append(resource)

    for encounter in trajectory.encounters:
        written = _encounter(encounter, subject)
        resources.append(written)
        for item in encounter.items():
            add(item, written)
    for item in trajectory.items_outside_encounters.items():
        add(item, None)
    return resources, notes


def transaction(resources: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """A transaction bundle of PUTs (create or update at the given id)."""
    return {
        "resourceType": "Bundle",
        "type": "transaction",
        "entry": [
            {
                "fullUrl": f"{r['resourceType']}/{r['id']}",
                "resource": r,
                "request": {"method": "PUT", "url": f"{r['resourceType']}/{r['id']}"},
            }
            for r in resources
        ],
    }


class FhirWriter:
    """Writes patients in batches; ``counts`` per resource type of what was accepted."""

    def __init__(self, client: FhirClient, batch: int, rejects: RejectSink | None) -> None:
        self.client = client
        self.batch = batch
        self.rejects = rejects
        self.counts: Counter[str] = Counter()
        self.patients = 0
        self.refused = 0
        self.bundles = 0
        self.notes = 0
        self._pending: list[list[dict[str, Any]]] = []

    def add(self, trajectory: Trajectory) -> None:
        resources, notes = trajectory_resources(trajectory)
        self.notes += notes
        self._pending.append(resources)
        if len(self._pending) >= self.batch:
            self.flush()

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        if pending:
            self._send(pending)

    def _send(self, patients: list[list[dict[str, Any]]]) -> None:
        try:
            self.client.transaction(transaction(r for p in patients for r in p))
        except FhirHttpError as exc:
            if exc.status is None or exc.status >= 500 or exc.status == 429:
                raise  # the server's trouble, not the data's: retried already
            if len(patients) > 1:  # find the patient the server refuses
                for one in patients:
                    self._send([one])
                return
            self._refuse(patients[0], str(exc))
            return
        self.bundles += 1
        self.patients += len(patients)
        for resources in patients:
            self.counts.update(r["resourceType"] for r in resources)

    def _refuse(self, resources: list[dict[str, Any]], reason: str) -> None:
        self.refused += 1
        label = f"Patient/{resources[0]['id']}"
        log.warning("FHIR server refused %s", label)
        if self.rejects is not None:
            self.rejects.write(RejectedRow(file="fhir-load", line=None, reason=reason, text=label))


def write_trajectories(
    trajectories: Iterable[Trajectory],
    client: FhirClient,
    *,
    batch: int,
    rejects: RejectSink | None = None,
    on_patient: Callable[[int], None] | None = None,
) -> FhirWriter:
    """Write every trajectory, ``batch`` patients per transaction; the writer's counts."""
    writer = FhirWriter(client, batch, rejects)
    for done, trajectory in enumerate(trajectories, start=1):
        writer.add(trajectory)
        if on_patient is not None:
            on_patient(done)
    writer.flush()
    return writer


def iter_resources(trajectories: Iterable[Trajectory]) -> Iterator[dict[str, Any]]:
    """Every resource ``fhir load`` would write for ``trajectories`` (for tests and dumps)."""
    for trajectory in trajectories:
        yield from trajectory_resources(trajectory)[0]
