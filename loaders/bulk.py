"""Bulk path for full-size releases: stream the loader's node and edge steps into CSV files
for ``neo4j-admin database import full``, import them into the (empty) local database, then
run the remaining steps (semantic types, definitions, attributes) through the batched path.

Why both paths exist: the batched path is transactional, incremental and idempotent (it
updates a graph that already holds other vocabularies or an older release), but runs at
tens of thousands of rows per second. neo4j-admin writes the store files directly, at
hundreds of thousands of rows per second, but only into an empty database. See
docs/loaders.md for when to use which.

Shape of the files: one node file and one relationship file per step, ``|`` as array
delimiter (RRF fields cannot contain it). RRF files state every relationship in both
directions, so only the canonical direction of each row is written (the batched path gets
the same single edge by MERGE). Concepts must arrive sorted by id, as NLM ships MRCONSO
and RXNCONSO; the writer checks it.
"""

from __future__ import annotations

import csv
import shutil
import time
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import IO, Any

from kgverify.config import Settings
from kgverify.errors import LoadError
from kgverify.graph.driver import Graph
from kgverify.graph.model import RelType
from kgverify.graph.schema import ensure_schema
from kgverify.rows import RejectSink, Tally
from kgverify.server.local import LocalServer
from loaders.base import Release, Row, VocabularyLoader
from loaders.pipeline import (
    ProgressFactory,
    begin_release,
    check_files,
    default_rejects_path,
    finish,
    reject_if_dangling,
    run_step_batched,
)
from loaders.report import LoadReport
from loaders.staging import DiskIdSet

NODE_HEADER = [
    "id:ID",
    ":LABEL",
    "vocab",
    "owner",
    "code",
    "name",
    "name_rank:int",
    "names:string[]",
    "kinds:string[]",
    "semantic_types:string[]",
    "active:boolean",
    "effective_time",
    "release",
    "first_release",
    "stub:boolean",
    "name_preferred:boolean",
    "retired_in",
]
EDGE_HEADER = [
    ":START_ID",
    ":END_ID",
    ":TYPE",
    "sab",
    "group:int",
    "source_rel",
    "source",
    "active:boolean",
    "effective_time",
    "release",
    "first_release",
    "ttys:string[]",
]
ARRAY = "|"
# Empty fields are left out of the store (--ignore-empty-strings), as the batched path
# leaves unset properties absent.


def _array(values: Iterable[str]) -> str:
    return ARRAY.join(v.replace(ARRAY, " ") for v in values)


def _bool(value: bool) -> str:
    return "true" if value else "false"


class CsvWriter:
    """Writes node and relationship rows in neo4j-admin's CSV header format."""

    def __init__(self, folder: Path, release: Release) -> None:
        self.folder = folder
        self.release = release
        self.node_files: list[Path] = []
        self.edge_files: list[Path] = []
        # Every node id written, on disk: edges to anything else are rejected here, with
        # their line, exactly as the batched path rejects them.
        self.ids = DiskIdSet()
        folder.mkdir(parents=True, exist_ok=True)

    def close(self) -> None:
        self.ids.close()

    def _open(self, name: str, header: list[str], into: list[Path]) -> tuple[IO[str], Any]:
        path = self.folder / name
        into.append(path)
        handle = path.open("w", newline="", encoding="utf-8")
        writer = csv.DictWriter(handle, fieldnames=header, restval="")
        writer.writeheader()
        return handle, writer

    def write_concepts(self, stem: str, rows: Iterable[Row], *, grouped: bool) -> None:
        rid, vocab = self.release.id, self.release.vocab.value
        nodes, node_out = self._open(f"{stem}_nodes.csv", NODE_HEADER, self.node_files)
        stubs, stub_out = self._open(f"{stem}_stubs.csv", NODE_HEADER, self.node_files)
        maps, map_out = self._open(f"{stem}_maps.csv", EDGE_HEADER, self.edge_files)
        last = ""
        written: list[str] = []
        with nodes, stubs, maps:
            for row in rows:
                if grouped and row["id"] <= last:
                    raise LoadError(
                        f"bulk import needs concepts sorted by id (as NLM ships them): "
                        f"{row['id']} after {last}; sort the file or load without --bulk"
                    )
                last = row["id"]
                written.append(row["id"])
                written.extend(m["id"] for m in row.get("maps", []))
                if len(written) >= 10_000:
                    self.ids.add_many(written)
                    written.clear()
                node_out.writerow(
                    {
                        "id:ID": row["id"],
                        ":LABEL": f"Concept{ARRAY}{vocab}",
                        "vocab": vocab,
                        "owner": vocab,
                        "code": row["code"],
                        "name": row["name"] or (row["names"][0] if row["names"] else ""),
                        "name_rank:int": "" if row.get("name_rank") is None else row["name_rank"],
                        "names:string[]": _array(row["names"]),
                        "kinds:string[]": _array(row["kinds"]),
                        "semantic_types:string[]": _array(row["semantic_types"]),
                        "active:boolean": _bool(row["active"]),
                        "effective_time": row["effective_time"] or "",
                        "release": rid,
                        "first_release": rid,
                        "stub:boolean": "false",
                        "name_preferred:boolean": "false",
                        "retired_in": "" if row["active"] else rid,
                    }
                )
                for m in row.get("maps", []):
                    # Repeated codes across concepts: neo4j-admin keeps the first
                    # (--skip-duplicate-nodes), as MERGE does.
                    stub_out.writerow(
                        {
                            "id:ID": m["id"],
                            ":LABEL": "Concept",
                            "vocab": m["vocab"],
                            "code": m["code"],
                            "name": m["name"],
                            "name_rank:int": m["name_rank"],
                            "names:string[]": _array(m["names"]),
                            "active:boolean": "true",
                            "first_release": rid,
                            "stub:boolean": "true",
                        }
                    )
                    map_out.writerow(
                        {
                            ":START_ID": row["id"],
                            ":END_ID": m["id"],
                            ":TYPE": RelType.MAPS_TO.value,
                            "sab": m["sab"],
                            "group:int": 0,
                            "source_rel": "atom",
                            "source": vocab,
                            "active:boolean": "true",
                            "release": rid,
                            "first_release": rid,
                            "ttys:string[]": _array(m["ttys"]),
                        }
                    )

        self.ids.add_many(written)

    def write_edges(self, stem: str, rows: Iterable[Row], tally: Tally) -> None:
        rid, vocab = self.release.id, self.release.vocab.value
        handle, out = self._open(f"{stem}_edges.csv", EDGE_HEADER, self.edge_files)
        with handle:
            for row in self._existing(rows, tally):
                if not row.get("canonical", True):
                    continue  # the same edge comes from its canonical row
                out.writerow(
                    {
                        ":START_ID": row["start"],
                        ":END_ID": row["end"],
                        ":TYPE": RelType(row["type"]).value,
                        "sab": row["sab"],
                        "group:int": row["group"],
                        "source_rel": row["source_rel"],
                        "source": vocab,
                        "active:boolean": _bool(row["active"]),
                        "effective_time": row["effective_time"] or "",
                        "release": rid,
                        "first_release": rid,
                    }
                )

    def _existing(self, rows: Iterable[Row], tally: Tally) -> Iterator[Row]:
        """Rows whose two concepts were written; the others are rejected as dangling."""
        iterator = iter(rows)
        while chunk := list(islice(iterator, 5_000)):
            ids = list({row[ref] for row in chunk for ref in ("start", "end")})
            missing = set(ids) - self.ids.contains_many(ids)
            for row in chunk:
                if not missing or not reject_if_dangling(row, ("start", "end"), missing, tally):
                    yield row


