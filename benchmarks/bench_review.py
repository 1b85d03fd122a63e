"""Review round-trip benchmark: ``kgverify review export`` of every derived item (lineage
read per item, evidence edge sources, pages, index, sheet) and ``kgverify review import``
of that sheet filled with accepts, timed on the graph the main job leaves.

    make sample        # or: kgverify sample
    python -m benchmarks.bench_review [--json docs/benchmarks/review.json]

(Run as a module from the repository root.) Each round trip writes its accepts under the
reviewer ``bench-review`` and deletes them again (``queries/review/delete_reviewer``), so
the sample graph is left as it was: accepts flag no item and mark no assertion. One warm-up
round, then three timed; the median is reported, and printed as JSON.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import write_results
from kgverify.config import Settings
from kgverify.graph import Graph
from kgverify.review.export import default_qa, export_review
from kgverify.review.importer import import_sheet

REPEATS = 3
REVIEWER = "bench-review"


def _accept_all(sheet: Path) -> int:
    with sheet.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        if not row["assertion_id"]:  # the item's row; its relation rows stay unjudged
            row["decision"] = "accept"
            row["reviewer"] = REVIEWER
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)


def round_trip(graph: Graph, qa: Path, folder: Path) -> dict[str, Any]:
    started = time.perf_counter()
    exported = export_review(graph, folder, qa)
    export_s = time.perf_counter() - started
    rows = _accept_all(folder / "sheet.csv")
    started = time.perf_counter()
    imported = import_sheet(graph, folder / "sheet.csv")
    import_s = time.perf_counter() - started
    graph.write("review/delete_reviewer", reviewer=REVIEWER)
    return {
        "items": exported.pages,
        "edges": exported.edges,
        "rows": rows,
        "reviews": imported.created,
        "export": export_s,
        "import": import_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    settings = Settings()
    qa = default_qa(settings.cache_dir)
    runs = []
    with Graph.connect(settings) as graph, tempfile.TemporaryDirectory() as tmp:
        for n in range(REPEATS + 1):
            runs.append(round_trip(graph, qa, Path(tmp) / str(n)))
    timed = runs[1:]
    export_s = statistics.median(r["export"] for r in timed)
    import_s = statistics.median(r["import"] for r in timed)
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "items": runs[0]["items"],
        "evidence_edges": runs[0]["edges"],
        "sheet_rows": runs[0]["rows"],
        "reviews_written": runs[0]["reviews"],
        "export_seconds": round(export_s, 3),
        "import_seconds": round(import_s, 3),
        "round_trip_seconds": round(export_s + import_s, 3),
        "items_per_second": round(runs[0]["items"] / (export_s + import_s), 1),
    }
    write_results(results, args.json)


if __name__ == "__main__":
    main()
