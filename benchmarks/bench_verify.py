"""Verification benchmark: relations verified per second, batched (one round trip per rule
per batch) versus one query per relation, on the sample vocabularies and on a synthetic
large UMLS release, in one run. Writes JSON and prints a Markdown table.

    python -m benchmarks.bench_verify --json docs/benchmarks/verify.json

(Run it as a module from the repository root: pysbd, a scispaCy dependency, installs a
top-level ``benchmarks`` package that shadows this folder otherwise.)

Relations are already linked (``LinkedRelation``), so the figures are verification only:
the rules' read queries, the verdict logic, and (rows marked "full") enrichment and the
write-back of assertions. Each configuration is run once to warm Neo4j (plans compiled,
JIT, page cache), then timed three times; the median is reported.

- sample: the three shipped sample releases and the 1,596 template relations of the
  sample EHR (their codes linked through the graph);
- large: ``synth_umls.py`` at ``--concepts``/``--relationships``, bulk-imported; relations
  are half true ``MAY_TREAT`` pairs read from the graph, half random concept pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.synth_umls import write as write_synthetic
from kgverify.api import (
    SAMPLE_RELEASES,
    extract_relations,
    link_relations_file,
    load_vocabulary,
    sample_path,
)
from kgverify.config import Settings
from kgverify.extract.relation import CandidateRelation, ExtractorInfo, Mention, Predicate
from kgverify.graph import Graph
from kgverify.graph.schema import ensure_schema
from kgverify.link.model import LinkedRelation, LinkStatus, MentionLink, read_linked
from kgverify.server import LocalServer
from kgverify.verify.verifier import Verifier

REPEATS = 3
"""Timed runs per configuration after the warm-up; the median is reported."""


def _timed(verifier: Verifier, relations: list[LinkedRelation], batch: int) -> float:
    started = time.perf_counter()
    for verdict in verifier.iter_verify(relations, batch_size=batch):
        del verdict
    return time.perf_counter() - started


def measure(
    graph: Graph, settings: Settings, relations: list[LinkedRelation], naive: int
) -> list[dict[str, Any]]:
    rows = []
    configs = (
        ("checks, batched (2,000 per round trip)", False, 2_000, relations),
        ("checks, one query per relation", False, 1, relations[:naive]),
        ("full (enrich + write back), batched", True, 2_000, relations),
        ("full (enrich + write back), one relation per call", True, 1, relations[:naive]),
    )
    for label, full, batch, subset in configs:
        verifier = Verifier(graph, settings, write=full, enrich=full)
        _timed(verifier, subset, batch)  # warm: plans compiled, JIT and page cache hot
        runs = sorted(_timed(verifier, subset, batch) for _ in range(REPEATS))
        seconds = runs[len(runs) // 2]
        rows.append(
            {
                "mode": label,
                "relations": len(subset),
                "seconds": round(seconds, 3),
                "relations_per_s": round(len(subset) / seconds, 1),
                "runs_s": [round(r, 3) for r in runs],
            }
        )
        print(rows[-1], flush=True)
    return rows


def linked(subject: str, obj: str, n: int) -> LinkedRelation:
    def side(cid: str) -> MentionLink:
        return MentionLink(status=LinkStatus.LINKED, concept_id=cid, score=1.0, query=cid)

    relation = CandidateRelation(
        patient_id=f"bench-{n % 97}",
        subject=Mention(text=subject),
        predicate=Predicate.TREATS,
        object=Mention(text=obj),
        extractor=ExtractorInfo(name="bench", version="1"),
        confidence=0.9,
    )
    return LinkedRelation(relation=relation, subject=side(subject), object=side(obj), index="-")


def sample_graph(settings: Settings, work: Path) -> tuple[list[LinkedRelation], dict[str, int]]:
    with Graph.connect(settings) as graph:
        for name, parts in SAMPLE_RELEASES.items():
            load_vocabulary(name, sample_path(*parts), settings=settings, graph=graph)
        relations = work / "relations.jsonl"
        extract_relations(
            "omop", sample_path("omop", "eunomia_sample"), relations, settings=settings
        )
        link_relations_file(relations, work / "linked.jsonl", settings=settings, graph=graph)
        counts = _counts(graph)
    return list(read_linked(work / "linked.jsonl")), counts


def large_graph(
    settings: Settings, work: Path, concepts: int, relationships: int, relations: int
) -> tuple[list[LinkedRelation], dict[str, int]]:
    release = work / "synthetic"
    write_synthetic(release, concepts, relationships, seed=7)
    load_vocabulary("umls", release, settings=settings, bulk=True)
    LocalServer(settings).start()
    rng = random.Random(11)
    with Graph.connect(settings) as graph:
        ensure_schema(graph)
        true_pairs = graph._driver.execute_query(
            "MATCH (a:UMLS)-[:MAY_TREAT]->(b:UMLS) RETURN a.id AS a, b.id AS b "
            "ORDER BY a, b LIMIT $n",
            n=relations // 2,
        ).records
        counts = _counts(graph)
    out = [linked(r["a"], r["b"], n) for n, r in enumerate(true_pairs)]
    while len(out) < relations:
        a, b = rng.randint(1, concepts), rng.randint(1, concepts)
        out.append(linked(f"UMLS:C{a:07d}", f"UMLS:C{b:07d}", len(out)))
    rng.shuffle(out)
    return out, counts


def _counts(graph: Graph) -> dict[str, int]:
    nodes = sum(r["concepts"] for r in graph.read("summary/concepts_by_vocab"))
    rels = sum(r["relationships"] for r in graph.read("summary/relationships_by_type"))
    return {"graph_concepts": nodes, "graph_relationships": rels}


def markdown(meta: dict[str, Any], results: dict[str, Any]) -> str:
    lines = [
        f"Measured {meta['date']} on {meta['cpus']} CPUs, Python {meta['python']}, "
        f"commit {meta['commit']}.",
        "",
        "| graph | concepts | relationships | mode | relations | seconds | relations/s |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for name, block in results.items():
        for row in block["rows"]:
            lines.append(
                f"| {name} | {block['graph_concepts']:,} | {block['graph_relationships']:,} | "
                f"{row['mode']} | {row['relations']:,} | {row['seconds']} | "
                f"{row['relations_per_s']:,} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concepts", type=int, default=200_000)
    parser.add_argument("--relationships", type=int, default=1_000_000)
    parser.add_argument("--relations", type=int, default=20_000)
    parser.add_argument("--naive", type=int, default=300)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    base = Settings()
    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-verify-"))
    results: dict[str, Any] = {}
    for name, port in (("sample", 7796), ("large", 7797)):
        settings = base.model_copy(
            update={
                "neo4j_home": work / name / "home",
                "bolt_port": port,
                "neo4j_uri": None,
                "cache_dir": work / name / "cache",
                "neo4j_heap": "2g",
                "neo4j_pagecache": "1g",
            }
        )
        (work / name).mkdir(parents=True)
        server = LocalServer(settings)
        if name == "sample":
            server.start()
            relations, counts = sample_graph(settings, work / name)
        else:
            relations, counts = large_graph(
                settings, work / name, args.concepts, args.relationships, args.relations
            )
        with Graph.connect(settings) as graph:
            rows = measure(graph, settings, relations, args.naive)
        server.stop()
        results[name] = {**counts, "rows": rows}
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    meta = {
        "date": time.strftime("%Y-%m-%d"),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "commit": commit,
        "args": vars(args) | {"json": str(args.json) if args.json else None},
    }
    print(markdown(meta, results))
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
        args.json.with_suffix(".md").write_text(markdown(meta, results) + "\n")


if __name__ == "__main__":
    main()
