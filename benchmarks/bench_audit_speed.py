"""Audit query speed: ``kgverify audit filter_rates`` against ``kgverify cypher "RETURN 1"``
as whole processes, on the graph the main job leaves.

    make sample        # or: kgverify sample
    python -m benchmarks.bench_audit_speed [--runs 9] [--json docs/benchmarks/audit_speed.json]

(Run as a module from the repository root; the commands reach the graph the environment
names, as ``kgverify`` itself does.) Both commands start a Python process, import what they
use, connect and run one read, so their ratio is what an audit query costs beyond the
command line's floor; it was 3.5 to 6 while every audit imported the linker (scispaCy,
spaCy). One warm-up run of each, then the two in turn (A B A B ...) so drift on a shared
machine hits both; medians of wall and CPU seconds (user + system, children included) and
the median of the per-pair wall ratios are printed as JSON. It also says which heavy
packages the audit process imported (none expected).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import run_meta, write_results

AUDIT = [sys.executable, "-m", "kgverify", "audit", "filter_rates"]
CYPHER = [sys.executable, "-m", "kgverify", "cypher", "RETURN 1"]
HEAVY = ("spacy", "scispacy", "sklearn", "nmslib", "rdflib", "networkx")
# The audit command run in-process, then the heavy packages it left in sys.modules.
PROBE = (
    "import atexit, sys\n"
    f"atexit.register(lambda: print(sorted(m for m in sys.modules if m in {HEAVY!r}), "
    "file=sys.stderr))\n"
    "sys.argv = ['kgverify', 'audit', 'filter_rates']\n"
    "from kgverify.cli import main\n"
    "main()\n"
)


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` (which must succeed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=os.environ.copy())
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def heavy_imports() -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE], check=True, capture_output=True, text=True)
    found: list[str] = json.loads(done.stderr.strip().splitlines()[-1].replace("'", '"'))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="timed runs of each command")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    timed(AUDIT), timed(CYPHER)  # warm-up: the page cache, the server's query plans
    audit: list[tuple[float, float]] = []
    cypher: list[tuple[float, float]] = []
    for _ in range(args.runs):
        audit.append(timed(AUDIT))
        cypher.append(timed(CYPHER))
    results: dict[str, Any] = {
        **run_meta(runs=args.runs),
        "audit": " ".join(AUDIT[1:]),
        "cypher": " ".join(CYPHER[1:]),
        "audit_wall_s": round(statistics.median(w for w, _ in audit), 3),
        "cypher_wall_s": round(statistics.median(w for w, _ in cypher), 3),
        "audit_cpu_s": round(statistics.median(c for _, c in audit), 3),
        "cypher_cpu_s": round(statistics.median(c for _, c in cypher), 3),
        "wall_ratio": round(
            statistics.median(a[0] / c[0] for a, c in zip(audit, cypher, strict=True)), 2
        ),
        "cpu_ratio": round(
            statistics.median(a[1] / c[1] for a, c in zip(audit, cypher, strict=True)), 2
        ),
        "audit_heavy_imports": heavy_imports(),
    }
    write_results(results, args.json)


if __name__ == "__main__":
    main()
