"""FHIR R4 (Bundle JSON files, or NDJSON of resources) -> trajectories, one patient at a time.

Resources of one patient may be spread over files (a bulk export writes one NDJSON file per
resource type), so reading happens in two passes. The first streams every file once, one
bundle or one line at a time: it resolves each resource's patient and encounter references
(``Patient/x``, absolute URLs and the bundle's ``urn:uuid:`` fullUrls), inlines a
``medicationReference`` found in the same bundle, and appends the resource to a staging file
on disk. The second lets DuckDB sort the staged resources by patient and merges them per
patient (see ``common``). Patient, Encounter, Condition, MedicationRequest, Observation and
Procedure are read; other resource types are counted as skipped.

Every resource is counted in the tally of the file it came from; a reject's ``line`` is the
1-based position of the entry in ``Bundle.entry`` (NDJSON: the line) and its text is
``Type/id``, never the resource (a Patient resource holds names and addresses).
"""

from __future__ import annotations

import csv
import json
import logging
import tempfile
from collections.abc import Callable, Generator, Mapping
from contextlib import closing
from functools import partial
from pathlib import Path
from typing import IO, Any

import duckdb

from kgverify.config import Settings
from kgverify.ehr import duck
from kgverify.ehr.codes import GRAPH_NAMESPACES, NDC, fhir_system
from kgverify.ehr.common import (
    Ledger,
    RowError,
    SourceError,
    SourceRow,
    TrajectoryDraft,
    WhenValue,
    group_by_patient,
    parse_when,
    reject_all,
    sex_of,
)
from kgverify.ehr.model import (
    Condition,
    DrugExposure,
    EncounterKind,
    Flag,
    Item,
    Measurement,
    Procedure,
    SourceRef,
    Trajectory,
)
from kgverify.ehr.privacy import check_salt
from kgverify.jsonl import loads_line

log = logging.getLogger(__name__)

READ_TYPES = ("Patient", "Encounter", "Condition", "MedicationRequest", "Observation", "Procedure")
EVENT_TYPES = READ_TYPES[2:]

ENCOUNTER_KINDS: dict[str, EncounterKind] = {
    "IMP": "inpatient", "ACUTE": "inpatient", "NONAC": "inpatient", "PRENC": "inpatient",
    "AMB": "outpatient", "VR": "outpatient", "HH": "outpatient", "FLD": "outpatient",
    "OBSENC": "outpatient", "SS": "outpatient",
    "EMER": "emergency",
}  # fmt: skip
"""HL7 v3 ActCode encounter classes (Encounter.class)."""

INTERPRETATIONS: dict[str, Flag] = {
    "H": "high", "HH": "high", "HU": "high", ">": "high",
    "L": "low", "LL": "low", "LU": "low", "<": "low",
    "N": "normal", "A": "abnormal", "AA": "abnormal",
}  # fmt: skip
"""HL7 v3 ObservationInterpretation codes with a direction or a normal/abnormal verdict."""

_STAGED = ("key", "seq", "file", "idx", "rtype", "rid", "enc", "json")


def read_fhir(
    source: Path | str,
    ledger: Ledger,
    *,
    salt: str,
    workdir: Path | None = None,
    memory_limit: str | None = None,
    settings: Settings | None = None,
) -> Generator[Trajectory, None, None]:
    """Trajectories of every Patient in ``source`` (a ``.json``/``.ndjson`` file or a folder
    searched recursively), ordered by Patient id. A missing source or a folder without FHIR
    files raises ``SourceError`` here; ``workdir`` holds the staging files."""
    source, _ = Path(source), settings  # a path; no connection settings to read
    check_salt(salt)
    return duck.bounded(_trajectories(source, _locate(source), ledger, salt, workdir, memory_limit))


def _locate(source: Path) -> list[Path]:
    if source.is_file():
        return [source]
    if not source.is_dir():
        raise SourceError(f"FHIR source {source} does not exist")
    files = sorted(p for p in source.rglob("*") if p.is_file() and _is_fhir_file(p))
    if not files:
        raise SourceError(f"FHIR folder {source} has no .json or .ndjson files")
    return files


def _is_fhir_file(path: Path) -> bool:
    return path.suffix.lower() in (".json", ".ndjson")


