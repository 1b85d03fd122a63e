"""Writing trajectories into Neo4j: patients, encounters and facts, each fact linked to the
vocabulary concept of its code when that concept is loaded (see docs/graph-model.md).

Batched like the vocabulary loads: rows gather across patients until ``batch_size`` facts,
then go out as three constant statements in write transactions; MERGE on the ids makes a
rerun idempotent. Note text is not written to the graph: it stays in the trajectories.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, Field

from kgverify.ehr.model import CodedItem, Item, Measurement, Note, Trajectory
from kgverify.graph.driver import Graph
from kgverify.graph.model import concept_id
from kgverify.graph.schema import ensure_schema

Row = dict[str, Any]
_KINDS = {
    "Condition": "condition",
    "DrugExposure": "drug",
    "Measurement": "measurement",
    "Procedure": "procedure",
}


Refused = Callable[[str, Row, str], None]
"""Called with (kind: patient, encounter or fact; the row; the reason) for a row not written."""


class IngestReport(BaseModel):
    """What an ingest wrote; ``facts == known + unknown``, and per kind the rows sent are
    the rows written plus ``not_written``."""

    patients: int = 0
    encounters: int = 0
    facts: int = 0
    known: int = 0
    unknown: int = 0
    notes_not_stored: int = 0
    not_written: dict[str, int] = Field(
        default_factory=dict,
        description="kind -> rows not written: refused by the database (each handed to the "
        "caller, e.g. the rejects file) or whose patient is not in the graph",
    )


def fact_row(trajectory: Trajectory, encounter_id: str | None, item: CodedItem) -> Row:
    """One fact as the ingest statement takes it."""
    measurement = item if isinstance(item, Measurement) else None
    return {
        "id": f"{trajectory.source}:{item.item_id}",
        "patient_id": trajectory.patient.patient_id,
        "encounter_id": encounter_id,
        "kind": _KINDS[type(item).__name__],
        "concept_id": concept_id(item.code_system, item.code),
        "code_system": item.code_system,
        "code": item.code,
        "display": item.display,
        "start": item.start,
        "end": getattr(item, "end", None),
        "value": measurement.value if measurement else None,
        "value_text": measurement.value_text if measurement else None,
        "unit": measurement.unit if measurement else None,
        "ref_low": measurement.ref_low if measurement else None,
        "ref_high": measurement.ref_high if measurement else None,
        "flag": measurement.flag if measurement else None,
        "source_table": item.source.table,
        "source_row": item.source.row,
        "mapped": item.mapped,
    }


class _Batch:
    def __init__(self) -> None:
        self.patients: list[Row] = []
        self.encounters: list[Row] = []
        self.facts: list[Row] = []


def ingest(
    trajectories: Iterable[Trajectory],
    graph: Graph,
    *,
    batch_size: int = 10_000,
    on_patient: Callable[[int], None] | None = None,
    on_refused: Refused | None = None,
    run: str | None = None,
) -> IngestReport:
    """Write every trajectory's patient, encounters and facts; returns the counts. A row
    the database refuses costs only itself: it is counted and handed to ``on_refused``.
    Each patient is linked to ``run`` (a ``(:Run)`` begun by ``kgverify.runs``), if given."""
    ingester = Ingester(graph, batch_size=batch_size, on_refused=on_refused, run=run)
    for count, trajectory in enumerate(trajectories, start=1):
        ingester.add(trajectory)
        if on_patient is not None:
            on_patient(count)
    return ingester.finish()


class Ingester:
    """``ingest`` one trajectory at a time, as another reader of the same pass hands them
    over (``api.ingest_and_extract``: the source read once for ingest and extraction)."""

    def __init__(
        self,
        graph: Graph,
        *,
        batch_size: int = 10_000,
        on_refused: Refused | None = None,
        run: str | None = None,
    ) -> None:
        ensure_schema(graph)
        self.graph = graph
        self.batch_size = batch_size
        self.on_refused = on_refused
        self.run = run
        self.report = IngestReport()
        self._batch = _Batch()

    def add(self, trajectory: Trajectory) -> None:
        _add(trajectory, self._batch, self.report)
        if len(self._batch.facts) >= self.batch_size:
            _flush(self.graph, self._batch, self.report, self.on_refused, self.run)
            self._batch = _Batch()

    def finish(self) -> IngestReport:
        """Write what is left; the counts of everything added."""
        _flush(self.graph, self._batch, self.report, self.on_refused, self.run)
        self._batch = _Batch()
        return self.report


def _add(trajectory: Trajectory, batch: _Batch, report: IngestReport) -> None:
    patient = trajectory.patient
    batch.patients.append(
        {
            "id": patient.patient_id,
            "age_band": patient.age_band,
            "sex": patient.sex,
            "source": trajectory.source,
        }
    )
    for encounter in trajectory.encounters:
        batch.encounters.append(
            {
                "id": encounter.encounter_id,
                "patient_id": patient.patient_id,
                "start": encounter.start,
                "end": encounter.end,
                "kind": encounter.kind,
            }
        )
        _add_items(trajectory, encounter.encounter_id, encounter.items(), batch, report)
    _add_items(trajectory, None, trajectory.items_outside_encounters.items(), batch, report)


def _add_items(
    trajectory: Trajectory,
    encounter_id: str | None,
    items: Iterable[Item],
    batch: _Batch,
    report: IngestReport,
) -> None:
    for item in items:
        if isinstance(item, Note):
            report.notes_not_stored += 1
        elif isinstance(item, CodedItem):
            batch.facts.append(fact_row(trajectory, encounter_id, item))


def _flush(
    graph: Graph, batch: _Batch, report: IngestReport, on_refused: Refused | None, run: str | None
) -> None:
    patients = _write(graph, "patient", batch.patients, report, on_refused, run=run)
    report.patients += sum(r["written"] for r in patients)
    encounters = _write(graph, "encounter", batch.encounters, report, on_refused)
    report.encounters += sum(r["written"] for r in encounters)
    facts = _write(graph, "fact", batch.facts, report, on_refused)
    written = sum(r["written"] for r in facts)
    report.facts += written
    report.known += sum(r["known"] for r in facts)
    report.unknown += written - sum(r["known"] for r in facts)


_STATEMENTS = {
    "patient": "ingest/upsert_patients",
    "encounter": "ingest/upsert_encounters",
    "fact": "ingest/upsert_facts",
}


def _write(
    graph: Graph,
    kind: str,
    rows: list[Row],
    report: IngestReport,
    on_refused: Refused | None,
    **params: Any,
) -> list[Row]:
    """The results of writing ``rows``; what is not written (refused, or no patient for it)
    is counted, so every row sent is accounted for."""
    if not rows:
        return []

    def refused(row: Row, reason: str) -> None:
        if on_refused is not None:
            on_refused(kind, row, reason)

    results = [
        r for part in graph.write_rows(_STATEMENTS[kind], rows, refused, **params) for r in part
    ]
    missing = len(rows) - sum(int(r["written"]) for r in results)
    if missing:
        report.not_written[kind] = report.not_written.get(kind, 0) + missing
    return results
