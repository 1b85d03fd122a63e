"""A FHIR R4 server's REST API -> trajectories, one patient at a time (source ``fhir-rest``).

The source is the server's base URL, optionally with search parameters:
``http://127.0.0.1:8080/fhir``, ``...?_lastUpdated=gt2026-01-01T00:00:00Z`` (an incremental
pull), ``...?_count=100`` (page size; default the ``fhir_count`` setting); any other
parameter narrows the Patient search (``?gender=female``).

A full pull pages through ``Patient?_sort=_id`` (``Bundle.link[next]``); an incremental one
collects the patients whose Patient or any read resource (Encounter, Condition,
MedicationRequest, Observation, Procedure) changed in the window, in an on-disk set. Each
patient's record is then fetched whole with ``Patient/{id}/$everything`` (paged), or, on a
server without that operation, with one search per resource type, and read exactly as the
file reader reads a bundle (``fhir.patient_trajectory``): the same trajectories, the same
pseudonyms (namespace ``fhir``: a patient read from an export and from the server is one
patient), every resource counted under its type, rejects as ``Type/id`` and the reason.

Requests carry the bearer token of ``fhir_token`` / ``fhir_token_file``, time out after
``fhir_timeout_s`` and are retried ``fhir_retries`` times with backoff on 429, 5xx and no
answer (``fhir_http``); a server that still fails ends the read with one error line.
"""

from __future__ import annotations

import logging
import sqlite3
import tempfile
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from kgverify.ahead import mapped_ahead
from kgverify.config import Settings
from kgverify.ehr.common import Ledger, SourceError
from kgverify.ehr.fhir import EVENT_TYPES, patient_trajectory
from kgverify.ehr.fhir_http import FhirClient, FhirHttpError, entries
from kgverify.ehr.model import Trajectory
from kgverify.ehr.privacy import check_salt

log = logging.getLogger(__name__)

# Answers that mean "no $everything here": fall back to searches per resource type.
NO_EVERYTHING = frozenset({400, 404, 405, 501})


@dataclass(frozen=True)
class RestSource:
    """A ``fhir-rest`` source: the server's base URL and what the URL's query asks for."""

    base: str
    count: int
    since: str | None  # the _lastUpdated value, e.g. "gt2026-01-01T00:00:00Z"
    patient_params: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, text: str, default_count: int) -> RestSource:
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SourceError(
                f"fhir-rest reads a FHIR server's URL (http(s)://host/fhir), not {text!r}"
            )
        base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
        count, since, params = default_count, None, []
        for key, value in parse_qsl(parts.query, keep_blank_values=True):
            if key == "_count":
                if not value.isdigit() or not 1 <= int(value) <= 1000:
                    raise SourceError(f"_count={value!r}: expected a number from 1 to 1000")
                count = int(value)
            elif key == "_lastUpdated":
                if since is not None:
                    raise SourceError("give _lastUpdated once (gt|ge followed by an instant)")
                if value[:2] not in ("gt", "ge") or len(value) < 6:
                    raise SourceError(
                        f"_lastUpdated={value!r}: expected gt or ge and a date, "
                        "e.g. gt2026-01-01T00:00:00Z"
                    )
                since = value
            else:
                params.append((key, value))
        return cls(base, count, since, tuple(params))


def check_rest_source(text: str, settings: Settings) -> RestSource:
    """The parsed source, after one ``GET metadata``: an unreachable or non-FHIR server is
    one error line before anything is read or written."""
    source = RestSource.parse(text, settings.fhir_count)
    client = FhirClient.from_settings(source.base, settings)
    statement = client.get("metadata")
    if statement.get("resourceType") != "CapabilityStatement":
        raise SourceError(
            f"{source.base} is not a FHIR server (metadata is no CapabilityStatement)"
        )
    return source


def read_fhir_rest(
    source: Path | str,
    ledger: Ledger,
    *,
    salt: str,
    workdir: Path | None = None,
    memory_limit: str | None = None,
    settings: Settings | None = None,
) -> Generator[Trajectory, None, None]:
    """Trajectories of the patients of the server at ``source`` (a URL), one at a time."""
    check_salt(salt)
    settings = settings or Settings()
    rest = RestSource.parse(str(source), settings.fhir_count)
    client = FhirClient.from_settings(rest.base, settings)
    del memory_limit  # nothing is sorted here: the server pages, a few patients in memory
    return _trajectories(client, rest, ledger, salt, workdir, settings.fhir_read_workers)


