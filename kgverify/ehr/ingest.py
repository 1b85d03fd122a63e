"""Writing trajectories into Neo4j: patients, encounters and facts, each fact linked to the
vocabulary concept of its code when that concept is loaded (see docs/graph-model.md).

Batched like the vocabulary loads: rows gather across patients until ``batch_size`` facts,
then go out as three constant statements in write transactions; MERGE on the ids makes a
rerun idempotent. Full batches are written on writer threads (``parallel`` of them, each
batch's statements in its own transactions) while the source is read on, so the reader's
and the database's work overlap; a batch holds whole patients, so two writers never write
one patient, and its facts go out in concept order, so two writers take the concepts' locks
in one order and do not deadlock (measured: docs/benchmarks.md, "Ingest writes").
Note text is not written to the graph: it stays in the trajectories.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
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


class RowBatch:
    """Rows of whole patients as the ingest statements (or the bulk files) take them."""

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
    parallel: int = 1,
) -> IngestReport:
    """Write every trajectory's patient, encounters and facts; returns the counts. A row
    the database refuses costs only itself: it is counted and handed to ``on_refused``.
    Each patient is linked to ``run`` (a ``(:Run)`` begun by ``kgverify.runs``), if given;
    ``parallel`` batches are written at once (``Ingester``)."""
    ingester = Ingester(
        graph, batch_size=batch_size, on_refused=on_refused, run=run, parallel=parallel
    )
    try:
        for count, trajectory in enumerate(trajectories, start=1):
            ingester.add(trajectory)
            if on_patient is not None:
                on_patient(count)
        return ingester.finish()
    finally:
        ingester.close()


class Ingester:
    """``ingest`` one trajectory at a time, as another reader of the same pass hands them
    over (``api.ingest_and_extract``: the source read once for ingest and extraction).

    A full batch goes to a writer thread and the caller goes on reading; with ``parallel``
    batches in flight the oldest is collected first, so at most ``parallel + 1`` batches are
    held and the refused rows reach ``on_refused`` on the caller's thread, in batch order. A
    write's error is raised by a later ``add`` or by ``finish``."""

    def __init__(
        self,
        graph: Graph,
        *,
        batch_size: int = 10_000,
        on_refused: Refused | None = None,
        run: str | None = None,
        parallel: int = 1,
    ) -> None:
        ensure_schema(graph)
        self.graph = graph
        self.batch_size = batch_size
        self.on_refused = on_refused
        self.run = run
        self.report = IngestReport()
        self._batch = RowBatch()
        self.parallel = parallel
        self._writer = ThreadPoolExecutor(parallel, thread_name_prefix="kgverify-ingest")
        self._pendings: list[Future[_Written]] = []

    def add(self, trajectory: Trajectory) -> None:
        add_trajectory(trajectory, self._batch, self.report)
        if len(self._batch.facts) >= self.batch_size:
            if len(self._pendings) >= self.parallel:
                self._merge(self._pendings.pop(0).result())
            self._pendings.append(self._writer.submit(_flush, self.graph, self._batch, self.run))
            self._batch = RowBatch()

    def finish(self) -> IngestReport:
        """Write what is left; the counts of everything added."""
        try:
            self._collect()
            self._merge(_flush(self.graph, self._batch, self.run))
            self._batch = RowBatch()
        finally:
            self.close()
        return self.report

    def close(self) -> None:
        """Wait for the writes in flight (their outcome is not reported) and stop the
        writers; ``finish`` does this, a caller that gives up early calls it."""
        self._writer.shutdown(wait=True)

    def _collect(self) -> None:
        while self._pendings:
            self._merge(self._pendings.pop(0).result())

    def _merge(self, written: _Written) -> None:
        report = self.report
        report.patients += written.patients
        report.encounters += written.encounters
        report.facts += written.facts
        report.known += written.known
        report.unknown += written.facts - written.known
        for kind, count in written.not_written.items():
            report.not_written[kind] = report.not_written.get(kind, 0) + count
        if self.on_refused is not None:
            for kind, row, reason in written.refused:
                self.on_refused(kind, row, reason)


def add_trajectory(trajectory: Trajectory, batch: RowBatch, report: IngestReport) -> None:
    """The trajectory's patient, encounter and fact rows appended to ``batch`` (notes only
    counted)."""
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
    batch: RowBatch,
    report: IngestReport,
) -> None:
    for item in items:
        if isinstance(item, Note):
            report.notes_not_stored += 1
        elif isinstance(item, CodedItem):
            batch.facts.append(fact_row(trajectory, encounter_id, item))


class _Written:
    """What one batch's writes did, handed back to the caller's thread."""

    def __init__(self) -> None:
        self.patients = self.encounters = self.facts = self.known = 0
        self.not_written: dict[str, int] = {}
        self.refused: list[tuple[str, Row, str]] = []


def _flush(graph: Graph, batch: RowBatch, run: str | None) -> _Written:
    written = _Written()
    patients = _write(graph, "patient", batch.patients, written, run=run)
    written.patients = sum(r["written"] for r in patients)
    encounters = _write(graph, "encounter", batch.encounters, written)
    written.encounters = sum(r["written"] for r in encounters)
    in_lock_order = sorted(batch.facts, key=lambda r: r["concept_id"] or "")
    facts = _write(graph, "fact", in_lock_order, written)
    written.facts = sum(r["written"] for r in facts)
    written.known = sum(r["known"] for r in facts)
    return written


_STATEMENTS = {
    "patient": "ingest/upsert_patients",
    "encounter": "ingest/upsert_encounters",
    "fact": "ingest/upsert_facts",
}


def _write(graph: Graph, kind: str, rows: list[Row], written: _Written, **params: Any) -> list[Row]:
    """The results of writing ``rows``; what is not written (refused, or no patient for it)
    is counted, so every row sent is accounted for."""
    if not rows:
        return []

    def refused(row: Row, reason: str) -> None:
        written.refused.append((kind, row, reason))

    results = [
        r for part in graph.write_rows(_STATEMENTS[kind], rows, refused, **params) for r in part
    ]
    missing = len(rows) - sum(int(r["written"]) for r in results)
    if missing:
        written.not_written[kind] = written.not_written.get(kind, 0) + missing
    return results
