"""An agent's action read from its FHIR R4 resource: which patient, which codes (every
coding, the graph's namespaces first, as the FHIR reader prefers them), and a note's text.
What cannot be read is a ``MalformedActionError`` with the reason, which the check turns into a
``malformed`` verdict: one broken resource costs only itself."""

from __future__ import annotations

import base64
import binascii
from datetime import date
from typing import Any

from kgverify.actions.model import RESOURCE_KINDS, ActionRecord, Coding, ParsedAction
from kgverify.ehr.codes import GRAPH_NAMESPACES, NDC, fhir_system

MAX_NOTE_CHARS = 100_000
"""A note longer than this is read up to here (the matcher's cost grows with it)."""

_ORDER = {ns: i for i, ns in enumerate((*GRAPH_NAMESPACES, NDC))}
_CODE_FIELD = {
    "MedicationRequest": "medicationCodeableConcept",
    "ServiceRequest": "code",
    "Condition": "code",
}
_WHEN = ("authoredOn", "recordedDate", "date", "sent", "occurrenceDateTime")


class MalformedActionError(ValueError):
    """A resource this check cannot read; the message says where and why."""


def parse_action(record: ActionRecord) -> ParsedAction:
    """The action of ``record``; raises ``MalformedActionError`` with the reason."""
    r = record.resource
    rtype = r.get("resourceType")
    if rtype not in RESOURCE_KINDS:
        allowed = ", ".join(RESOURCE_KINDS)
        raise MalformedActionError(f"resourceType {rtype!r} is not one of {allowed}")
    patient = _patient(record, r)
    kind = RESOURCE_KINDS[str(rtype)]
    codes: list[Coding] = []
    text = None
    if kind == "note":
        text = _note_text(r)
    else:
        field = _CODE_FIELD[str(rtype)]
        if field not in r:
            extra = " (medicationReference is not followed)" if "medicationReference" in r else ""
            raise MalformedActionError(f"{rtype} has no {field}{extra}")
        codes = codings(r[field], field)
    rid = r.get("id")
    return ParsedAction(
        action_id=record.action_id,
        task_id=record.task_id,
        patient_id=patient,
        at=record.at or _when(r),
        resource_type=str(rtype),
        resource_id=str(rid) if isinstance(rid, str | int) else None,
        kind=kind,
        codes=codes,
        text=text,
    )


def codings(concept: Any, where: str) -> list[Coding]:
    """Every coding of a CodeableConcept with a system and a code, the graph's namespaces
    first (SNOMEDCT, RXNORM, LNC, ICD10CM, ICD9CM, then NDC, then the rest)."""
    if not isinstance(concept, dict):
        raise MalformedActionError(f"{where} is not a CodeableConcept object")
    raw = concept.get("coding")
    if not isinstance(raw, list):
        raise MalformedActionError(f"{where}.coding is not a list")
    out = []
    for n, c in enumerate(raw):
        if not isinstance(c, dict) or not isinstance(c.get("system"), str):
            raise MalformedActionError(f"{where}.coding[{n}] has no system")
        code = c.get("code")
        if not isinstance(code, str) or not code.strip():
            raise MalformedActionError(f"{where}.coding[{n}] has no code")
        display = c.get("display")
        out.append(
            Coding(
                system=fhir_system(c["system"]),
                code=code.strip(),
                display=display if isinstance(display, str) else None,
            )
        )
    if not out:
        raise MalformedActionError(f"{where} has no coding")
    return sorted(out, key=lambda c: _ORDER.get(c.system, len(_ORDER)))


def _patient(record: ActionRecord, r: dict[str, Any]) -> str:
    ref = r.get("subject") if "subject" in r else r.get("patient")
    subject = None
    if ref is not None:
        value = ref.get("reference") if isinstance(ref, dict) else None
        if not isinstance(value, str) or not value.startswith("Patient/") or value == "Patient/":
            raise MalformedActionError("subject.reference is not 'Patient/<id>'")
        subject = value.removeprefix("Patient/")
    if record.patient_id is not None:
        return record.patient_id
    if subject is None:
        raise MalformedActionError("no patient: neither patient_id nor subject.reference")
    return subject


def _note_text(r: dict[str, Any]) -> str:
    parts: list[str] = []
    if r["resourceType"] == "Communication":
        for n, p in enumerate(r.get("payload") or []):
            value = p.get("contentString") if isinstance(p, dict) else None
            if not isinstance(value, str):
                raise MalformedActionError(f"payload[{n}] has no contentString")
            parts.append(value)
    else:
        for n, c in enumerate(r.get("content") or []):
            att = c.get("attachment") if isinstance(c, dict) else None
            data = att.get("data") if isinstance(att, dict) else None
            if not isinstance(data, str):
                raise MalformedActionError(f"content[{n}].attachment has no data")
            try:
                parts.append(base64.b64decode(data, validate=True).decode("utf-8"))
            except (binascii.Error, UnicodeDecodeError):
                raise MalformedActionError(
                    f"content[{n}].attachment.data is not base64 UTF-8"
                ) from None
    if not parts:
        raise MalformedActionError(f"{r['resourceType']} holds no text")
    return "\n".join(parts)[:MAX_NOTE_CHARS]


def _when(r: dict[str, Any]) -> date | None:
    for key in _WHEN:
        value = r.get(key)
        if isinstance(value, str) and len(value) >= 10:
            try:
                return date.fromisoformat(value[:10])
            except ValueError:
                raise MalformedActionError(f"{key} is not a date: {value[:40]!r}") from None
    return None
