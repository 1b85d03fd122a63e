"""A first load of patients through ``neo4j-admin database import`` (``kgverify ingest
--bulk``): trajectories streamed into CSV files, imported into the local server's empty
database, then the run finished over Bolt as the batched path finishes it.

Why: the batched ingest is bounded by the database's per-row ``MERGE`` of facts and their
relationships (docs/benchmarks.md); neo4j-admin writes the store files directly. It needs
an empty database, so patients come first and the vocabularies after: each vocabulary load
then links the facts whose code it brings (``load/link_facts``), which gives the graph the
batched ingest gives after the vocabularies (``tests/e2e/test_bulk_ingest.py``).

The rows are the batched path's (``ingest.add_trajectory``); the files hold pseudonyms, dates and
codes, so they are owner-only and deleted after the import, whatever its outcome. A date
column's type is one per file, so facts and encounters go to one file per shape of their
(start, end) values: day, local date-time or date-time with an offset.
"""

from __future__ import annotations

import csv
import weakref
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, Any

from kgverify.config import Settings
from kgverify.ehr.ingest import IngestReport, Refused, Row, RowBatch, add_trajectory
from kgverify.ehr.model import Trajectory
from kgverify.errors import ServerError
from kgverify.graph.driver import Graph
from kgverify.graph.schema import ensure_schema
from kgverify.outputs import open_private
from kgverify.rows import private_dir

_PATIENT = ["id:ID(Patient)", ":LABEL", "age_band", "sex", "source"]
_RUN = [
    "id:ID(Run)",
    ":LABEL",
    "source",
    "source_path",
    "settings",
    "started_at:datetime",
    "status",
]
_FACT_FIELDS = [
    ("kind", ""),
    ("code_system", ""),
    ("code", ""),
    ("display", ""),
    ("value", ":double"),
    ("value_text", ""),
    ("unit", ""),
    ("ref_low", ":double"),
    ("ref_high", ":double"),
    ("flag", ""),
    ("source_table", ""),
    ("source_row", ""),
    ("mapped", ":boolean"),
]
_EDGES = {
    # type: (start group, end group)
    "HAD_ENCOUNTER": ("Patient", "Encounter"),
    "HAS_FACT": ("Patient", "Fact"),
    "RECORDED_IN": ("Fact", "Encounter"),
    "IN_RUN": ("Patient", "Run"),
}


def _header(group: str, start: str, end: str, fields: list[tuple[str, str]]) -> list[str]:
    return [f"id:ID({group})", ":LABEL", f"start:{start}", f"end:{end}"] + [
        name + kind for name, kind in fields
    ]


_HEADERS = {
    (group, start, end): _header(group, start, end, fields)
    for group, fields in (
        ("Encounter", [("kind", "")]),
        ("Fact", [("known", ":boolean"), *_FACT_FIELDS]),
    )
    for start in ("date", "localdatetime", "datetime")
    for end in ("date", "localdatetime", "datetime")
}
_EDGE_HEADERS = {
    rel: [f":START_ID({a})", f":END_ID({b})", ":TYPE"] for rel, (a, b) in _EDGES.items()
}


def _when_type(value: date | datetime | None) -> str:
    if isinstance(value, datetime):
        return "datetime" if value.tzinfo is not None else "localdatetime"
    return "date"  # a day, or no value (an empty cell: no property, as the batched SET)


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, date):
        return value.isoformat()
    return value  # csv writes a float as repr does