def _trajectories(
    client: FhirClient,
    rest: RestSource,
    ledger: Ledger,
    salt: str,
    workdir: Path | None,
    workers: int = 1,
) -> Generator[Trajectory, None, None]:
    reader = _PatientReader(client, rest.count)
    count = 0
    with (
        tempfile.TemporaryDirectory(dir=workdir, prefix="kgverify-fhir-rest-") as tmp,
        # A record is mostly the server's time: ``workers`` are asked at once, and read
        # here in id order (two windows ahead at most), so the output does not change.
        mapped_ahead(
            reader.record,
            _changed_ids(client, rest, Path(tmp)) if rest.since else _patient_ids(client, rest),
            workers=workers,
            ahead=2 * workers,
            name="kgverify-fhir-read",
        ) as records,
    ):
        for patient_id, resources in records:
            trajectory = patient_trajectory(patient_id, resources, ledger, salt, "$everything")
            if trajectory is not None:
                count += 1
                yield trajectory
    log.info(
        "fhir-rest: %d trajectories from %s (%d requests, %d retried)",
        count,
        rest.base,
        client.requests,
        client.retried,
    )


def _patient_ids(
    client: FhirClient, rest: RestSource, window: dict[str, str] | None = None
) -> Iterator[str]:
    params = {"_count": str(rest.count), "_sort": "_id", "_elements": "id", **(window or {})}
    params.update(rest.patient_params)
    for page in client.pages("Patient", params):
        for entry in entries(page):
            resource = entry.get("resource")
            if isinstance(resource, dict) and resource.get("resourceType") == "Patient":
                rid = resource.get("id")
                if isinstance(rid, str) and rid:
                    yield rid


def _subject_id(resource: dict[str, Any]) -> str | None:
    subject = resource.get("subject") or resource.get("patient")
    ref = subject.get("reference") if isinstance(subject, dict) else None
    if not isinstance(ref, str):
        return None
    parts = ref.rstrip("/").split("/")
    if "_history" in parts:
        parts = parts[: parts.index("_history")]
    return parts[-1] if len(parts) >= 2 and parts[-2] == "Patient" and parts[-1] else None


def _changed_ids(client: FhirClient, rest: RestSource, tmp: Path) -> Iterator[str]:
    """The patients with a resource changed in the window, each once, in id order; the set
    lives in SQLite on disk (an incremental pull can still touch every patient)."""
    assert rest.since is not None
    db = sqlite3.connect(tmp / "changed.sqlite")
    try:
        db.execute("CREATE TABLE changed (id TEXT PRIMARY KEY) WITHOUT ROWID")
        window = {"_lastUpdated": rest.since, "_count": str(rest.count)}
        for rid in _patient_ids(client, rest, {"_lastUpdated": rest.since}):
            db.execute("INSERT OR IGNORE INTO changed VALUES (?)", (rid,))
        for kind in ("Encounter", *EVENT_TYPES):
            for page in client.pages(kind, {**window, "_elements": "subject,patient"}):
                for entry in entries(page):
                    resource = entry.get("resource")
                    found = _subject_id(resource) if isinstance(resource, dict) else None
                    if found is not None:
                        db.execute("INSERT OR IGNORE INTO changed VALUES (?)", (found,))
            db.commit()
        last = ""
        while True:  # a page of ids at a time, so no cursor stays open across yields
            page_ids = [
                r[0]
                for r in db.execute(
                    "SELECT id FROM changed WHERE id > ? ORDER BY id LIMIT 1000", (last,)
                )
            ]
            if not page_ids:
                return
            yield from page_ids
            last = page_ids[-1]
    finally:
        db.close()


class _PatientReader:
    """One patient's resources: ``$everything``, or searches where the server has none."""

    def __init__(self, client: FhirClient, count: int) -> None:
        self.client = client
        self.count = count
        self.everything = True

    def record(self, patient_id: str) -> tuple[str, list[dict[str, Any]]]:
        """The patient's id and resources (called from several threads at once)."""
        return patient_id, self._resources(patient_id)

    def _resources(self, patient_id: str) -> list[dict[str, Any]]:
        if self.everything:
            try:
                return self._pages(f"Patient/{patient_id}/$everything", {})
            except FhirHttpError as exc:
                if exc.status not in NO_EVERYTHING:
                    raise
                log.info("fhir-rest: no Patient/$everything (%s); searching per type", exc.status)
                self.everything = False
        found = [self.client.get(f"Patient/{patient_id}")]
        for kind in ("Encounter", *EVENT_TYPES):
            found += self._pages(kind, {"subject": f"Patient/{patient_id}"})
        return found

    def _pages(self, path: str, params: dict[str, str]) -> list[dict[str, Any]]:
        resources: list[dict[str, Any]] = []
        for page in self.client.pages(path, {**params, "_count": str(self.count)}):
            for entry in entries(page):
                resource = entry.get("resource")
                resources.append(resource if isinstance(resource, dict) else {})
        return resources
