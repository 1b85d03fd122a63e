"""What the release guard, row-safe writes and order-independent upserts cost: the whole
path a user runs to load a release and then its successor, the old code against the new, in
one run on one machine.

    python -m benchmarks.bench_release_update --concepts 100000 --relationships 500000 \\
        --before 905c03c --json docs/benchmarks/release_update.json

1. A synthetic UMLS release (``benchmarks/synth_umls.py``, seed 7) as ``2099AA`` and a
   successor ``2099AB`` that drops 1% of the concepts (their MRCONSO, MRSTY and MRREL
   lines), as real releases do.
2. For each tree (``--before``, checked out with ``git worktree``, and the current one):
   a fresh local Neo4j, ``load_vocabulary`` of 2099AA, then of 2099AB, each timed as a
   whole (pre-flight, rows, guard, retirement, bookkeeping), in a subprocess with
   ``PYTHONPATH`` set to that tree. Both trees must load the same graph: the retired counts
   are compared.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.synth_umls import write as write_synthetic
from kgverify.config import Settings
from kgverify.server import LocalServer
from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "905c03c"  # the last commit before issue 15
DROP_EVERY = 100  # 1% of the concepts are dropped by the successor

# Runs in a subprocess in either tree: loads the two releases and prints one JSON line.
WORKER = """
import json, sys, time
from pathlib import Path
from kgverify.api import load_vocabulary
from kgverify.config import Settings
out = []
for path in sys.argv[1:]:
    started = time.monotonic()
    report = load_vocabulary("umls", Path(path), settings=Settings())
    out.append({"release": report.release, "seconds": round(time.monotonic() - started, 1),
                "rows": report.read, "rejected": report.rejected,
                "retired_concepts": report.retired_concepts,
                "retired_relationships": report.retired_relationships})
print(json.dumps(out))
"""


def successor(first: Path, second: Path) -> int:
    """Copy ``first`` as 2099AB without every DROP_EVERY-th concept; returns how many."""
    meta, target = first / "META", second / "META"
    target.mkdir(parents=True)
    (target / "release.dat").write_text("umls.release.name=2099AB\numls.release.date=20990701\n")
    conso = (meta / "MRCONSO.RRF").read_text(encoding="utf-8").splitlines(keepends=True)
    cuis = sorted({line.split("|", 1)[0] for line in conso})
    dropped = set(cuis[::DROP_EVERY])
    for name, columns in (("MRCONSO.RRF", (0,)), ("MRSTY.RRF", (0,)), ("MRREL.RRF", (0, 4))):
        with (
            (meta / name).open(encoding="utf-8") as src,
            (target / name).open("w", encoding="utf-8") as dst,
        ):
            for line in src:
                fields = line.split("|")
                if not any(fields[c] in dropped for c in columns):
                    dst.write(line)
    for extra in meta.glob("*.RRF"):
        if not (target / extra.name).exists():
            shutil.copy(extra, target / extra.name)
    return len(dropped)


def run_tree(tree: Path, releases: list[Path], work: Path, heap: str) -> list[dict[str, Any]]:
    settings = Settings(
        neo4j_home=work / "neo4j",
        bolt_port=free_port(),
        neo4j_heap=heap,
        neo4j_pagecache=heap,
        cache_dir=work / "cache",
    )
    # Share the Maven-built launcher instead of building it again.
    shared = Settings().cache_dir
    settings.cache_dir.mkdir(parents=True, exist_ok=True)
    for entry in shared.iterdir():
        if entry.name.startswith("neo4j-local") and not (settings.cache_dir / entry.name).exists():
            (settings.cache_dir / entry.name).symlink_to(entry)
    server = LocalServer(settings)
    server.start()
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KGVERIFY_")}
        env.update(
            PYTHONPATH=str(tree),
            KGVERIFY_CACHE_DIR=str(settings.cache_dir),
            KGVERIFY_NEO4J_HOME=str(settings.local_home),
            KGVERIFY_BOLT_PORT=str(settings.bolt_port),
        )
        done = subprocess.run(
            [sys.executable, "-c", WORKER, *map(str, releases)],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"load in {tree} failed:\n{done.stderr[-4000:]}")
        result: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
        return result
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concepts", type=int, default=100_000)
    parser.add_argument("--relationships", type=int, default=500_000)
    parser.add_argument("--before", default=BEFORE, help="the commit that loads the old way")
    parser.add_argument("--heap", default="1g")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-update-"))
    before_tree = work / "before"
    try:
        first = work / "2099AA"
        write_synthetic(first, args.concepts, args.relationships, seed=7)
        dropped = successor(first, work / "2099AB")
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(before_tree), args.before],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        releases = [first, work / "2099AB"]
        results = {
            "before": run_tree(before_tree, releases, work / "run-before", args.heap),
            "after": run_tree(ROOT, releases, work / "run-after", args.heap),
        }
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(before_tree)], cwd=ROOT, check=False
        )
        shutil.rmtree(work, ignore_errors=True)
    summary = {
        "concepts": args.concepts,
        "relationships": args.relationships,
        "dropped_concepts": dropped,
        "before_ref": args.before,
        "machine": f"{platform.machine()}, {len(os.sched_getaffinity(0))} cores, "
        f"Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "results": results,
    }
    print(json.dumps(summary, indent=2))
    for step in range(2):
        b, a = results["before"][step], results["after"][step]
        print(
            f"{a['release']}: before {b['seconds']} s ({b['rows'] / b['seconds']:,.0f} rows/s), "
            f"after {a['seconds']} s ({a['rows'] / a['seconds']:,.0f} rows/s); retired "
            f"{b['retired_concepts']} / {a['retired_concepts']} concepts"
        )
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