class _Files:
    """CSV files opened as their first row comes, each owner-only, with its header."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.nodes: list[Path] = []
        self.edges: list[Path] = []
        self._open: dict[str, tuple[IO[str], Any]] = {}

    def write(self, name: str, header: list[str], row: list[Any], *, edge: bool = False) -> None:
        """One row; an edge's cells are ids already, a node's are converted (``_cell``)."""
        entry = self._open.get(name)
        if entry is None:
            path = self.folder / f"{name}.csv"
            (self.edges if edge else self.nodes).append(path)
            handle = open_private(path, newline="")
            out = csv.writer(handle)
            out.writerow(header)
            entry = self._open[name] = (handle, out)
        entry[1].writerow(row if edge else [_cell(v) for v in row])

    def close(self) -> None:
        for handle, _ in self._open.values():
            handle.close()
        self._open.clear()


class BulkIngester:
    """``ingest.Ingester``'s interface (``add``, ``finish``, ``close``) for a first load:
    ``add`` writes CSV rows, ``finish`` stops the local server, imports, starts it again,
    makes the schema and returns the counts. The run (``run``) is a node of the import, its
    patients linked to it, status "running" until the caller finishes it (``finish_run``)."""

    def __init__(
        self,
        settings: Settings,
        *,
        run: str,
        source: str,
        source_path: str,
        settings_hash: str,
        on_refused: Refused | None = None,
    ) -> None:
        from kgverify.server.local import LocalServer

        if settings.neo4j_uri:
            raise ServerError(
                "--bulk imports into the local server's store; unset NEO4J_URI (for a remote "
                "server, ingest without --bulk)"
            )
        self.settings = settings
        self.server = LocalServer(settings)
        if self.server.holds_nodes():
            raise ServerError(
                "--bulk needs an empty database (an import replaces it); this one holds "
                "nodes. Load vocabularies after a bulk ingest (each load links the facts it "
                "can), or ingest without --bulk"
            )
        self.on_refused = on_refused
        self.report = IngestReport()
        self.folder = private_dir(settings.cache_dir / "bulk" / f"ingest-{run}")
        self.files = _Files(self.folder)
        # The files hold patient rows: deleted after the import, or, when the read fails
        # before it, once this ingester is collected or the interpreter exits.
        self._delete = weakref.finalize(self, _delete, self.files.nodes, self.files.edges)
        started = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        self.files.write(
            "runs", _RUN, [run, "Run", source, source_path, settings_hash, started, "running"]
        )
        self.run = run

    def add(self, trajectory: Trajectory) -> None:
        batch = RowBatch()
        add_trajectory(trajectory, batch, self.report)
        write = self.files.write
        for p in batch.patients:
            write("patients", _PATIENT, [p["id"], "Patient", p["age_band"], p["sex"], p["source"]])
            self._edge("IN_RUN", p["id"], self.run)
        for e in batch.encounters:
            start, end = _when_type(e["start"]), _when_type(e["end"])
            header = _HEADERS["Encounter", start, end]
            row = [e["id"], "Encounter", e["start"], e["end"], e["kind"]]
            write(f"encounters_{start}_{end}", header, row)
            self._edge("HAD_ENCOUNTER", e["patient_id"], e["id"])
        for f in batch.facts:
            self._fact(f)
        self.report.patients += len(batch.patients)
        self.report.encounters += len(batch.encounters)
        self.report.facts += len(batch.facts)
        self.report.unknown += len(batch.facts)  # an empty database holds no concept

    def _fact(self, f: Row) -> None:
        start, end = _when_type(f["start"]), _when_type(f["end"])
        row = [f["id"], "Fact", f["start"], f["end"], False, *(f[n] for n, _ in _FACT_FIELDS)]
        self.files.write(f"facts_{start}_{end}", _HEADERS["Fact", start, end], row)
        self._edge("HAS_FACT", f["patient_id"], f["id"])
        if f["encounter_id"] is not None:
            self._edge("RECORDED_IN", f["id"], f["encounter_id"])

    def _edge(self, rel: str, start: str, end: str) -> None:
        self.files.write(rel.lower(), _EDGE_HEADERS[rel], [start, end, rel], edge=True)

    def finish(self) -> IngestReport:
        """Import the files into the empty database and make the schema; the counts."""
        try:
            self.files.close()
            self.server.stop()
            problems = self.server.bulk_import(
                self.files.nodes,
                self.files.edges,
                self.folder / "import.report",
                multiline=True,
            )
            account(self.report, problems, self.on_refused)
            self.server.start()
            with Graph.connect(self.settings) as graph:
                ensure_schema(graph)
        finally:
            self.files.close()
            self._delete()
        return self.report

    def close(self) -> None:
        """Close the files (the reader's pass ended); ``finish`` imports them."""
        self.files.close()


def account(report: IngestReport, problems: list[str], on_refused: Refused | None) -> None:
    """What neo4j-admin did not import (a repeated id: the first row kept; an edge to a
    node not imported) becomes a refused row with the import's line, never a silent loss,
    and leaves the written counts: rows sent = written + not written."""
    for line in problems:
        # neo4j-admin: "Id '<id>' is defined more than once in group '<group>'" for a
        # repeated node id; any other line is an edge it could not make.
        groups = ("Patient", "Encounter", "Fact", "Run")
        repeated = "more than once" in line
        kind = next((k for k in groups if repeated and f"group '{k}'" in line), None)
        key = kind.lower() if kind else "relationship"
        report.not_written[key] = report.not_written.get(key, 0) + 1
        if kind == "Patient":
            report.patients -= 1
        elif kind == "Encounter":
            report.encounters -= 1
        elif kind == "Fact":
            report.facts -= 1
            report.unknown -= 1
        if on_refused is not None:
            on_refused(key, {"id": line[:300]}, "not imported by neo4j-admin")


def _delete(*groups: list[Path]) -> None:
    """The CSV files gone (the import's report and log stay for inspection)."""
    for paths in groups:
        for path in paths:
            path.unlink(missing_ok=True)