def _trajectories(
    root: Path,
    files: list[Path],
    ledger: Ledger,
    salt: str,
    workdir: Path | None,
    memory_limit: str | None,
) -> Generator[Trajectory, None, None]:
    base = root if root.is_dir() else root.parent
    with (
        tempfile.TemporaryDirectory(dir=workdir, prefix="kgverify-fhir-") as tmp,
        closing(duck.scratch(Path(tmp), memory_limit)) as con,
    ):
        staging = Path(tmp) / "resources.csv"
        with staging.open("w", encoding="utf-8", newline="") as out:
            stager = _Stager(csv.writer(out), ledger)
            for path in files:
                stager.file(path, path.relative_to(base).as_posix())
        _load_staged(con, staging)
        facts = {t: duck.stream(con, _sorted(t), _row) for t in ("Encounter", *EVENT_TYPES)}
        patients = duck.stream(con, _sorted("Patient"), _row)
        count = 0
        for patient, rows in group_by_patient(patients, facts, ledger):
            trajectory = _trajectory(patient, rows, ledger, salt)
            if trajectory is not None:
                count += 1
                yield trajectory
        log.info("fhir: %d trajectories from %d files", count, len(files))


# --- pass 1: files -> staged resources ------------------------------------------------


def _reference(ref: object, kind: str, urls: Mapping[str, tuple[str, str]]) -> str | None:
    """The id a reference points to if it is of type ``kind``: a bundle fullUrl
    (``urn:uuid:...``), ``Kind/id``, or an absolute URL ending in ``Kind/id[/_history/v]``."""
    if not isinstance(ref, str):
        return None
    if ref in urls:
        found_kind, found_id = urls[ref]
        return found_id if found_kind == kind else None
    parts = ref.rstrip("/").split("/")
    if "_history" in parts:
        parts = parts[: parts.index("_history")]
    if len(parts) >= 2 and parts[-2] == kind and parts[-1]:
        return parts[-1]
    return None


def _own_id(entry: Mapping[str, Any], resource: Mapping[str, Any]) -> str | None:
    rid = resource.get("id")
    if isinstance(rid, str) and rid:
        return rid
    url = entry.get("fullUrl")
    if isinstance(url, str) and url.startswith("urn:uuid:"):
        return url.removeprefix("urn:uuid:")
    return None


class _Stager:
    """Pass 1: resolves references per bundle and writes resources to the staging CSV."""

    def __init__(self, writer: Any, ledger: Ledger, *, by_type: bool = False) -> None:
        self._writer = writer
        self._ledger = ledger
        self._seq = 0
        self._by_type = by_type  # count each resource under its type, not its file

    def file(self, path: Path, name: str) -> None:
        tally = self._ledger.tally(name)
        if path.suffix.lower() == ".ndjson":
            with path.open("rb") as lines:
                self._ndjson(lines, name)
            return
        try:
            document = loads_line(path.read_bytes())
        except ValueError as exc:
            tally.read += 1
            tally.reject(None, str(exc), "(file content withheld)")
            return
        if isinstance(document, dict) and document.get("resourceType") == "Bundle":
            entries = document.get("entry") or []
        else:
            entries = [{"resource": document}]
        if not isinstance(entries, list):
            tally.read += 1
            tally.reject(None, "Bundle.entry is not a list", "(file content withheld)")
            return
        self._entries(name, list(enumerate(entries, start=1)))

    def _ndjson(self, lines: IO[bytes], name: str) -> None:
        tally = self._ledger.tally(name)
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                tally.read += 1
                tally.skip("empty line")
                continue
            try:
                resource = loads_line(raw)
            except ValueError as exc:
                tally.read += 1
                tally.reject(number, str(exc), "(line withheld)")
                continue
            self._entries(name, [(number, {"resource": resource})])

    def _entries(self, name: str, entries: list[tuple[int, Any]]) -> None:
        """One bundle's entries (or one NDJSON line): every fullUrl is known before any
        reference is resolved, since a reference may point to a later entry."""
        urls: dict[str, tuple[str, str]] = {}
        medications: dict[str, Any] = {}
        for _, entry in entries:
            resource = entry.get("resource") if isinstance(entry, dict) else None
            if not isinstance(resource, dict) or not isinstance(resource.get("resourceType"), str):
                continue
            kind, rid = resource["resourceType"], _own_id(entry, resource)
            if rid is None:
                continue
            for url in (entry.get("fullUrl"), f"{kind}/{rid}"):
                if isinstance(url, str):
                    urls[url] = (kind, rid)
            if kind == "Medication":
                medications[rid] = resource.get("code")
        for index, entry in entries:
            self._entry(name, index, entry, urls, medications)

    def _entry(
        self,
        name: str,
        index: int,
        entry: Any,
        urls: Mapping[str, tuple[str, str]],
        medications: Mapping[str, Any],
    ) -> None:
        resource = entry.get("resource") if isinstance(entry, dict) else None
        kind = resource.get("resourceType") if isinstance(resource, dict) else None
        if self._by_type and isinstance(kind, str):
            name = kind
        tally = self._ledger.tally(name)
        if not isinstance(resource, dict) or not isinstance(kind, str):
            tally.read += 1
            tally.reject(index, "entry without a resource", "(entry withheld)")
            return
        rid = _own_id(entry, resource)
        label = f"{kind}/{rid or '?'}"
        if kind not in READ_TYPES:
            tally.read += 1
            tally.skip(f"resource type not read: {kind}")
            return
        if kind == "Patient":
            key = rid
            if key is None:
                tally.read += 1
                tally.reject(index, "Patient without id", label)
                return
        else:
            subject = resource.get("subject") or resource.get("patient")
            if not isinstance(subject, dict) or not subject.get("reference"):
                tally.read += 1
                tally.reject(index, "missing subject", label)
                return
            key = _reference(subject["reference"], "Patient", urls)
            if key is None:
                tally.read += 1
                tally.reject(index, f"unresolvable subject: {subject['reference']}", label)
                return
        if kind == "Encounter":
            encounter = rid
        else:
            ref = _path(resource, "encounter.reference")
            encounter = _reference(ref, "Encounter", urls) or (
                ref if isinstance(ref, str) else None
            )
        if kind == "MedicationRequest":
            resource = _inline_medication(resource, urls, medications)
        self._seq += 1
        self._writer.writerow(
            (key, self._seq, name, index, kind, rid, encounter, json.dumps(resource))
        )


