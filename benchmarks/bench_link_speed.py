"""Linking speed, repeated: one labelled set's mentions linked by ``Linker`` in fresh
processes, run after run, so a figure is a median and not one draw of a noisy machine.

    python -m benchmarks.bench_link_speed --set mondo-hpo --runs 8 \
        --before-tree ../before --json docs/benchmarks/link-speed.json

``bench_link.py`` times each configuration once, in one child; on this shared machine two
single runs of one tree differ by up to a fifth, more than most changes to the linker. Here
each run is a fresh interpreter that opens the index and links every mention of the set in
batches (the defaults of ``Settings``, alternatives off as in ``bench_link --no-alternatives``;
``--rerank both`` also times the re-ranker switched off), timing the linking calls only (wall,
the process's CPU and the main thread's CPU, which the search threads do not share), as
``bench_link`` does: a cold run, caches empty, as
a user's first batch finds them. With ``--before-tree`` the runs alternate between that
tree's ``kgverify`` and this one's (A B A B ...), so a drift of the machine's speed hits
both alike; the report gives each side's median and the median of the paired ratios, and
checks that both trees decided every mention alike (a digest of each run's links).

The indexes and mention files are ``bench_link``'s (``$KGVERIFY_CACHE_DIR/bench-link/``):
run ``bench_link --sets SET`` once first.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KB_OF = {"doid-mondo": "mondo", "mondo-hpo": "hpo", "mesh-chebi": "chebi"}


def _child(tree: str, set_name: str, rerank: str, alternatives: str, batch: int) -> None:
    """One cold run in this interpreter, with ``tree``'s kgverify; prints a JSON line."""
    sys.path.insert(0, tree)
    from benchmarks.bench_link import _cache_dir
    from kgverify.config import Settings
    from kgverify.link.index import IndexSettings, LinkerIndex
    from kgverify.link.linker import Linker, LinkParams, MentionQuery

    work = _cache_dir() / "bench-link"
    mentions = json.loads((work / f"mentions-{set_name}.json").read_text())
    texts = [m["text"] for m in mentions]
    settings = Settings()
    ours = IndexSettings.from_settings(settings)
    index = LinkerIndex(
        work / f"{KB_OF[set_name]}-kgverify", ours.ef_search, ours.threads, search=ours.search
    )
    params = LinkParams.from_settings(settings).model_copy(
        update={"rerank": rerank == "on", "alternatives": alternatives == "on"}
    )
    linker = Linker(index, params)
    decided = hashlib.sha256()
    started, cpu, own = time.perf_counter(), time.process_time(), time.thread_time()
    for start in range(0, len(texts), batch):
        for link in linker.link([MentionQuery(t) for t in texts[start : start + batch]]):
            ids = [(c.concept_id, c.score) for c in link.candidates]
            decided.update(repr((link.status.value, link.concept_id, ids)).encode())
    link_s, cpu_s = time.perf_counter() - started, time.process_time() - cpu
    own_s = time.thread_time() - own
    print(
        json.dumps(
            {
                "mentions": len(texts),
                "link_s": round(link_s, 3),
                "cpu_s": round(cpu_s, 3),
                "main_thread_cpu_s": round(own_s, 3),
                "mentions_per_s": round(len(texts) / link_s),
                "digest": decided.hexdigest()[:16],
                "kgverify": str(Path(sys.modules["kgverify"].__file__ or "").parent),
            }
        )
    )


def _run(tree: Path, set_name: str, rerank: str, alternatives: str, batch: int) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.bench_link_speed", "_child"]
    proc = subprocess.run(
        [*command, str(tree), set_name, rerank, alternatives, str(batch)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"error: a run in {tree} failed: {tail}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    rates = [r["mentions_per_s"] for r in runs]
    return {
        "runs": len(runs),
        "mentions_per_s": {
            "median": round(statistics.median(rates)),
            "min": min(rates),
            "max": max(rates),
        },
        "link_s_median": round(statistics.median(r["link_s"] for r in runs), 3),
        "cpu_s_median": round(statistics.median(r["cpu_s"] for r in runs), 3),
        "main_thread_cpu_s_median": round(
            statistics.median(r["main_thread_cpu_s"] for r in runs), 3
        ),
        "digests": sorted({r["digest"] for r in runs}),
    }


def main(argv: list[str] | None = None) -> None:
    args_in = sys.argv[1:] if argv is None else argv
    if args_in[:1] == ["_child"]:
        _child(args_in[1], args_in[2], args_in[3], args_in[4], int(args_in[5]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="mondo-hpo", choices=sorted(KB_OF))
    parser.add_argument("--runs", type=int, default=8, help="cold runs per tree and setting")
    parser.add_argument("--rerank", choices=("on", "both"), default="on")
    parser.add_argument(
        "--alternatives",
        choices=("on", "off"),
        default="off",
        help="list a resolved mention's nearest other names (off: as bench_link --no-alternatives)",
    )
    parser.add_argument("--batch", type=int, default=2_000, help="as bench_link's default")
    parser.add_argument("--before-tree", type=Path, help="a checkout to alternate with")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(args_in)
    from benchmarks.common import run_meta

    trees = {"this": ROOT}
    if args.before_tree is not None:
        trees = {"before": args.before_tree.resolve(), "this": ROOT}
    settings = ["on", "off"] if args.rerank == "both" else ["on"]
    report: dict[str, Any] = {
        "meta": run_meta(
            set=args.set, runs=args.runs, batch=args.batch, alternatives=args.alternatives
        ),
        "trees": {name: str(path) for name, path in trees.items()},
        "results": {},
    }
    for rerank in settings:
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        for n in range(args.runs):
            for name, tree in trees.items():
                result = _run(tree, args.set, rerank, args.alternatives, args.batch)
                runs[name].append(result)
                print(
                    f"re-ranker {rerank}, run {n + 1}, {name}: "
                    f"{result['mentions_per_s']:,} mentions/s ({result['link_s']} s)",
                    flush=True,
                )
        entry: dict[str, Any] = {name: _summary(r) | {"all": r} for name, r in runs.items()}
        if "before" in runs:
            ratios = [
                b["link_s"] / t["link_s"] for b, t in zip(runs["before"], runs["this"], strict=True)
            ]
            entry["speedup_median"] = round(statistics.median(ratios), 3)
            entry["speedup_range"] = [round(min(ratios), 3), round(max(ratios), 3)]
            entry["same_links"] = {r["digest"] for r in runs["before"]} == {
                r["digest"] for r in runs["this"]
            }
        report["results"][f"rerank_{rerank}"] = entry
    for key, entry in report["results"].items():
        line = ", ".join(
            f"{name} median {entry[name]['mentions_per_s']['median']:,}/s" for name in trees
        )
        if "speedup_median" in entry:
            line += (
                f"; speed-up {entry['speedup_median']} (paired, range "
                f"{entry['speedup_range'][0]} to {entry['speedup_range'][1]}); "
                f"same links: {entry['same_links']}"
            )
        print(f"{key}: {line}")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
