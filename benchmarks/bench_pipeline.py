"""The whole chain at growing sizes, each stage as a user runs it (the CLI, in its own
process): per-stage wall time, rate and peak memory, and the time the chain would take to
derive 1,000,000 items at the measured rates. Writes JSON and prints Markdown.

    python -m benchmarks.bench_pipeline --patients 1000,10000 \\
        --json docs/benchmarks/pipeline.json

(Run it as a module from the repository root; see bench_verify.py.)

- Per size: a fresh local Neo4j (its own folder), the three shipped sample releases loaded
  (not timed), and ``synth_ehr.py``'s first N patients (the sample OMOP CDM multiplied with
  shifted ids and dates) written as OMOP CSVs (not timed).
- Stages, in order, each one ``kgverify <stage> ... --json`` child process: ``ingest omop``,
  ``extract`` (template), ``link``, ``verify`` (write-back), ``derive qa``, ``derive facts``.
  Peak memory is the child's own peak resident set (``VmHWM``, written by the child as it
  exits: ``ru_maxrss`` from ``wait4`` carried this process's size into every child, see
  ``common.own_peak_mb``); Neo4j's memory is fixed by ``--heap`` and ``--pagecache`` and
  not counted.
- Extrapolation: the items per patient of the smallest size give the patients 1M items
  need (run a size of 39 or less for it: the synthetic copies repeat copy 0's patients, so
  their questions repeat too and derivation keeps one item per content; only copy 0's
  patients are distinct), and each stage's seconds per patient at each size, times those
  patients, give its time. Linear by construction: whether a stage's cost per patient stays
  flat as the graph grows is what the sizes side by side show (and, for verification,
  bench_verify_patients.py). ``derive qa`` also reports its item candidates (before that
  deduplication), the work it does per patient whatever the content.
- ``--controlled N``: the same relations verified on the graph before ingest (the
  vocabularies only) and after the chain (every patient, fact, assertion and item): the
  template relations of the first N patients, extracted and linked before ingest, through
  ``Verifier`` (rules and enrichment, no write-back), median of 3 after a warm-up. This is
  the issue 18 comparison of verification's cost on an empty graph and a full one.
- ``--one-read``: ingest and extraction as one stage from one read of the source
  (``kgverify ingest ... --relations``, as ``kgverify run`` and ``pipeline()`` do), in place
  of ``ingest omop`` then ``extract``. ``--facts-gzip``: ``derive facts --gzip``.
- ``--sample-memory S``: every S seconds the running stage's resident set and peak
  (``VmRSS``, ``VmHWM``) go to ``memory.jsonl`` in the size's folder, so a plateau or a
  growth shows over the run, not only at the end.
- ``--workdir DIR`` keeps everything in DIR (the store, the EHR, every output) and makes a
  rerun with the same DIR resume: steps recorded in ``DIR/progress.json`` are not run again
  (a stage stopped half-way is rerun from its start, on the graph as it left it). One size
  per workdir.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import cli_env, run_cli, run_meta, server_options, server_settings
from benchmarks.synth_ehr import write_omop
from kgverify.api import (
    SAMPLE_RELEASES,
    extract_relations,
    link_relations_file,
    load_vocabulary,
    sample_path,
)
from kgverify.config import Settings
from kgverify.graph import Graph
from kgverify.link.model import read_linked
from kgverify.server import LocalServer
from kgverify.verify.verifier import Verifier

ITEMS_GOAL = 1_000_000
REPEATS = 3


def stage(name: str, args: list[str], env: dict[str, str], log: Path) -> dict[str, Any]:
    """One CLI stage in its own process: its JSON report, wall seconds, peak RSS."""
    out, seconds, peak, code = run_cli([*args, "--json"], env, log)
    if code != 0:
        raise SystemExit(f"{name} failed (exit {code}); see {log}")
    return {
        "stage": name,
        "seconds": round(seconds, 1),
        "peak_rss_mb": peak,
        "report": json.loads(out),
    }


def work_of(name: str, report: dict[str, Any]) -> tuple[int, str]:
    """What a stage did, counted, and its unit."""
    if name in ("ingest", "ingest and extract"):
        return report["ingest"]["patients"], "patients"
    if name == "extract":
        return report["relations"], "relations"
    if name == "link":
        return report["linked_relations"], "relations"
    if name == "verify":
        return report["verified"], "relations"
    if name == "derive qa":  # task -> split -> items
        return sum(n for splits in report["items"].values() for n in splits.values()), "items"
    return report["sheets"], "sheets"


class MemorySampler:
    """The resident set of this process's children (the stage running), every ``every``
    seconds, appended to ``path`` as JSON lines with the stage's name."""

    def __init__(self, path: Path, every: float) -> None:
        import threading

        self.path, self.every, self.stage = path, every, ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> MemorySampler:
        if self.every > 0:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    def _run(self) -> None:
        me = str(os.getpid())
        while not self._stop.wait(self.every):
            for proc in Path("/proc").glob("[0-9]*"):
                try:
                    if (proc / "stat").read_text().rsplit(")", 1)[1].split()[1] != me:
                        continue
                    status = dict(
                        line.split(":", 1) for line in (proc / "status").read_text().splitlines()
                    )
                except (OSError, IndexError, ValueError):
                    continue  # gone between the listing and the read
                mb = {k: round(int(status[k].split()[0]) / 1024, 1) for k in ("VmRSS", "VmHWM")}
                sample = {"at": round(time.time()), "stage": self.stage, "pid": proc.name, **mb}
                with self.path.open("a") as out:
                    out.write(json.dumps(sample) + "\n")