def _inline_medication(
    resource: dict[str, Any], urls: Mapping[str, tuple[str, str]], medications: Mapping[str, Any]
) -> dict[str, Any]:
    """A MedicationRequest whose ``medicationReference`` points to a contained Medication or
    one in the same bundle gets that Medication's code as ``medicationCodeableConcept``."""
    if "medicationCodeableConcept" in resource:
        return resource
    ref = _path(resource, "medicationReference.reference")
    code = None
    if isinstance(ref, str) and ref.startswith("#"):
        contained_resources = resource.get("contained")
        for contained in contained_resources if isinstance(contained_resources, list) else []:
            if isinstance(contained, dict) and contained.get("id") == ref[1:]:
                code = contained.get("code")
    else:
        target = _reference(ref, "Medication", urls)
        code = medications.get(target) if target is not None else None
    return {**resource, "medicationCodeableConcept": code} if code else resource


def _load_staged(con: duckdb.DuckDBPyConnection, staging: Path) -> None:
    types = {"seq": "BIGINT", "idx": "BIGINT"}
    columns = ", ".join(f"'{c}': '{types.get(c, 'VARCHAR')}'" for c in _STAGED)
    con.execute(
        "CREATE TABLE _staged AS SELECT * FROM read_csv("  # noqa: S608
        f"{duck.literal(str(staging))}, header = false, auto_detect = false, "
        f"columns = {{{columns}}}, delim = ',', quote = '\"', escape = '\"', "
        "max_line_size = 1073741824)"
    )


def _sorted(kind: str) -> str:
    return (
        f"SELECT key AS _key, * EXCLUDE (key) FROM _staged WHERE rtype = {duck.literal(kind)} "  # noqa: S608
        "ORDER BY _key NULLS FIRST, seq"
    )


def _row(values: dict[str, Any]) -> SourceRow:
    rid, name, index, kind = values["rid"], values["file"], int(values["idx"]), values["rtype"]
    fields = {"resource": json.loads(values["json"]), "encounter": values["enc"]}
    row = rid if rid is not None else f"{name}#{index}"
    return SourceRow(kind, name, row, index, values["_key"], fields, f"{kind}/{rid or '?'}")


# --- pass 2: one patient's resources -> trajectory ------------------------------------


