"""Verification with write-back and QA derivation with the rules' evidence kept between
batches (``verify_cache``, the default) against every batch reading its triples again
(``verify_cache=0``, the way before it), in the same run on the same graph. Writes JSON
and prints Markdown.

    python -m benchmarks.bench_verify_cache --patients 1000 --rounds 3 \\
        --json docs/benchmarks/verify-cache.json

(Run it as a module from the repository root; see bench_verify.py.)

- Graph: the three shipped sample releases in a fresh local Neo4j, and ``--patients``
  patients of ``synth_ehr.py`` ingested; their template relations extracted and linked
  once (``link_relations_file``).
- An untimed warm-up verification and derivation first (plans compiled, page cache warm).
- ``verify``: per round the two ways alternate, each after every assertion is deleted
  (untimed), so each write-back is a first write: ``verify_relations_file`` over the
  linked file, as ``kgverify verify`` runs it. Verdict files compared byte for byte.
- ``derive qa``: then, on the assertions of the last verification, ``derive_qa`` both ways
  per round (items written, as ``kgverify derive qa`` does); the QA folders compared.
- The synthetic copies repeat the sample's 39 patients, so their triples repeat more than
  a real EHR's do: the counts of triples read and answered from the kept evidence are in
  the output, and the gain on another source follows its share of repeated triples.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import (
    clear_assertions,
    run_meta,
    server_options,
    server_settings,
    synthetic_graph,
)
from kgverify.api import derive_qa, link_relations_file, verify_relations_file
from kgverify.graph import Graph
from kgverify.server import LocalServer

WAYS = {"evidence kept (verify_cache 20,000)": 20_000, "read every batch (verify_cache 0)": 0}


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return h.hexdigest()[:16]


def summary(runs: dict[str, list[float]], work: int) -> dict[str, Any]:
    return {
        name: {
            "median_s": round(statistics.median(times), 2),
            "per_s": round(work / statistics.median(times), 1),
            "rounds_s": [round(t, 2) for t in times],
        }
        for name, times in runs.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patients", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    server_options(parser, 7794)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-cache-"))
    base = server_settings(work, args)
    settings = {name: base.model_copy(update={"verify_cache": n}) for name, n in WAYS.items()}
    meta = run_meta(patients=args.patients, rounds=args.rounds)
    server = LocalServer(base)
    server.start()
    verify_runs: dict[str, list[float]] = {name: [] for name in WAYS}
    derive_runs: dict[str, list[float]] = {name: [] for name in WAYS}
    counts: dict[str, dict[str, int]] = {}
    same_verdicts = same_items = True
    try:
        with Graph.connect(base) as graph:
            prepared = synthetic_graph(graph, base, work, args.patients)
            linked = work / "linked.jsonl"
            link_relations_file(prepared["relations"], linked, settings=base, graph=graph)
            # untimed warm-up: plans compiled, the page cache holding the graph
            verify_relations_file(linked, work / "warm.jsonl", settings=base, graph=graph)
            derive_qa(work / "qa-warm", settings=base, graph=graph)
            for round_ in range(args.rounds):
                outs = []
                for n, (name, chosen) in enumerate(settings.items()):
                    clear_assertions(graph)
                    out = work / f"verdicts-{n}.jsonl"
                    started = time.perf_counter()
                    report = verify_relations_file(linked, out, settings=chosen, graph=graph)
                    verify_runs[name].append(time.perf_counter() - started)
                    meta["relations"] = report.verified
                    counts[name] = {
                        "evidence_read": report.evidence_read,
                        "evidence_cached": report.evidence_cached,
                    }
                    outs.append(out.read_bytes())
                    print(json.dumps({"round": round_, "stage": "verify", "way": name}))
                same_verdicts = same_verdicts and outs[0] == outs[1]
            for round_ in range(args.rounds):
                folders = []
                for n, (name, chosen) in enumerate(settings.items()):
                    folder = work / f"qa-{n}"
                    shutil.rmtree(folder, ignore_errors=True)
                    started = time.perf_counter()
                    derived = derive_qa(folder, settings=chosen, graph=graph)
                    derive_runs[name].append(time.perf_counter() - started)
                    meta["candidates"] = sum(derived.candidates.values())
                    folders.append(digest(folder))
                    print(json.dumps({"round": round_, "stage": "derive qa", "way": name}))
                same_items = same_items and folders[0] == folders[1]
    finally:
        server.stop()
    meta |= {"identical_verdicts": same_verdicts, "identical_items": same_items}
    result = {
        "meta": meta,
        "verify": summary(verify_runs, meta["relations"]),
        "derive_qa": summary(derive_runs, meta["candidates"]),
        "counts": counts,
    }
    print(
        f"{meta['relations']:,} relations, {meta['candidates']:,} item candidates; verdicts "
        f"identical: {same_verdicts}, items identical: {same_items}\n"
    )
    print("| stage | way | median s | per second | rounds s |\n|---|---|---:|---:|---|")
    for stage, unit in (("verify", "relations"), ("derive_qa", "candidates")):
        for name, row in result[stage].items():
            rounds = ", ".join(f"{t:.2f}" for t in row["rounds_s"])
            print(
                f"| {stage.replace('_', ' ')} | {name} | {row['median_s']} "
                f"| {row['per_s']:,} {unit} | {rounds} |"
            )
    print("\n" + json.dumps(counts))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
