"""The database writes of ingest and verification before and after they ran beside the
reading (issue 39, points 2 and 3), back to back in one run on one graph. Writes JSON and
prints Markdown.

    python -m benchmarks.bench_writes --patients 10000 --before ../wt-writes-before \\
        --workdir /tmp/bench-writes --json docs/benchmarks/writes-10k.json

(Run it as a module from the repository root; ``--before`` is a checkout of the tree to
compare with, e.g. ``git worktree add --detach ../wt-writes-before 277f5ee``.)

- One fresh local Neo4j with the three sample releases (not timed) and ``synth_ehr.py``'s
  first N patients as OMOP CSVs (not timed).
- **Ingest**, each a ``kgverify ingest omop`` child process on a graph without patients
  (the earlier run's patients, encounters, facts and runs deleted between, not timed):
  the earlier tree; this tree with ``ingest_parallel`` 1 (one batch written beside the
  reader) and 2 (the default); and this tree's ``--relations`` (ingest and template
  extraction from one read, as ``kgverify run`` does). Every ingest must leave the same
  graph: its nodes per label and relationships per type are compared.
- **Verify with write-back**, each a ``kgverify verify`` child on the same linked relations
  (this tree's template relations, linked once, not timed) with every assertion deleted
  before it (a first write, as in a run): the earlier tree, then this tree (the write-back
  of a batch beside the next batch's reading and judging). The verdict files are compared
  with their ``verified_at``-free content and the graph's assertions, edges by type, must
  be the same.
- ``--rounds R`` (2): every ingest and every verify R times, in turn; the first round also
  warms the server (query plans, page cache), so compare the later rounds.
- ``--stages verify``: the verifications only (one untimed ingest with ``--relations``
  gives them their patients and relations); the assertions' ids and distractor lists are
  compared as well (enrichment kept per triple, issue 39).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from benchmarks.bench_scale import AFTER, before_and_after, fresh_graph, timed_cli
from benchmarks.common import clear_assertions, cli_env, server_options
from kgverify.api import link_relations_file
from kgverify.graph import Graph


def shape(graph: Graph) -> dict[str, Any]:
    """Nodes per label and relationships per type (runs aside): what every ingest or
    write-back must leave the same."""
    nodes = graph.run_adhoc(
        "MATCH (n) WHERE NOT n:Run UNWIND labels(n) AS label RETURN label, count(*) AS n",
        {},
        write=False,
    )
    edges = graph.run_adhoc(
        "MATCH ()-[r]->(b) WHERE NOT b:Run RETURN type(r) AS type, count(*) AS n", {}, write=False
    )
    return {
        "nodes": {r["label"]: int(r["n"]) for r in sorted(nodes.rows, key=lambda r: r["label"])},
        "edges": {r["type"]: int(r["n"]) for r in sorted(edges.rows, key=lambda r: r["type"])},
    }


def clear_patients(graph: Graph) -> None:
    """Patients, encounters, facts and runs deleted, 10,000 per transaction (not timed)."""
    while True:
        done = graph.run_adhoc(
            "MATCH (n) WHERE n:Patient OR n:Encounter OR n:Fact OR n:Run "
            "WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS n",
            {},
            write=True,
        )
        if not done.rows or not done.rows[0]["n"]:
            return


def verdict_digest(path: Path) -> str:
    """The verdicts' content without the time each was written."""
    digest = hashlib.sha256()
    with path.open() as lines:
        for line in lines:
            verdict = json.loads(line)
            verdict.pop("verified_at", None)
            digest.update(json.dumps(verdict, sort_keys=True).encode())
    return digest.hexdigest()