def _path(resource: Any, path: str) -> Any:
    """``resource['a']['b']...`` for ``'a.b'``, taking the first element of lists; None if
    any step is missing."""
    value: Any = resource
    for step in path.split("."):
        if isinstance(value, list):
            value = value[0] if value else None
        value = value.get(step) if isinstance(value, dict) else None
        if value is None:
            return None
    return value


def _when(resource: Mapping[str, Any], *paths: str) -> WhenValue | None:
    """The first of ``paths`` that has a value, parsed; a malformed one rejects the row."""
    for path in paths:
        value = _path(resource, path)
        if value is None:
            continue
        try:
            return parse_when(str(value))
        except ValueError:
            raise RowError(f"unparsable date {path}: {value!r}") from None
    return None


def _number(resource: Mapping[str, Any], path: str) -> float | None:
    value = _path(resource, path)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RowError(f"not a number {path}: {value!r}")
    return float(value)


def _code(row: SourceRow, concept: Any, what: str) -> dict[str, Any]:
    """Item fields from a CodeableConcept: the coding of the first graph namespace present
    (SNOMEDCT, RXNORM, LNC, ICD10CM, ICD9CM), else NDC, else the first coding; a system
    outside the table keeps its URI."""
    codings = [
        c
        for c in (concept.get("coding") or [] if isinstance(concept, dict) else [])
        if isinstance(c, dict) and c.get("system") and c.get("code")
    ]
    if not codings:
        raise RowError(f"no coding with a system and a code in {what}")
    order = {ns: i for i, ns in enumerate((*GRAPH_NAMESPACES, NDC))}
    best = min(codings, key=lambda c: order.get(fhir_system(str(c["system"])), len(order)))
    system, code = str(best["system"]), str(best["code"])
    display = best.get("display") or concept.get("text")
    ref = SourceRef(table=row.table, row=row.row, code_system=system, code=code)
    return {"source": ref, "code_system": fhir_system(system), "code": code, "display": display}


def _condition(row: SourceRow, r: dict[str, Any]) -> list[Item]:
    return [
        Condition(
            **_code(row, r.get("code"), "code"),
            start=_when(r, "onsetDateTime", "onsetPeriod.start", "recordedDate"),
            end=_when(r, "abatementDateTime", "abatementPeriod.end"),
        )
    ]


def _medication(row: SourceRow, r: dict[str, Any]) -> list[Item]:
    dose = _path(r, "dosageInstruction.doseAndRate.doseQuantity.value")
    route = _path(r, "dosageInstruction.route")
    return [
        DrugExposure(
            **_code(row, r.get("medicationCodeableConcept"), "medicationCodeableConcept"),
            start=_when(r, "authoredOn"),
            end=_when(r, "dispenseRequest.validityPeriod.end"),
            route=(route.get("text") or _path(route, "coding.display"))
            if isinstance(route, dict)
            else None,
            dose=str(dose) if dose is not None else None,
            dose_unit=_path(r, "dosageInstruction.doseAndRate.doseQuantity.unit"),
        )
    ]


def _measurement(row: SourceRow, part: dict[str, Any], start: WhenValue | None) -> Measurement:
    interpretation = _path(part, "interpretation.coding.code")
    text = part.get("valueString") or _path(part, "valueCodeableConcept.text")
    return Measurement(
        **_code(row, part.get("code"), "code"),
        start=start,
        value=_number(part, "valueQuantity.value"),
        value_text=text or _path(part, "valueCodeableConcept.coding.display"),
        unit=_path(part, "valueQuantity.unit") or _path(part, "valueQuantity.code"),
        ref_low=_number(part, "referenceRange.low.value"),
        ref_high=_number(part, "referenceRange.high.value"),
        flag=INTERPRETATIONS.get(str(interpretation)) if interpretation else None,
    )


def _observation(row: SourceRow, r: dict[str, Any]) -> list[Item]:
    """One measurement, or one per component (blood pressure), or both when both carry
    values; all share the observation's time."""
    start = _when(r, "effectiveDateTime", "effectivePeriod.start", "issued")
    components = [c for c in r.get("component") or [] if isinstance(c, dict)]
    has_value = any(k.startswith("value") for k in r)
    items: list[Item] = []
    if has_value or not components:
        items.append(_measurement(row, r, start))
    items += [_measurement(row, c, start) for c in components]
    return items


def _procedure(row: SourceRow, r: dict[str, Any]) -> list[Item]:
    return [
        Procedure(
            **_code(row, r.get("code"), "code"),
            start=_when(r, "performedDateTime", "performedPeriod.start"),
            end=_when(r, "performedPeriod.end"),
        )
    ]


