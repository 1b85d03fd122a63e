"""Derivation benchmark: QA items derived per second with the distractor checks batched per
page of patients (a few round trips per page) versus screened one item at a time (the same
queries, one candidate per round trip), in one run, on the graph the main job leaves.

    make sample        # or: kgverify sample
    python -m benchmarks.bench_derive --json docs/benchmarks/derive.json

(Run as a module from the repository root: pysbd installs a top-level ``benchmarks``.)
Each way is run once to warm Neo4j, then timed three times; the median is reported. The
batched figure is the whole ``run_qa`` (records read, screened, stored, written to files,
no graph write); the per-item figure times candidate screening alone, so it flatters the
naive way.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from kgverify.config import Settings
from kgverify.derive.qa import DistractorScreen, candidates_for
from kgverify.derive.records import read_records
from kgverify.derive.run import run_qa
from kgverify.graph import Graph
from kgverify.verify.verifier import Verifier

REPEATS = 3


def _median(run: Any) -> float:
    run()
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    settings = Settings()
    with Graph.connect(settings) as graph, tempfile.TemporaryDirectory() as tmp:
        report = run_qa(graph, settings, Path(tmp) / "qa", write=False)
        items = sum(sum(s.values()) for s in report.items.values())
        if not items:
            raise SystemExit("no items: run `kgverify sample` first")
        batched = _median(lambda: run_qa(graph, settings, Path(tmp) / "qa", write=False))
        records = list(read_records(graph, allergy_roots=settings.facts_allergy_roots))
        candidates = [c for r in records for c in candidates_for(r, settings, Counter())]
        with Verifier(graph, settings, write=False, enrich=False) as verifier:
            screen = DistractorScreen(graph, verifier, settings)

            pools = [list(c.pool) for c in candidates]  # the enrichment pools

            def one_at_a_time() -> None:
                for candidate, pool in zip(candidates, pools, strict=True):
                    candidate.pool = list(pool)
                    screen.screen([candidate])

            naive = _median(one_at_a_time)
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "patients": report.patients,
        "candidates": len(candidates),
        "items": items,
        "batched_seconds": round(batched, 3),
        "batched_items_per_second": round(items / batched, 1),
        "batched_candidates_per_second": round(len(candidates) / batched, 1),
        "per_item_seconds": round(naive, 3),
        "per_item_candidates_per_second": round(len(candidates) / naive, 1),
        "speedup": round(naive / batched, 2),
    }
    print("| way | seconds | candidates/s | items/s |")
    print("|---|---|---|---|")
    print(
        f"| batched per page (whole run) | {results['batched_seconds']} | "
        f"{results['batched_candidates_per_second']} | {results['batched_items_per_second']} |"
    )
    print(
        f"| one item per round trip (screening only) | {results['per_item_seconds']} | "
        f"{results['per_item_candidates_per_second']} | |"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