def assertion_distractors(graph: Graph) -> str:
    """Every assertion's id and distractor list, as one digest."""
    digest = hashlib.sha256()
    done = graph.run_adhoc(
        "MATCH (a:Assertion) RETURN a.id AS id, a.distractors AS d ORDER BY id", {}, write=False
    )
    for row in done.rows:
        digest.update(json.dumps([row["id"], row["d"]]).encode())
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patients", type=int, default=1000)
    parser.add_argument("--before", type=Path, required=True, help="the earlier tree")
    parser.add_argument(
        "--rounds", type=int, default=2, help="each way this many times, in turn (round 1 warms)"
    )
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--stages", default="ingest,verify", help="comma list of ingest, verify (default both)"
    )
    server_options(parser, 7798)
    args = parser.parse_args()
    before, root, meta, ehr, log = before_and_after(args)
    stages: list[dict[str, Any]] = []
    shapes: dict[str, Any] = {}
    server, settings, graph = fresh_graph(root / "graph", args)
    try:
        env = cli_env(settings)
        relations = root / "relations.jsonl"
        ingests = [
            ("ingest", before, ["ingest", "omop", str(ehr)], "2"),  # the setting is new
            ("ingest, 1 writer", AFTER, ["ingest", "omop", str(ehr)], "1"),
            ("ingest, 2 writers", AFTER, ["ingest", "omop", str(ehr)], "2"),
            (
                "ingest and extract, one read",
                AFTER,
                ["ingest", "omop", str(ehr), "--relations", str(relations)],
                "2",
            ),
        ]
        stages_run = set(args.stages.split(","))
        if "ingest" not in stages_run:
            ingests = ingests[-1:]  # untimed below: the patients and relations verify needs
        for round_ in range(1, (args.rounds if "ingest" in stages_run else 1) + 1):
            for name, tree, argv, parallel in ingests:
                clear_patients(graph)
                run_env = env | {"KGVERIFY_INGEST_PARALLEL": parallel}
                result = timed_cli(name, tree, argv, run_env, log) | {"round": round_}
                if "ingest" in stages_run:
                    stages.append(result)
                    shapes[f"{name} ({tree.name})"] = shape(graph)
        linked = root / "linked.jsonl"
        link_relations_file(relations, linked, settings=settings, graph=graph)
        digests = {}
        distractor_digests = {}
        for round_ in range(1, args.rounds + 1):
            for tree in (before, AFTER):
                clear_assertions(graph)
                out = root / f"verdicts-{tree.name}.jsonl"
                argv = ["verify", str(linked), "-o", str(out)]
                stages.append(timed_cli("verify", tree, argv, env, log) | {"round": round_})
                shapes[f"verify ({tree.name})"] = shape(graph)
                digests[f"{tree.name} {round_}"] = verdict_digest(out)
                distractor_digests[f"{tree.name} {round_}"] = assertion_distractors(graph)
    finally:
        graph.close()
        server.stop()
    ingest_shapes = [v for k, v in shapes.items() if k.startswith("ingest")]
    verify_shapes = [v for k, v in shapes.items() if k.startswith("verify")]
    checks = {
        "ingest_graphs_identical": all(s == ingest_shapes[0] for s in ingest_shapes),
        "verify_graphs_identical": all(s == verify_shapes[0] for s in verify_shapes),
        "verdicts_identical": len(set(digests.values())) == 1,
        "assertion_distractors_identical": len(set(distractor_digests.values())) == 1,
        "shapes": shapes,
    }
    meta["load_end"] = round(os.getloadavg()[0], 2)
    lines = [
        "| round | stage | tree | seconds | rate | CPU s | peak RSS MB | load at start |",
        "|---:|---|---|---:|---:|---:|---:|---:|",
    ]
    for s in stages:
        report = s.pop("report")
        if s["stage"] == "verify":
            work, unit = report["verified"], "relations"
        else:
            work, unit = report["ingest"]["patients"], "patients"
        s["rate"] = round(work / s["seconds"], 1)
        lines.append(
            f"| {s['round']} | {s['stage']} | {s['tree']} | {s['seconds']} "
            f"| {s['rate']:,} {unit}/s | {s['cpu_s']} | {s['peak_rss_mb']} | {s['load']} |"
        )
    print("\n".join(lines))
    print(json.dumps({k: v for k, v in checks.items() if k != "shapes"}))
    if args.json:
        results = {"meta": meta, "stages": stages, "checks": checks}
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
