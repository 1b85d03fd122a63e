"""Rows as the driver decoded them (``plain_rows``) against ``Record.data()``, on the whole
derivation path a user runs: ``derive facts`` and ``derive qa`` (items written back), the
two alternating in one process. Needs the sample pipeline's graph (``make sample``, or any
graph where ``kgverify sample`` ran with the same settings).

    python -m benchmarks.bench_rows [--rounds 3] [--json docs/benchmarks/rows.json]

(Run it as a module from the repository root: pysbd installs a top-level ``benchmarks``.)

- ``data()`` is the way before: every record copied into new dicts and lists, entities
  turned into dicts. ``plain`` is ``kgverify.graph.driver.plain_rows`` without the strict
  check (as users run it).
- Also timed on its own: turning one page of ``derive/patient_records`` (every sample
  patient) into rows, after fetching it once.
- Each round runs both ways in turn, alternating which goes first; the medians are
  reported.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import neo4j

from kgverify.api import derive_facts, derive_qa
from kgverify.config import Settings
from kgverify.graph import Graph
from kgverify.graph import driver as graph_driver
from kgverify.graph.connection import resolve_connection
from kgverify.graph.queries import get_query

Rows = Callable[..., list[dict[str, Any]]]


def record_data(name: str, records: Iterable[neo4j.Record], strict: bool = False) -> list[Any]:
    """The way before: ``Record.data()`` per record."""
    return [record.data() for record in records]


def derive_seconds(graph: Graph, settings: Settings, rows: Rows, folder: Path) -> dict[str, float]:
    graph_driver.plain_rows = rows  # what Graph._run calls
    start = time.perf_counter()
    derive_facts(folder / "facts", settings=settings, graph=graph)
    facts = time.perf_counter() - start
    start = time.perf_counter()
    derive_qa(folder / "qa", settings=settings, graph=graph)
    return {"facts_s": facts, "qa_s": time.perf_counter() - start}


def page_seconds(graph: Graph, settings: Settings) -> dict[str, float]:
    ids = [r["id"] for r in graph.read("derive/patients_page", after="", limit=100_000)]
    uri, user, password = resolve_connection(settings)
    driver = neo4j.GraphDatabase.driver(
        uri, auth=(user, password), notifications_min_severity="OFF"
    )
    with driver, driver.session(database=graph.database) as session:
        start = time.perf_counter()
        records = list(session.run(get_query("derive/patient_records").text, patients=ids))
        fetch = time.perf_counter() - start
    start = time.perf_counter()
    as_data = record_data("", records)
    data = time.perf_counter() - start
    start = time.perf_counter()
    plain = [dict(record) for record in records]
    dicts = time.perf_counter() - start
    assert plain == as_data
    return {"patients": len(ids), "fetch_s": fetch, "data_s": data, "plain_s": dicts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    settings = Settings()
    plain = graph_driver.plain_rows
    ways: dict[str, Rows] = {"data()": record_data, "plain": plain}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in ways}
    pages: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp, Graph.connect(settings) as graph:
        derive_seconds(graph, settings, plain, Path(tmp) / "warm")  # caches, JIT, page cache
        for n in range(args.rounds):
            order = list(ways) if n % 2 == 0 else list(reversed(ways))
            for name in order:
                runs[name].append(derive_seconds(graph, settings, ways[name], Path(tmp) / name))
            pages.append(page_seconds(graph, settings))
        graph_driver.plain_rows = plain
    result: dict[str, Any] = {
        "command": "python -m benchmarks.bench_rows "
        + f"--rounds {args.rounds}"
        + (f" --json {args.json}" if args.json else ""),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "rounds": args.rounds,
        "median": {
            name: {key: round(statistics.median(r[key] for r in got), 3) for key in got[0]}
            for name, got in runs.items()
        },
        "patient_records_page": {
            key: round(statistics.median(p[key] for p in pages), 4) for key in pages[0]
        },
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
