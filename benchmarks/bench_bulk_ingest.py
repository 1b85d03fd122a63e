"""A first load of patients two ways, the whole path a user runs, in one run: the
vocabularies then the batched ingest, against the bulk ingest (neo4j-admin import into an
empty database) then the vocabularies (each load links the facts whose code it brings).
Writes JSON and prints Markdown.

    python -m benchmarks.bench_bulk_ingest --patients 10000 --workdir /tmp/bench-bulk \\
        --json docs/benchmarks/bulk-ingest-10k.json

- ``synth_ehr.py``'s first N patients as OMOP CSVs (written once, not timed).
- Each way on its own fresh local Neo4j (started, not timed; its folder deleted first),
  every step a ``kgverify`` child process, timed: ``load`` of the three sample releases
  and ``ingest omop`` (way "batched"), or ``ingest omop --bulk`` (which stops the server,
  imports and starts it again: counted) and the three ``load``s (way "bulk").
- ``--rounds R`` (2): both ways R times, in turn.
- The graphs must be the same: nodes per label, relationships per type (runs aside) and a
  digest of every fact's id, ``known`` and coded concept (one pseudonym salt for both).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from benchmarks.bench_scale import AFTER, timed_cli
from benchmarks.bench_writes import shape
from benchmarks.common import cli_env, run_meta, server_options, server_settings
from benchmarks.synth_ehr import write_omop
from kgverify.api import SAMPLE_RELEASES, sample_path
from kgverify.graph import Graph
from kgverify.server import LocalServer


def facts_digest(graph: Graph) -> str:
    """Every fact's id, ``known`` and coded concept, in id order, as one digest."""
    digest = hashlib.sha256()
    done = graph.run_adhoc(
        "MATCH (f:Fact) OPTIONAL MATCH (f)-[:CODED_AS]->(c) "
        "RETURN f.id AS id, f.known AS known, c.id AS concept ORDER BY id",
        {},
        write=False,
    )
    for row in done.rows:
        digest.update(json.dumps([row["id"], row["known"], row["concept"]]).encode())
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patients", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    server_options(parser, 7799)
    args = parser.parse_args()
    root = args.workdir
    root.mkdir(parents=True, exist_ok=True)
    meta = run_meta(patients=args.patients, tree=str(AFTER))
    ehr, log = root / "omop", root / "stages.log"
    if not ehr.exists():
        write_omop(ehr, 0, args.patients)
    loads = [["load", name, str(sample_path(*parts))] for name, parts in SAMPLE_RELEASES.items()]
    ingest = ["ingest", "omop", str(ehr)]
    ways = {"batched": [*loads, ingest], "bulk": [[*ingest, "--bulk"], *loads]}
    stages: list[dict[str, Any]] = []
    checks: dict[str, Any] = {"shapes": {}, "facts": {}}
    for round_ in range(1, args.rounds + 1):
        for way, steps in ways.items():
            work = root / way
            shutil.rmtree(work, ignore_errors=True)
            settings = server_settings(work, args)
            server = LocalServer(settings)
            server.start()
            env = cli_env(settings) | {"KGVERIFY_PSEUDONYM_SALT": "bench-bulk-ingest"}
            try:
                total = 0.0
                for argv in steps:
                    name = " ".join(a for a in argv if not a.startswith("/"))
                    result = timed_cli(name, AFTER, argv, env, log) | {"round": round_, "way": way}
                    report = result.pop("report")
                    if argv[0] == "load":
                        result["facts_linked"] = report.get("facts_linked", 0)
                    else:
                        result["patients"] = report["ingest"]["patients"]
                        result["facts"] = report["ingest"]["facts"]
                    total += result["seconds"]
                    stages.append(result)
                stages.append(
                    {"stage": "whole path", "way": way, "round": round_, "seconds": round(total, 1)}
                )
                with Graph.connect(settings) as graph:
                    checks["shapes"][f"{way} {round_}"] = shape(graph)
                    checks["facts"][f"{way} {round_}"] = facts_digest(graph)
            finally:
                server.stop()
    checks["graphs_identical"] = (
        len({json.dumps(s, sort_keys=True) for s in checks["shapes"].values()}) == 1
    )
    checks["facts_identical"] = len(set(checks["facts"].values())) == 1
    meta["load_end"] = round(os.getloadavg()[0], 2)
    lines = [
        "| round | way | step | seconds | CPU s | load at start |",
        "|---:|---|---|---:|---:|---:|",
    ]
    for s in stages:
        lines.append(
            f"| {s['round']} | {s['way']} | {s['stage']} | {s['seconds']} "
            f"| {s.get('cpu_s', '')} | {s.get('load', '')} |"
        )
    print("\n".join(lines))
    print(json.dumps({k: checks[k] for k in ("graphs_identical", "facts_identical")}))
    if args.json:
        args.json.write_text(
            json.dumps({"meta": meta, "stages": stages, "checks": checks}, indent=2) + "\n"
        )


if __name__ == "__main__":
    main()