def bulk_load(
    loader: VocabularyLoader,
    *,
    settings: Settings,
    rejects_path: Path | None,
    progress: ProgressFactory,
) -> LoadReport:
    """Import a release with neo4j-admin into the local server's empty database."""
    if settings.neo4j_uri:
        raise LoadError(
            "--bulk imports into the local server's store; unset NEO4J_URI (for a remote "
            "server, run neo4j-admin database import there)"
        )
    started = time.monotonic()
    release = loader.release()
    check_files(loader, loader.steps())
    server = LocalServer(settings)
    if server.holds_nodes():  # look inside before the import overwrites it
        raise LoadError(
            "--bulk needs an empty database (an import replaces it); this one holds patients, "
            "releases or other nodes: load without --bulk (a load links the patients' facts), "
            "or `kgverify graph reset --yes` first"
        )
    rejects = RejectSink(rejects_path or default_rejects_path(settings, release))
    report = LoadReport(loader=loader.name, release=release.id, mode="bulk")
    folder = settings.cache_dir / "bulk" / release.id.replace("@", "-")
    shutil.rmtree(folder, ignore_errors=True)
    writer = CsvWriter(folder, release)
    deferred = []
    tallies: dict[str, Tally] = {}
    try:
        for index, step in enumerate(loader.steps()):
            if step.kind == "update":
                deferred.append(step)
                continue
            tally = tallies[step.label] = Tally(step.file.name, rejects, step.label)
            with progress(
                f"{step.file.name}: {step.label} -> CSV", step.file.stat().st_size
            ) as advance:
                stem = f"{index:02d}_{step.label.replace(' ', '_')}"
                if step.kind == "nodes":
                    writer.write_concepts(stem, step.rows(tally), grouped=step.grouped)
                else:
                    writer.write_edges(stem, step.rows(tally), tally)
                advance(tally.bytes)
        server.stop()
        writer.close()
        bad = server.bulk_import(writer.node_files, writer.edge_files, folder / "import.report")
        # Dangling edges were rejected above with their lines; what neo4j-admin still
        # reports are repeated stub codes (kept once, as MERGE does). Anything else becomes
        # a reject without a line, never a silent loss.
        unexpected = [line for line in bad if "more than once" not in line]
        if unexpected and "relationships" in tallies:
            for text in unexpected:
                tallies["relationships"].loaded -= 1
                tallies["relationships"].reject(None, "rejected by neo4j-admin import", text)
        for csv_file in writer.node_files + writer.edge_files:
            csv_file.unlink()  # imported; the report and log stay for inspection
        server.start()
        with Graph.connect(settings) as graph:
            graph.write_autocommit("load/dedupe_relationships", vocab=release.vocab.value)
            ensure_schema(graph)
            begin_release(graph, loader, release, "bulk")
            for step in deferred:
                tally = tallies[step.label] = Tally(step.file.name, rejects, step.label)
                run_step_batched(graph, step, release, tally, settings.batch_size, progress)
            order = [s.label for s in loader.steps()]
            report.files = [tallies[label].report() for label in order if label in tallies]
            rejects.close()
            finish(graph, release, report, rejects, settings, started, retire=False)
    finally:
        writer.close()
        rejects.close()
        loader.close()
    return report
