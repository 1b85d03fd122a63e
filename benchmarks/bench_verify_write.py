"""Verification with write-back: each batch written while the next is judged (what
``kgverify verify`` runs since issue 18's change) against one batch at a time, the same
verifier, in the same run. Writes JSON and prints Markdown.

    python -m benchmarks.bench_verify_write --patients 1000 --rounds 3 \\
        --json docs/benchmarks/verify-write.json

(Run it as a module from the repository root; see bench_verify.py.)

- Graph: the three shipped sample releases in a fresh local Neo4j, and ``--patients``
  patients of ``synth_ehr.py`` ingested; their template relations extracted and linked
  once (``link_relations_file``).
- Per round, the two ways alternate, each after every assertion is deleted (untimed), so
  each write is a first write: ``verify_relations_file`` (``Verifier.iter_verify``: one
  write in flight beside the next batch's reads) and the naive way, a loop of
  ``Verifier.verify`` per batch (judge, then write, then the next batch). Both read the
  linked file and write the verdict JSONL; the verdict files are compared byte for byte.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import run_meta, server_options, server_settings, synthetic_graph
from kgverify.api import link_relations_file, verify_relations_file
from kgverify.config import Settings
from kgverify.graph import Graph
from kgverify.graph.driver import batched
from kgverify.link.model import read_linked
from kgverify.server import LocalServer
from kgverify.verify.model import write_verdicts
from kgverify.verify.verifier import Verifier

BATCH = 2_000


def clear(graph: Graph) -> None:
    """Every assertion deleted, 5,000 per transaction (untimed)."""
    while True:
        done = graph.run_adhoc(
            "MATCH (a:Assertion) WITH a LIMIT 5000 DETACH DELETE a RETURN count(*) AS n",
            {},
            write=True,
        )
        if not done.rows or not done.rows[0]["n"]:
            return


def streamed(graph: Graph, settings: Settings, linked: Path, out: Path) -> int:
    report = verify_relations_file(linked, out, settings=settings, graph=graph)
    return report.verified


def one_at_a_time(graph: Graph, settings: Settings, linked: Path, out: Path) -> int:
    def verdicts() -> Any:
        with Verifier(graph, settings, write=True) as verifier:
            for batch in batched(read_linked(linked), BATCH):
                yield from verifier.verify(batch)

    return write_verdicts(verdicts(), out)


WAYS = {"write beside the next batch's reads": streamed, "one batch at a time": one_at_a_time}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patients", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    server_options(parser, 7798)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-write-"))
    settings = server_settings(work, args).model_copy(update={"batch_size": BATCH})
    meta = run_meta(patients=args.patients, rounds=args.rounds, batch=BATCH)
    server = LocalServer(settings)
    server.start()
    runs: dict[str, list[float]] = {name: [] for name in WAYS}
    same = True
    try:
        with Graph.connect(settings) as graph:
            prepared = synthetic_graph(graph, settings, work, args.patients)
            linked = work / "linked.jsonl"
            link_relations_file(prepared["relations"], linked, settings=settings, graph=graph)
            for round_ in range(args.rounds):
                for n, (name, way) in enumerate(WAYS.items()):
                    clear(graph)
                    started = time.perf_counter()
                    relations = way(graph, settings, linked, work / f"verdicts-{n}.jsonl")
                    seconds = time.perf_counter() - started
                    runs[name].append(seconds)
                    meta["relations"] = relations
                    print(json.dumps({"round": round_, "way": name, "seconds": seconds}))
                first, second = (work / f"verdicts-{n}.jsonl" for n in (0, 1))
                same = same and first.read_bytes() == second.read_bytes()
    finally:
        server.stop()
    meta["identical_verdicts"] = same
    summary = {
        name: {
            "median_s": round(statistics.median(times), 2),
            "relations_per_s": round(meta["relations"] / statistics.median(times), 1),
            "rounds_s": [round(t, 2) for t in times],
        }
        for name, times in runs.items()
    }
    print(f"{meta['relations']:,} relations, verdicts identical: {same}\n")
    print("| way | median s | relations/s | rounds s |\n|---|---:|---:|---|")
    for name, row in summary.items():
        rounds = ", ".join(f"{t:.2f}" for t in row["rounds_s"])
        print(f"| {name} | {row['median_s']} | {row['relations_per_s']:,} | {rounds} |")
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "summary": summary}, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