_ITEMS: dict[str, Callable[[SourceRow, dict[str, Any]], list[Item]]] = {
    "Condition": _condition,
    "MedicationRequest": _medication,
    "Observation": _observation,
    "Procedure": _procedure,
}


def _entered_in_error(r: Mapping[str, Any]) -> bool:
    status = r.get("status") or _path(r, "verificationStatus.coding.code")
    return bool(status == "entered-in-error")


def _encounter(r: dict[str, Any]) -> tuple[WhenValue, WhenValue | None, EncounterKind]:
    start = _when(r, "period.start")
    if start is None:
        raise RowError("missing period.start")
    cls = r.get("class")
    code = _path(cls, "coding.code") if isinstance(cls, list) else _path(r, "class.code")
    return start, _when(r, "period.end"), ENCOUNTER_KINDS.get(str(code), "other")


def _encounter_id(row: SourceRow) -> str:
    if row.row.startswith(f"{row.tally}#"):
        raise RowError("Encounter without id")
    return row.row


def _item(row: SourceRow) -> tuple[str | None, list[Item]]:
    resource: dict[str, Any] = row.fields["resource"]
    return row.fields["encounter"], _ITEMS[row.table](row, resource)


def _birth_year(patient: dict[str, Any]) -> int | None:
    birth = patient.get("birthDate")
    if birth is None:
        return None
    text = str(birth)
    if len(text) < 4 or not text[:4].isdigit():
        raise RowError(f"unparsable date birthDate: {birth!r}")
    return int(text[:4])


def _trajectory(
    patient: SourceRow, rows: dict[str, list[SourceRow]], ledger: Ledger, salt: str
) -> Trajectory | None:
    resource: dict[str, Any] = patient.fields["resource"]
    try:
        birth_year = _birth_year(resource)
    except RowError as exc:
        ledger.reject(patient, str(exc))
        reject_all(rows, ledger, f"unknown patient: {patient.key} (Patient rejected)")
        return None
    draft = TrajectoryDraft("fhir", ledger, salt)
    for kind, kind_rows in rows.items():
        for row in kind_rows:
            if _entered_in_error(row.fields["resource"]):
                draft.skip(row, "entered-in-error")
            elif kind == "Encounter":
                make = partial(_encounter, row.fields["resource"])
                draft.encounter(row, partial(_encounter_id, row), make)
            else:
                draft.item(row, partial(_item, row))
    return draft.finish(patient, str(patient.key), sex_of(resource.get("gender")), birth_year)


# --- one patient's resources from a server (kgverify.ehr.fhir_rest) -------------------


class _Collected(list[tuple[Any, ...]]):
    """Staged rows kept in memory: one patient's resources, not a whole source."""

    def writerow(self, values: tuple[Any, ...]) -> None:
        self.append(values)


def patient_trajectory(
    patient_id: str, resources: list[dict[str, Any]], ledger: Ledger, salt: str, where: str
) -> Trajectory | None:
    """The trajectory of Patient ``patient_id`` from its resources (a server's
    ``Patient/$everything`` or searches), read exactly as the files' pass 2 reads them.

    Each resource is counted under its type; a reject's line is its position in
    ``resources`` and its text ``Type/id``. ``where`` names the list in rejects of entries
    without a resource. Resources of another patient are rejected, other Patient resources
    (linked patients) skipped."""
    collected = _Collected()
    stager = _Stager(collected, ledger, by_type=True)
    stager._entries(where, list(enumerate(({"resource": r} for r in resources), start=1)))
    patient: SourceRow | None = None
    rows: dict[str, list[SourceRow]] = {t: [] for t in ("Encounter", *EVENT_TYPES)}
    for values in collected:
        row = _row({"_key": values[0], **dict(zip(_STAGED[1:], values[1:], strict=True))})
        ledger.read(row)
        if row.table == "Patient":
            if row.key == patient_id and patient is None:
                patient = row
            else:
                ledger.skip(row, "another Patient in the record")
        elif row.key != patient_id:
            ledger.reject(row, f"unknown patient: {row.key}")
        else:
            rows[row.table].append(row)
    if patient is None:
        reject_all(rows, ledger, f"unknown patient: {patient_id} (no Patient resource)")
        return None
    return _trajectory(patient, rows, ledger, salt)
