"""Extraction (template), linking, verification (with write-back) and derivation (QA items
with their write-back, fact sheets) by each engine in the same run: the local path, and Ray
with 1 and 2 workers (docs/scale.md). Writes JSON and prints Markdown.

    python -m benchmarks.bench_engines --patients 1000 --rounds 2 \\
        --json docs/benchmarks/engines.json

(Run it as a module from the repository root; see bench_verify.py.)

- Graph: the three shipped sample releases in a fresh local Neo4j, and ``--patients``
  patients of ``synth_ehr.py`` (the sample OMOP CDM multiplied with shifted ids and dates)
  ingested through ``ingest_source``; their template relations extracted once.
- Per engine and round (engines alternate within a round): ``extract_relations``
  (template, reading the OMOP files), ``link_relations_file``, ``verify_relations_file``
  with write-back, ``derive_qa`` (with its item write-back) and ``derive_facts``, exactly
  what ``kgverify extract``, ``link``, ``verify``, ``derive qa`` and ``derive facts`` run,
  each timed whole: for Ray that includes starting the actors and each actor
  loading the index (the local Ray itself is started once, before, and timed apart).
- The outputs of every engine (relations, linked and verdict files, the QA folder, the
  sheets) are
  compared byte for byte with the local path's.
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
    own_peak_mb,
    run_meta,
    server_options,
    server_settings,
    synthetic_graph,
)
from kgverify.api import (
    derive_facts,
    derive_qa,
    extract_relations,
    link_relations_file,
    verify_relations_file,
)
from kgverify.config import Settings
from kgverify.engines.on_ray import start_ray
from kgverify.graph import Graph
from kgverify.server import LocalServer

VARIANTS: list[tuple[str, str, int]] = [
    ("local", "local", 0),
    ("ray-1", "ray", 1),
    ("ray-2", "ray", 2),
]


def run_variant(
    graph: Graph, settings: Settings, ehr: Path, out: Path, engine: str, workers: int
) -> dict[str, Any]:
    s = settings.model_copy(update={"ray_workers": max(1, workers)})
    started = time.perf_counter()
    relations = out / "relations.jsonl"
    extracted = extract_relations("omop", ehr, relations, settings=s, engine=engine)
    extract_s = time.perf_counter() - started
    started = time.perf_counter()
    linked = link_relations_file(
        relations, out / "linked.jsonl", settings=s, graph=graph, engine=engine
    )
    link_s = time.perf_counter() - started
    started = time.perf_counter()
    verified = verify_relations_file(
        out / "linked.jsonl", out / "verdicts.jsonl", settings=s, graph=graph, engine=engine
    )
    verify_s = time.perf_counter() - started
    started = time.perf_counter()
    qa = derive_qa(out / "qa", settings=s, graph=graph, engine=engine)
    qa_s = time.perf_counter() - started
    started = time.perf_counter()
    facts = derive_facts(out / "facts", settings=s, graph=graph, engine=engine)
    facts_s = time.perf_counter() - started
    return {
        "relations": verified.verified,
        "written": verified.written,
        "patients": qa.patients,
        "candidates": sum(qa.candidates.values()),
        "extract_s": round(extract_s, 2),
        "link_s": round(link_s, 2),
        "verify_s": round(verify_s, 2),
        "qa_s": round(qa_s, 2),
        "facts_s": round(facts_s, 2),
        "extract_relations_per_s": round(extracted.relations / extract_s, 1),
        "link_relations_per_s": round(linked.linked_relations / link_s, 1),
        "verify_relations_per_s": round(verified.verified / verify_s, 1),
        "chain_relations_per_s": round(verified.verified / (link_s + verify_s), 1),
        "qa_patients_per_s": round(qa.patients / qa_s, 1),
        "qa_candidates_per_s": round(sum(qa.candidates.values()) / qa_s, 1),
        "facts_sheets_per_s": round(facts.sheets / facts_s, 1),
    }


def digests(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` by relative path -> its SHA-256."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def summarize(
    runs: dict[str, list[dict[str, Any]]], identical: dict[str, bool]
) -> dict[str, dict[str, Any]]:
    """Per engine, the median of each timing over the rounds, and whether its outputs were
    the local path's in every round."""
    return {
        name: {
            key: round(statistics.median(r[key] for r in rows), 1)
            for key in rows[0]
            if key not in ("relations", "written", "patients", "candidates")
        }
        | {"identical": identical[name]}
        for name, rows in runs.items()
    }


def markdown(meta: dict[str, Any], summary: dict[str, dict[str, Any]]) -> str:
    lines = [
        f"{meta['relations']:,} template relations of {meta['patients']:,} synthetic patients "
        f"({meta['candidates']:,} item candidates); median of {meta['rounds']} rounds; load "
        f"average {meta['load']} at the start.",
        "",
        "| engine | extract s | link s | verify s (write-back) | derive qa s | derive facts s "
        "| extract relations/s | link relations/s | verify relations/s | qa patients/s "
        "| facts sheets/s | outputs = local |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, row in summary.items():
        lines.append(
            f"| {name} | {row['extract_s']} | {row['link_s']} | {row['verify_s']} "
            f"| {row['qa_s']} | {row['facts_s']} | {row['extract_relations_per_s']:,} "
            f"| {row['link_relations_per_s']:,} "
            f"| {row['verify_relations_per_s']:,} | {row['qa_patients_per_s']:,} "
            f"| {row['facts_sheets_per_s']:,} | {row['identical']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patients", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    server_options(parser, 7797)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-engines-"))
    settings = server_settings(work, args)
    meta = run_meta(patients=args.patients, rounds=args.rounds)
    server = LocalServer(settings)
    server.start()
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _, _ in VARIANTS}
    identical: dict[str, bool] = {name: True for name, _, _ in VARIANTS}
    try:
        with Graph.connect(settings) as graph:
            prepared = synthetic_graph(graph, settings, work, args.patients)
            meta["ingest_s"] = prepared["ingest_s"]
            ehr = prepared["ehr"]
            started = time.perf_counter()
            start_ray(settings)
            meta["ray_start_s"] = round(time.perf_counter() - started, 1)
            for round_ in range(args.rounds):
                for name, engine, workers in VARIANTS:
                    out = work / name
                    out.mkdir(exist_ok=True)
                    result = run_variant(graph, settings, ehr, out, engine, workers)
                    runs[name].append(result)
                    print(json.dumps({"round": round_, "engine": name, **result}), flush=True)
                for name, _, _ in VARIANTS:
                    same = digests(work / name) == digests(work / "local")
                    identical[name] = identical[name] and same
            meta["relations"] = runs["local"][0]["relations"]
            meta["candidates"] = runs["local"][0]["candidates"]
    finally:
        server.stop()
    summary = summarize(runs, identical)
    meta["peak_rss_mb"] = own_peak_mb()
    print(markdown(meta, summary))
    if args.json:
        args.json.write_text(
            json.dumps({"meta": meta, "runs": runs, "summary": summary}, indent=2) + "\n"
        )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
