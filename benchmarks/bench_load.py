"""Load benchmark: a synthetic UMLS release through the batched path, the bulk path
(neo4j-admin import) and the naive path (the same statements, one row per transaction, on
a slice), in one run, each on a fresh local Neo4j. Writes JSON and a Markdown table.

    python -m benchmarks.bench_load --concepts 1000000 --relationships 5000000 \\
        --json docs/benchmarks/load.json --markdown docs/benchmarks/load.md

Rates are rows read from the RRF files per second of wall time, for the whole load
(schema, release bookkeeping and retirement included). Peak memory: the server JVM's
VmHWM, the import JVM's max RSS, and this Python process's max RSS.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import shutil
import tempfile
import time
from itertools import islice
from pathlib import Path
from typing import Any

from benchmarks.synth_umls import write as write_synthetic
from kgverify.api import load_vocabulary
from kgverify.config import Settings
from kgverify.graph import Graph, ensure_schema
from kgverify.server import LocalServer
from loaders import get_loader
from loaders.pipeline import step_params
from loaders.report import RejectSink, Tally


def _jvm_peak_mb(server: LocalServer) -> float | None:
    pid = server.status().pid
    if pid is None:
        return None
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def _self_peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):  # not ru_maxrss: that carries the spawning parent's size
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError("no VmHWM")


def _children_peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)


def _settings(base: Settings, home: Path, port: int) -> Settings:
    return base.model_copy(update={"neo4j_home": home, "bolt_port": port, "neo4j_uri": None})


def _graph_counts(settings: Settings) -> dict[str, int]:
    with Graph.connect(settings) as g:
        rows = g.read("summary/concepts_by_vocab")
        rels = g.read("summary/relationships_by_type")
    return {
        "nodes": sum(r["concepts"] for r in rows),
        "relationships": sum(r["relationships"] for r in rels),
    }


def run_batched(release: Path, settings: Settings) -> dict[str, Any]:
    server = LocalServer(settings)
    server.start()
    started = time.monotonic()
    report = load_vocabulary(
        "umls", release, settings=settings, rejects_path=settings.cache_dir / "bench-rejects.jsonl"
    )
    seconds = time.monotonic() - started
    result = {
        "mode": "batched",
        "seconds": round(seconds, 1),
        "rows": report.read,
        "rows_per_s": round(report.read / seconds),
        "jvm_peak_mb": _jvm_peak_mb(server),
        "python_peak_mb": _self_peak_mb(),
        **_graph_counts(settings),
    }
    server.stop()
    return result


def run_bulk(release: Path, settings: Settings) -> dict[str, Any]:
    server = LocalServer(settings)
    before = _children_peak_mb()
    started = time.monotonic()
    report = load_vocabulary(
        "umls",
        release,
        settings=settings,
        bulk=True,
        rejects_path=settings.cache_dir / "bench-rejects.jsonl",
    )
    seconds = time.monotonic() - started
    import_peak = _children_peak_mb()
    result = {
        "mode": "bulk",
        "seconds": round(seconds, 1),
        "rows": report.read,
        "rows_per_s": round(report.read / seconds),
        "jvm_peak_mb": _jvm_peak_mb(server),
        "import_jvm_peak_mb": import_peak if import_peak > before else None,
        "python_peak_mb": _self_peak_mb(),
        **_graph_counts(settings),
    }
    server.stop()
    return result


def run_naive(release: Path, settings: Settings, rows: int) -> dict[str, Any]:
    """The batched path's own statements, one row per transaction, on the first rows."""
    server = LocalServer(settings)
    server.start()
    loader = get_loader("umls")(release)
    rel = loader.release()
    sink = RejectSink(settings.cache_dir / "bench-naive-rejects.jsonl")
    done = 0
    started = time.monotonic()
    with Graph.connect(settings) as graph:
        ensure_schema(graph)
        for step in loader.steps():
            if step.label not in ("concepts", "relationships"):
                continue
            tally = Tally(step.file.name, sink)
            for row in islice(step.rows(tally), rows):
                for query in step.queries:
                    graph.write(query, rows=[row], **step_params(query, rel))
            done += tally.read
    seconds = time.monotonic() - started
    sink.close()
    result = {
        "mode": "naive (one row per transaction, slice)",
        "seconds": round(seconds, 1),
        "rows": done,
        "rows_per_s": round(done / seconds),
        "jvm_peak_mb": _jvm_peak_mb(server),
        "python_peak_mb": _self_peak_mb(),
    }
    server.stop()
    return result


def markdown(meta: dict[str, Any], results: list[dict[str, Any]]) -> str:
    lines = [
        f"Synthetic UMLS release: {meta['concepts']:,} concepts, {meta['relationships']:,} "
        f"relationships ({meta['rrf_rows']:,} RRF rows, {meta['rrf_mb']} MB), generated in "
        f"{meta['generate_s']} s. Machine: {meta['machine']}. Run on {meta['date']}.",
        "",
        "| path | wall s | rows read | rows/s | nodes | relationships | server JVM peak MB "
        "| import JVM peak MB | Python peak MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['mode']} | {r['seconds']} | {r['rows']:,} | {r['rows_per_s']:,} | "
            f"{r.get('nodes', '')} | {r.get('relationships', '')} | {r.get('jvm_peak_mb')} | "
            f"{r.get('import_jvm_peak_mb') or ''} | {r['python_peak_mb']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concepts", type=int, default=1_000_000)
    parser.add_argument("--relationships", type=int, default=5_000_000)
    parser.add_argument(
        "--naive-rows", type=int, default=2_000, help="rows per step for the naive path"
    )
    parser.add_argument("--skip-batched", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache", default="2g")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-"))
    base = Settings(
        neo4j_heap=args.heap, neo4j_pagecache=args.pagecache, cache_dir=Settings().cache_dir
    )
    try:
        t0 = time.monotonic()
        counts = write_synthetic(work / "release", args.concepts, args.relationships, seed=7)
        meta = {
            "concepts": args.concepts,
            "relationships": args.relationships,
            "rrf_rows": sum(counts.values()),
            "rrf_mb": round(
                sum(p.stat().st_size for p in (work / "release").rglob("*.RRF")) / 2**20
            ),
            "generate_s": round(time.monotonic() - t0, 1),
            "machine": f"{platform.machine()}, {len(__import__('os').sched_getaffinity(0))} "
            f"cores, Python {platform.python_version()}",
            "date": time.strftime("%Y-%m-%d"),
            "heap": args.heap,
            "pagecache": args.pagecache,
        }
        print(json.dumps(meta), flush=True)
        results = []
        modes = [("bulk", run_bulk), ("naive", None)]
        if not args.skip_batched:
            modes.insert(0, ("batched", run_batched))
        for index, (mode, func) in enumerate(modes):
            settings = _settings(base, work / f"home-{mode}", 7790 + index)
            if func is None:
                result = run_naive(work / "release", settings, args.naive_rows)
            else:
                result = func(work / "release", settings)
            print(json.dumps(result), flush=True)
            results.append(result)
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=2))
        if args.markdown:
            args.markdown.parent.mkdir(parents=True, exist_ok=True)
            args.markdown.write_text(markdown(meta, results))
        print(markdown(meta, results))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
