"""The per-patient stages as a user runs them (``kgverify <stage> ... --json``, each in its
own process) for a baseline tree and this tree, alternating, on one graph, in one run:
what a change does to the whole path, writes included. Writes JSON and prints Markdown.

    mkdir -p /tmp/c-base && git archive <commit> | tar -x -C /tmp/c-base
    python -m benchmarks.bench_trees --base /tmp/c-base --patients 1000 --rounds 3 \\
        --json docs/benchmarks/trees.json

(Run it as a module from the repository root; see bench_verify.py.)

- Graph: the three shipped sample releases in a fresh local Neo4j and ``--patients``
  patients of ``synth_ehr.py``, ingested and extracted (template) by this tree, untimed.
- Stages, each per round for both trees (base first in even rounds, this tree first in
  odd ones): ``link`` (the extracted relations), ``verify`` (the linked file; every
  assertion deleted first, untimed, so the write-back is a first write), ``derive qa``
  (items written) and ``derive facts``. ``PYTHONPATH`` names the tree, so ``kgverify`` and
  its ``queries/`` come from it. Seconds are the child's wall time; peak RSS its own
  (``VmHWM``, see ``common.own_peak_mb``).
- Outputs compared between the trees, per stage, byte for byte: linked and verdict JSONL,
  the QA folder, the fact sheets; files named in ``--skip`` are left out (say why in the
  docs: e.g. a change that alters the dataset card on purpose).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import (
    clear_assertions,
    cli_env,
    run_cli,
    run_meta,
    server_options,
    server_settings,
    synthetic_graph,
)
from kgverify.graph import Graph
from kgverify.server import LocalServer

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("link", "verify", "derive qa", "derive facts")


def digest(path: Path, skip: frozenset[str]) -> str:
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    files = [f for f in files if f.name not in skip]
    for f in files:
        h.update(str(f.relative_to(path)).encode() if path.is_dir() else b"")
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def argv(stage: str, work: Path, tag: str) -> tuple[list[str], Path]:
    if stage == "link":
        out = work / f"linked-{tag}.jsonl"
        return ["link", str(work / "relations.jsonl"), "-o", str(out)], out
    if stage == "verify":
        out = work / f"verdicts-{tag}.jsonl"
        return ["verify", str(work / "linked-base.jsonl"), "-o", str(out)], out
    if stage == "derive qa":
        out = work / f"qa-{tag}"
        return ["derive", "qa", "-o", str(out)], out
    out = work / f"facts-{tag}"
    return ["derive", "facts", "-o", str(out)], out


def run(tree: Path, args: list[str], env: dict[str, str], log: Path) -> dict[str, Any]:
    out, seconds, peak, code = run_cli(
        [*args, "--json"], env | {"PYTHONPATH": str(tree)}, log, tree
    )
    if code != 0:
        raise SystemExit(f"error: {args[0]} failed in {tree}; see {log}")
    return {"seconds": seconds, "peak_rss_mb": peak, "report": json.loads(out)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the baseline tree")
    parser.add_argument("--patients", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    server_options(parser, 7793)
    parser.add_argument("--skip", default="", help="file names left out of the comparison")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    skip = frozenset(filter(None, args.skip.split(",")))
    trees = {"base": args.base.resolve(), "new": ROOT}
    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-trees-"))
    settings = server_settings(work, args)
    env = cli_env(settings)
    meta = run_meta(
        patients=args.patients,
        rounds=args.rounds,
        base=str(trees["base"]),
        stages=STAGES,
        skipped=sorted(skip),
    )
    server = LocalServer(settings)
    server.start()
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {s: {t: [] for t in trees} for s in STAGES}
    same: dict[str, bool] = {s: True for s in STAGES}
    work_done: dict[str, int] = {}
    log = work / "stages.log"
    try:
        with Graph.connect(settings) as graph:
            prepared = synthetic_graph(graph, settings, work, args.patients)
            shutil.move(prepared["relations"], work / "relations.jsonl")
            for round_ in range(args.rounds):
                order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
                for stage in STAGES:
                    outs = {}
                    for tag in order:
                        if stage == "verify":
                            clear_assertions(graph)
                        stage_args, out = argv(stage, work, tag)
                        if out.is_dir():
                            shutil.rmtree(out)
                        result = run(trees[tag], stage_args, env, log)
                        report = result.pop("report")
                        work_done[stage] = {
                            "link": lambda r: r["linked_relations"],
                            "verify": lambda r: r["verified"],
                            "derive qa": lambda r: sum(r["candidates"].values()),
                            "derive facts": lambda r: r["sheets"],
                        }[stage](report)
                        runs[stage][tag].append(result)
                        outs[tag] = digest(out, skip)
                        print(json.dumps({"round": round_, "stage": stage, "tree": tag, **result}))
                    same[stage] = same[stage] and outs["base"] == outs["new"]
    finally:
        server.stop()
    units = {"link": "relations", "verify": "relations", "derive qa": "candidates"}
    summary: dict[str, Any] = {}
    for stage in STAGES:
        summary[stage] = {"work": work_done[stage], "unit": units.get(stage, "sheets")}
        summary[stage]["identical"] = same[stage]
        for tag in trees:
            times = [r["seconds"] for r in runs[stage][tag]]
            median = statistics.median(times)
            summary[stage][tag] = {
                "median_s": round(median, 2),
                "per_s": round(work_done[stage] / median, 1),
                "rounds_s": [round(t, 2) for t in times],
                "peak_rss_mb": max(r["peak_rss_mb"] or 0 for r in runs[stage][tag]),
            }
    meta["load_end"] = round(os.getloadavg()[0], 2)
    print(
        "| stage | work | base s | new s | base /s | new /s | new/base | peak MB base / new "
        "| identical |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    for stage, row in summary.items():
        b, n = row["base"], row["new"]
        print(
            f"| {stage} | {row['work']:,} {row['unit']} | {b['median_s']} | {n['median_s']} "
            f"| {b['per_s']:,} | {n['per_s']:,} | {n['per_s'] / b['per_s']:.2f} "
            f"| {b['peak_rss_mb']} / {n['peak_rss_mb']} | {row['identical']} |"
        )
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "summary": summary}, indent=2) + "\n")
    if args.keep:
        print(f"kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