class Progress:
    """The steps a workdir has finished, kept in ``progress.json`` as each one ends."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}

    def record(self, step: str, value: Any) -> None:
        self.done[step] = value
        self.path.write_text(json.dumps(self.done, indent=2) + "\n")


def controlled_relations(work: Path, settings: Settings, graph: Graph, patients: int) -> Path:
    """The template relations of the first ``patients`` patients, linked (needs only the
    vocabularies, so it runs before ingest)."""
    ehr = work / "controlled-omop"
    write_omop(ehr, 0, patients)
    relations, linked = work / "controlled-relations.jsonl", work / "controlled-linked.jsonl"
    extract_relations("omop", ehr, relations, settings=settings)
    link_relations_file(relations, linked, settings=settings, graph=graph)
    shutil.rmtree(ehr)
    return linked


def verify_rate(settings: Settings, graph: Graph, linked: Path) -> dict[str, Any]:
    """Relations/s of ``Verifier`` (rules and enrichment, no write-back) over ``linked``,
    median of REPEATS after a warm-up, and a digest of what it decided."""
    relations = list(read_linked(linked))
    runs = []
    with Verifier(graph, settings, write=False, enrich=True) as verifier:
        verdicts = list(verifier.iter_verify(relations))
        for _ in range(REPEATS):
            started = time.perf_counter()
            for verdict in verifier.iter_verify(relations):
                del verdict
            runs.append(time.perf_counter() - started)
    seconds = statistics.median(runs)
    return {
        "relations": len(relations),
        "passed": sum(v.passed for v in verdicts),
        "with_distractors": sum(bool(v.enrichment and v.enrichment.distractors) for v in verdicts),
        "relations_per_s": round(len(relations) / seconds, 1),
        "runs_s": [round(r, 3) for r in runs],
        "load": round(os.getloadavg()[0], 2),
        "at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def run_size(
    size: int, args: argparse.Namespace, root: Path, progress: Progress | None = None
) -> dict[str, Any]:
    work = root / f"n{size}"
    work.mkdir(parents=True, exist_ok=True)
    progress = progress or Progress(work / "progress.json")
    settings = server_settings(work, args)
    env = cli_env(settings)
    server = LocalServer(settings)
    server.start()
    sampler = MemorySampler(work / "memory.jsonl", args.sample_memory).__enter__()
    controlled: dict[str, Any] = {}
    ehr = work / "omop"
    try:
        with Graph.connect(settings) as graph:
            if "vocabularies" not in progress.done:
                for name, parts in SAMPLE_RELEASES.items():
                    load_vocabulary(name, sample_path(*parts), settings=settings, graph=graph)
                progress.record("vocabularies", True)
            if args.controlled and "controlled_empty" not in progress.done:
                linked = controlled_relations(work, settings, graph, args.controlled)
                progress.record("controlled_empty", verify_rate(settings, graph, linked))
        if "generated" not in progress.done:
            write_omop(ehr, 0, size)
            progress.record("generated", True)
        log = work / "stages.log"
        relations = str(work / "relations.jsonl")
        reading = [
            ("ingest", ["ingest", "omop", str(ehr)]),
            ("extract", ["extract", "omop", str(ehr), "-o", relations]),
        ]
        if args.one_read:
            reading = [
                ("ingest and extract", ["ingest", "omop", str(ehr), "--relations", relations])
            ]
        facts = ["derive", "facts", "-o", str(work / "facts")]
        steps = [
            *reading,
            ("link", ["link", str(work / "relations.jsonl"), "-o", str(work / "linked.jsonl")]),
            ("verify", ["verify", str(work / "linked.jsonl"), "-o", str(work / "verdicts.jsonl")]),
            ("derive qa", ["derive", "qa", "-o", str(work / "qa")]),
            ("derive facts", [*facts, "--gzip"] if args.facts_gzip else facts),
        ]
        stages = []
        for name, argv in steps:
            if name in progress.done:
                stages.append(progress.done[name])
                continue
            started_at = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
            sampler.stage = name
            result: dict[str, Any] = {"started": started_at, "load": round(os.getloadavg()[0], 2)}
            result |= stage(name, argv, env, log)
            report = result.pop("report")
            count, unit = work_of(name, report)
            result |= {"work": count, "unit": unit, "rate": round(count / result["seconds"], 1)}
            if name == "ingest and extract":
                result["relations"] = report["extract"]["relations"]
            if name == "derive qa":  # the synthetic copies repeat items: candidates/s is the rate
                result["candidates"] = sum(report["candidates"].values())
                result["candidates_per_s"] = round(result["candidates"] / result["seconds"], 1)
            stages.append(result)
            progress.record(name, result)
            print(json.dumps({"patients": size, **result}), flush=True)
        sheets_mb = sum(p.stat().st_size for p in (work / "facts").rglob("*") if p.is_file())
        if args.controlled:
            if "controlled_full" not in progress.done:
                with Graph.connect(settings) as graph:
                    linked = work / "controlled-linked.jsonl"
                    progress.record("controlled_full", verify_rate(settings, graph, linked))
            controlled = {
                "empty": progress.done["controlled_empty"],
                "full": progress.done["controlled_full"],
            }
    finally:
        sampler.__exit__()
        server.stop()
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    out = {"patients": size, "stages": stages, "facts_mb": round(sheets_mb / 2**20, 1)}
    return out | ({"controlled_verify": controlled} if controlled else {})


def items_per_patient(block: dict[str, Any]) -> float:
    items = next(s["work"] for s in block["stages"] if s["stage"] == "derive qa")
    return float(items) / int(block["patients"])


def extrapolate(block: dict[str, Any], per_patient: float) -> dict[str, Any]:
    """Hours for 1M items at this size's rates (linear: seconds per patient times the
    patients that yield 1M items at ``per_patient`` items each)."""
    size = block["patients"]
    patients = ITEMS_GOAL / per_patient if per_patient else float("inf")
    per_stage = {s["stage"]: s["seconds"] / size * patients / 3600 for s in block["stages"]}
    return {
        "items_per_patient": round(per_patient, 3),
        "patients_for_1m_items": round(patients),
        "hours": {k: round(v, 2) for k, v in per_stage.items()},
        "total_hours": round(sum(per_stage.values()), 2),
    }


def markdown(meta: dict[str, Any], results: list[dict[str, Any]]) -> str:
    lines = [
        "| patients | stage | work | seconds | rate | peak RSS MB |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for block in results:
        for s in block["stages"]:
            work, rate = f"{s['work']:,} {s['unit']}", f"{s['rate']:,}/s"
            if "candidates" in s:
                work = f"{s['candidates']:,} candidates, {work}"
                rate = f"{s['candidates_per_s']:,} candidates/s"
            lines.append(
                f"| {block['patients']:,} | {s['stage']} | {work} "
                f"| {s['seconds']} | {rate} | {s['peak_rss_mb']} |"
            )
    lines += [
        "",
        "| patients | items/patient | patients for 1M items | hours for 1M items (sum of stages) |",
        "|---:|---:|---:|---:|",
    ]
    for block in results:
        x = block["extrapolated"]
        lines.append(
            f"| {block['patients']:,} | {x['items_per_patient']} | {x['patients_for_1m_items']:,} "
            f"| {x['total_hours']} |"
        )
    controlled = [b for b in results if "controlled_verify" in b]
    if controlled:
        lines += [
            "",
            "| patients | graph | relations | passed | relations/s | runs s |",
            "|---:|---|---:|---:|---:|---|",
        ]
    for block in controlled:
        for graph, m in block["controlled_verify"].items():
            lines.append(
                f"| {block['patients']:,} | {graph} | {m['relations']:,} | {m['passed']:,} "
                f"| {m['relations_per_s']:,} | {', '.join(map(str, m['runs_s']))} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patients", default="1000", help="sizes, comma-separated")
    server_options(parser, 7796)
    parser.add_argument(
        "--items-per-patient",
        type=float,
        help="items per distinct patient, for the extrapolation (default: the smallest size's)",
    )
    parser.add_argument(
        "--controlled",
        type=int,
        default=0,
        help="verify the first N patients' relations on the graph before and after the chain",
    )
    parser.add_argument(
        "--one-read", action="store_true", help="ingest and extract from one read of the source"
    )
    parser.add_argument("--facts-gzip", action="store_true", help="derive facts --gzip")
    parser.add_argument(
        "--sample-memory", type=float, default=0, help="seconds between memory samples (0: none)"
    )
    parser.add_argument("--workdir", type=Path, help="keep everything here; rerun to resume")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    sizes = sorted({int(s) for s in args.patients.split(",")})
    if args.workdir and len(sizes) > 1:
        raise SystemExit("error: --workdir takes one size")
    root = args.workdir or Path(tempfile.mkdtemp(prefix="kgverify-bench-pipeline-"))
    meta = run_meta(args={k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()})
    results = [run_size(size, args, root) for size in sizes]
    per_patient = (
        items_per_patient(results[0]) if args.items_per_patient is None else args.items_per_patient
    )
    for block in results:
        block["extrapolated"] = extrapolate(block, per_patient)
    meta["load_end"] = round(os.getloadavg()[0], 2)
    print(markdown(meta, results))
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    if not args.workdir:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
