"""What the benchmarks that start their own Neo4j share: its settings and options, the
run's metadata (when, where, which commit), and a graph of synthetic patients."""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

from kgverify.config import Settings
from kgverify.graph import Graph


def server_options(parser: argparse.ArgumentParser, port: int) -> None:
    """``--port``, ``--heap``, ``--pagecache`` of the benchmark's own server."""
    parser.add_argument("--port", type=int, default=port)
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache", default="1g")


def server_settings(work: Path, args: argparse.Namespace) -> Settings:
    """Settings for a fresh local Neo4j and cache under ``work``."""
    return Settings().model_copy(
        update={
            "neo4j_home": work / "home",
            "bolt_port": args.port,
            "neo4j_uri": None,
            "cache_dir": work / "cache",
            "neo4j_heap": args.heap,
            "neo4j_pagecache": args.pagecache,
        }
    )


def run_meta(**extra: Any) -> dict[str, Any]:
    """When, on what, at which commit, and the load average at the start."""
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "load": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip(),
        **extra,
    }


def synthetic_graph(graph: Graph, settings: Settings, work: Path, patients: int) -> dict[str, Any]:
    """The three sample releases loaded, ``patients`` patients of ``synth_ehr.py`` ingested
    and their template relations extracted to ``work/relations.jsonl``; says how long the
    ingest took and where the files are."""
    from benchmarks.synth_ehr import write_omop
    from kgverify.api import (
        SAMPLE_RELEASES,
        extract_relations,
        ingest_source,
        load_vocabulary,
        sample_path,
    )

    for name, parts in SAMPLE_RELEASES.items():
        load_vocabulary(name, sample_path(*parts), settings=settings, graph=graph)
    ehr = work / "omop"
    write_omop(ehr, 0, patients)
    started = time.perf_counter()
    ingest_source("omop", ehr, settings=settings, graph=graph)
    ingest_s = round(time.perf_counter() - started, 1)
    relations = work / "relations.jsonl"
    extract_relations("omop", ehr, relations, settings=settings)
    return {"ingest_s": ingest_s, "ehr": ehr, "relations": relations}


def own_peak_mb() -> float:
    """This process's peak resident set since it started (``VmHWM``). Not ``ru_maxrss``:
    Linux records the spawning parent's resident set into the child's ``ru_maxrss`` at
    ``exec``, so a child spawned by a large benchmark process reported the parent's size."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError("no VmHWM in /proc/self/status")


# The CLI, writing its own VmHWM to $KGVERIFY_BENCH_PEAK when it exits (own_peak_mb's
# why); self-contained, so it runs with any tree's kgverify on PYTHONPATH.
_CLI = """
import atexit, os, sys

def _peak():
    hwm = next(x for x in open("/proc/self/status") if x.startswith("VmHWM:"))
    open(os.environ["KGVERIFY_BENCH_PEAK"], "w").write(str(int(hwm.split()[1]) / 1024))

atexit.register(_peak)
sys.argv = ["kgverify", *sys.argv[1:]]
from kgverify.cli import main
main()
"""


def run_cli(
    args: list[str], env: dict[str, str], log: Path, cwd: Path | None = None
) -> tuple[bytes, float, float | None, int]:
    """``kgverify ARGS`` in its own process, stderr appended to ``log``: its stdout, wall
    seconds, own peak RSS in MB (None when it did not exit normally) and exit code."""
    import sys
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kgverify-bench-peak-") as tmp:
        peak_file = Path(tmp) / "peak"
        child_env = env | {"KGVERIFY_BENCH_PEAK": str(peak_file)}
        started = time.perf_counter()
        with log.open("ab") as err:
            done = subprocess.run(
                [sys.executable, "-c", _CLI, *args],
                stdout=subprocess.PIPE,
                stderr=err,
                env=child_env,
                cwd=cwd,
                check=False,
            )
        seconds = time.perf_counter() - started
        peak = round(float(peak_file.read_text()), 1) if peak_file.exists() else None
    return done.stdout, seconds, peak, done.returncode


def cli_env(settings: Settings) -> dict[str, str]:
    """This process's environment pointed at the benchmark's own server and cache, for the
    ``kgverify`` children (``NEO4J_URI`` dropped, so they use that local server)."""
    env = {
        **os.environ,
        "KGVERIFY_NEO4J_HOME": str(settings.neo4j_home),
        "KGVERIFY_BOLT_PORT": str(settings.bolt_port),
        "KGVERIFY_CACHE_DIR": str(settings.cache_dir),
        "KGVERIFY_NEO4J_HEAP": settings.neo4j_heap,
        "KGVERIFY_NEO4J_PAGECACHE": settings.neo4j_pagecache,
    }
    env.pop("NEO4J_URI", None)
    return env


def clear_assertions(graph: Graph) -> None:
    """Every assertion deleted, 5,000 per transaction (untimed), so the next write-back is
    a first write."""
    while True:
        done = graph.run_adhoc(
            "MATCH (a:Assertion) WITH a LIMIT 5000 DETACH DELETE a RETURN count(*) AS n",
            {},
            write=True,
        )
        if not done.rows or not done.rows[0]["n"]:
            return


def write_results(results: dict[str, Any], path: Path | None) -> None:
    """Print the results as JSON, and write them to ``path`` too when one is given."""
    text = json.dumps(results, indent=2)
    print(text)
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
