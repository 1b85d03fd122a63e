"""Verification cost against the patients and assertions in the graph: the same relations
verified on a graph holding 0, N, M, ... patients with their facts and assertions, by the
old statements (relationship types filtered after an untyped expansion) and the current
ones (types named in the pattern), in the same run. Writes JSON and prints Markdown.

    python -m benchmarks.bench_verify_patients --patients 0,10000,100000 \\
        --json docs/benchmarks/verify_patients.json

(Run it as a module from the repository root; see bench_verify.py.)

- Graph: the three shipped sample releases in a fresh local Neo4j, then patients added in
  ascending steps through the normal path: ``synth_ehr.py`` (the sample OMOP CDM multiplied
  with shifted ids and dates) -> ``ingest_source("omop")``, and their assertions:
  ``extract_relations`` (template) -> ``link_relations_file`` -> ``Verifier`` with write-back
  (enrichment off while building: it only fills the assertion's distractor list, the
  graph's edges are the same).
- Measured relations: the template relations of the sample EHR (copy 0 of the generator,
  so once patients are in, the relations' patients and facts are in the graph), linked once.
- Per size and per statement set: relations/s through ``Verifier`` (the rules and the
  enrichment of passing relations, no write-back; median of 3 after a warm-up, old and new
  alternating), and per statement (direct, ancestor, ingredient, enrich) the db hits of one
  PROFILE over all rows (batches of 2,000) and the median seconds of 3 runs in one session.
  The verdicts of the two statement sets are compared (rule versions aside: they hash the
  text) and must be identical.
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

from benchmarks.common import run_meta, server_options, server_settings
from benchmarks.synth_ehr import write_omop
from kgverify.api import (
    SAMPLE_RELEASES,
    extract_relations,
    ingest_source,
    link_relations_file,
    load_vocabulary,
    sample_path,
)
from kgverify.config import Settings
from kgverify.graph import Graph
from kgverify.graph.driver import Row, batched
from kgverify.graph.queries import get_query
from kgverify.link.model import LinkedRelation, read_linked
from kgverify.server import LocalServer
from kgverify.verify.rules import RULES, SUPPORT
from kgverify.verify.verifier import Verifier

REPEATS = 3
BATCH = 2_000

# The statements before issue 18, kept here for the comparison only: the evidence edge
# (and enrichment's distractor edges) matched untyped, then filtered with type(r).
OLD_STATEMENTS: dict[str, str] = {
    "verify/direct": """UNWIND $rows AS row
CALL (row) {
  MATCH ps = (:Concept {id: row.subject})-[:MAPS_TO*0..1]-(s:Concept)
  WHERE s.owner IS NOT NULL
  MATCH po = (:Concept {id: row.object})-[:MAPS_TO*0..1]-(o:Concept)
  WHERE o.owner IS NOT NULL
  UNWIND $specs[row.predicate] AS spec
  MATCH (s)-[r]-(o)
  WHERE type(r) = spec.type AND coalesce(r.active, true)
    AND (spec.forward IS NULL OR (startNode(r) = s) = spec.forward)
  WITH ps, po, r, spec.weight AS score, spec.stance AS stance
  ORDER BY score DESC, length(ps) + length(po)
  WITH stance, collect({
    nodes: [n IN nodes(ps) | n.id] + reverse([n IN nodes(po) | n.id]),
    edges: [x IN relationships(ps) + [r] + reverse(relationships(po)) |
            {start: startNode(x).id, type: type(x), end: endNode(x).id}],
    depth: 0, score: score, stance: stance})[..$max_paths] AS best
  UNWIND best AS path
  RETURN collect(path) AS paths
}
WITH row, paths WHERE size(paths) > 0
RETURN row.rid AS rid, paths""",
    "verify/ancestor": """UNWIND $rows AS row
CALL (row) {
  MATCH po = (:Concept {id: row.object})-[:MAPS_TO*0..1]-(o:Concept)
  WHERE o.owner IS NOT NULL
  MATCH pa = (o)-[:IS_A*1..4]->(:Concept)
  WHERE length(pa) <= $max_depth
    AND all(x IN relationships(pa) WHERE coalesce(x.active, true))
    AND all(n IN tail(nodes(pa)) WHERE $hubs[n.id] IS NULL)
  WITH row, po, pa, last(nodes(pa)) AS a
  MATCH pm = (a)-[:MAPS_TO*0..1]-(t:Concept)
  WHERE t.owner IS NOT NULL AND $hubs[t.id] IS NULL
  MATCH ps = (:Concept {id: row.subject})-[:MAPS_TO*0..1]-(s:Concept)
  WHERE s.owner IS NOT NULL
  UNWIND $specs[row.predicate] AS spec
  MATCH (s)-[r]-(t)
  WHERE type(r) = spec.type AND coalesce(r.active, true)
    AND (spec.forward IS NULL OR (startNode(r) = s) = spec.forward)
  WITH ps, po, pa, pm, r, spec.weight * $decay ^ length(pa) AS score, spec.stance AS stance
  ORDER BY score DESC, length(ps) + length(po) + length(pm)
  WITH ps, r, score, stance, length(pa) AS depth,
       relationships(po) + relationships(pa) + relationships(pm) AS up,
       nodes(po) + tail(nodes(pa)) + tail(nodes(pm)) AS climb
  WITH stance, collect({
    nodes: [n IN nodes(ps) | n.id] + reverse([n IN climb | n.id]),
    edges: [x IN relationships(ps) + [r] + reverse(up) |
            {start: startNode(x).id, type: type(x), end: endNode(x).id}],
    depth: depth, score: score, stance: stance})[..$max_paths] AS best
  UNWIND best AS path
  RETURN collect(path) AS paths
}
WITH row, paths WHERE size(paths) > 0
RETURN row.rid AS rid, paths""",
    "verify/ingredient": """UNWIND $rows AS row
CALL (row) {
  MATCH ps = (:Concept {id: row.subject})-[:MAPS_TO*0..1]-(:Concept)
             -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*1..3]->
             (:Concept)-[:MAPS_TO*0..1]-(s:Concept)
  WHERE s.owner IS NOT NULL AND none(x IN relationships(ps) WHERE x.active = false)
  MATCH po = (:Concept {id: row.object})-[:MAPS_TO*0..1]-(o:Concept)
  WHERE o.owner IS NOT NULL
  MATCH pa = (o)-[:IS_A*0..4]->(:Concept)
  WHERE length(pa) <= $max_depth
    AND all(x IN relationships(pa) WHERE coalesce(x.active, true))
    AND all(n IN tail(nodes(pa)) WHERE $hubs[n.id] IS NULL)
  WITH row, ps, s, po, pa, last(nodes(pa)) AS a
  MATCH pm = (a)-[:MAPS_TO*0..1]-(t:Concept)
  WHERE t.owner IS NOT NULL AND (length(pa) = 0 OR $hubs[t.id] IS NULL)
  UNWIND $specs[row.predicate] AS spec
  MATCH (s)-[r]-(t)
  WHERE type(r) = spec.type AND coalesce(r.active, true)
    AND (spec.forward IS NULL OR (startNode(r) = s) = spec.forward)
  WITH ps, po, pa, pm, r, spec.weight * $decay ^ (length(pa) + 1) AS score, spec.stance AS stance
  ORDER BY score DESC, length(ps) + length(po) + length(pm)
  WITH ps, r, score, stance, length(pa) AS depth,
       relationships(po) + relationships(pa) + relationships(pm) AS up,
       nodes(po) + tail(nodes(pa)) + tail(nodes(pm)) AS climb
  WITH stance, collect({
    nodes: [n IN nodes(ps) | n.id] + reverse([n IN climb | n.id]),
    edges: [x IN relationships(ps) + [r] + reverse(up) |
            {start: startNode(x).id, type: type(x), end: endNode(x).id}],
    depth: depth, score: score, stance: stance})[..$max_paths] AS best
  UNWIND best AS path
  RETURN collect(path) AS paths
}
WITH row, paths WHERE size(paths) > 0
RETURN row.rid AS rid, paths""",
    "verify/enrich": """UNWIND $rows AS row
MATCH (s:Concept {id: row.subject})
MATCH (o:Concept {id: row.object})
CALL (s) {
  MATCH (s)-[:MAPS_TO*0..1]-(e:Concept)
  RETURN collect(DISTINCT e.id) AS subject_codes, collect(coalesce(e.names, [])) AS subject_names
}
CALL (o) {
  MATCH (o)-[:MAPS_TO*0..1]-(e:Concept)
  RETURN collect(DISTINCT e.id) AS object_codes, collect(coalesce(e.names, [])) AS object_names
}
CALL (o) {
  OPTIONAL MATCH p = (o)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..3]->(a:Concept)
  WHERE $hubs[a.id] IS NULL
  WITH a, min(length(p)) AS steps ORDER BY steps, a.name
  RETURN [x IN collect(DISTINCT a.name) WHERE x IS NOT NULL][..10] AS ancestors
}
CALL (s) {
  OPTIONAL MATCH (s)-[:MAPS_TO*0..1]-(:Concept)
        -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*0..3]->
        (:Concept)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A]->(c:Concept)
  WHERE $hubs[c.id] IS NULL
    AND any(k IN coalesce(c.kinds, []) WHERE k IN ["ingredient", "substance", "drug_product"])
  WITH c ORDER BY c.name
  RETURN [x IN collect(DISTINCT c.name) WHERE x IS NOT NULL][..10] AS classes
}
CALL (o) {
  MATCH (o)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*0..3]->(:Concept)-[:MAPS_TO*0..1]-(u:Concept)
  WHERE $hubs[u.id] IS NULL
  RETURN collect(DISTINCT u.id) AS object_up
}
CALL (row, o, subject_codes, object_up) {
  OPTIONAL MATCH (o)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..2]->(up:Concept)
                 <-[:IS_A*1..2]-(:Concept)-[:MAPS_TO*0..1]-(sib:Concept)
  WHERE $hubs[up.id] IS NULL AND NOT sib.id IN object_up
  WITH DISTINCT row, subject_codes, object_up, sib
  UNWIND $specs[row.predicate] AS spec
  MATCH (d:Concept)-[r]-(sib)
  WHERE type(r) = spec.type AND (spec.forward IS NULL OR (startNode(r) = d) = spec.forward)
    AND NOT d.id IN subject_codes AND $hubs[d.id] IS NULL
  WITH DISTINCT row, object_up, d
  WHERE NOT EXISTS {
      MATCH (d)-[r2]-(u:Concept)
      WHERE u.id IN object_up AND type(r2) IN [x IN $specs[row.predicate] | x.type]
    }
    AND NOT EXISTS {
      MATCH (:Patient {id: row.patient_id})-[:HAS_FACT]->(:Fact)-[:CODED_AS]->(d)
    }
  WITH d ORDER BY d.id
  RETURN collect(d.id)[..$distractors] AS distractors
}
RETURN row.rid AS rid, s.name AS subject_name, o.name AS object_name, subject_codes,
       object_codes, subject_names, object_names, ancestors, classes, distractors""",
}
STATEMENTS = tuple(OLD_STATEMENTS)


def text_of(variant: str, name: str) -> str:
    return OLD_STATEMENTS[name] if variant == "old" else get_query(name).text


class OldStatementsGraph(Graph):
    """The same connection, reading the old text of the compared statements."""

    def read(self, name: str, **params: Any) -> list[Row]:
        if name not in OLD_STATEMENTS:
            return super().read(name, **params)
        get_query(name).check_params(params)
        text = OLD_STATEMENTS[name]

        def work(tx: Any) -> list[Row]:
            return [record.data() for record in tx.run(text, params)]

        with self._driver.session(database=self.database) as session:
            return session.execute_read(work)


# -- the graph ---------------------------------------------------------------------------


def add_patients(
    graph: Graph, settings: Settings, work: Path, first: int, count: int
) -> dict[str, float]:
    """Patients first .. first + count - 1 with their facts and assertions, the normal way."""
    if count <= 0:
        return {}
    folder = work / f"omop-{first}"
    timings: dict[str, float] = {}
    started = time.perf_counter()
    write_omop(folder, first, count)
    timings["generate_s"] = time.perf_counter() - started
    started = time.perf_counter()
    ingest_source("omop", folder, settings=settings, graph=graph)
    timings["ingest_s"] = time.perf_counter() - started
    started = time.perf_counter()
    relations, linked = folder / "relations.jsonl", folder / "linked.jsonl"
    extract_relations("omop", folder, relations, settings=settings)
    link_relations_file(relations, linked, settings=settings, graph=graph)
    timings["extract_link_s"] = time.perf_counter() - started
    started = time.perf_counter()
    with Verifier(graph, settings, write=True, enrich=False) as verifier:
        for verdict in verifier.iter_verify(read_linked(linked), batch_size=BATCH):
            del verdict
    timings["assertions_s"] = time.perf_counter() - started
    shutil.rmtree(folder)
    return {k: round(v, 1) for k, v in timings.items()}


def counts(graph: Graph) -> dict[str, int]:
    out: dict[str, int] = {}
    for key, cypher in (
        ("patients", "MATCH (n:Patient) RETURN count(n) AS n"),
        ("facts", "MATCH (n:Fact) RETURN count(n) AS n"),
        ("assertions", "MATCH (n:Assertion) RETURN count(n) AS n"),
        ("coded_as", "MATCH ()-[r:CODED_AS]->() RETURN count(r) AS n"),
        ("relationships", "MATCH ()-[r]->() RETURN count(r) AS n"),
    ):
        out[key] = int(
            graph._driver.execute_query(cypher, database_=graph.database).records[0]["n"]
        )
    return out


# -- measuring ---------------------------------------------------------------------------


def _db_hits(node: dict[str, Any]) -> int:
    return int(node.get("dbHits", 0)) + sum(_db_hits(c) for c in node.get("children", []))


def statement_rows(
    verifier: Verifier, relations: list[LinkedRelation]
) -> dict[str, list[dict[str, Any]]]:
    """Each statement's parameters over the measured relations, as the Verifier sends them
    (one dict per batch of rows)."""
    triples = list(
        dict.fromkeys(
            (r.subject.concept_id, r.object.concept_id, r.relation.predicate.value)
            for r in relations
            if r.subject.concept_id is not None and r.object.concept_id is not None
        )
    )
    rows: list[dict[str, Any]] = [
        {"rid": n, "subject": s, "object": o, "predicate": p} for n, (s, o, p) in enumerate(triples)
    ]
    out: dict[str, list[dict[str, Any]]] = {}
    for rule in RULES:
        served = [row for row in rows if rule.serves(row["predicate"])]
        out[rule.query] = [verifier._rule_params(rule, part) for part in batched(served, BATCH)]
    passed = [v for v in verifier.verify(relations) if v.passed]
    enrich_rows = [
        {
            "rid": n,
            "subject": v.subject.concept_id,
            "object": v.object.concept_id,
            "predicate": v.relation.predicate.value,
            "patient_id": v.relation.patient_id,
        }
        for n, v in enumerate(passed)
    ]
    specs = {p.value: [e.as_param() for e in edges] for p, edges in SUPPORT.items()}
    out["verify/enrich"] = [
        {
            "rows": part,
            "specs": specs,
            "hubs": verifier.hubs,
            "distractors": verifier.settings.verify_distractors,
        }
        for part in batched(enrich_rows, BATCH)
    ]
    return out


def profile_statement(graph: Graph, text: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    hits = 0
    rows = 0
    with graph._driver.session(database=graph.database) as session:
        for params in calls:
            summary = session.run(f"PROFILE {text}", params).consume()
            hits += _db_hits(dict(summary.profile or {}))
        runs = []
        for _ in range(REPEATS + 1):
            started = time.perf_counter()
            rows = sum(len(list(session.run(text, params))) for params in calls)
            runs.append(time.perf_counter() - started)
    return {
        "db_hits": hits,
        "seconds": round(statistics.median(runs[1:]), 4),
        "rows_out": rows,
    }


def _comparable(verdicts: list[Any]) -> list[str]:
    out = []
    for v in verdicts:
        data = v.model_dump(mode="json")
        data["rule_version"] = None
        for path in data["evidence"]:
            path["rule_version"] = None
        out.append(json.dumps(data, sort_keys=True))
    return out


def measure(
    settings: Settings, relations: list[LinkedRelation], graphs: dict[str, Graph]
) -> dict[str, Any]:
    verifiers = {v: Verifier(g, settings, write=False, enrich=True) for v, g in graphs.items()}
    verdicts = {v: _comparable(verifier.verify(relations)) for v, verifier in verifiers.items()}
    identical = verdicts["old"] == verdicts["new"]
    runs: dict[str, list[float]] = {v: [] for v in verifiers}
    for verifier in verifiers.values():  # warm: plans compiled, page cache hot
        list(verifier.iter_verify(relations, batch_size=BATCH))
    for _ in range(REPEATS):
        for v, verifier in verifiers.items():
            started = time.perf_counter()
            for verdict in verifier.iter_verify(relations, batch_size=BATCH):
                del verdict
            runs[v].append(time.perf_counter() - started)
    calls = statement_rows(verifiers["new"], relations)
    out: dict[str, Any] = {"identical_verdicts": identical}
    for v, graph in graphs.items():
        seconds = statistics.median(runs[v])
        out[v] = {
            "relations_per_s": round(len(relations) / seconds, 1),
            "runs_s": [round(r, 3) for r in runs[v]],
            "statements": {
                name: profile_statement(graph, text_of(v, name), calls[name]) for name in STATEMENTS
            },
        }
    for verifier in verifiers.values():
        verifier.close()
    return out


def markdown(meta: dict[str, Any], results: list[dict[str, Any]]) -> str:
    lines = [
        f"Measured {meta['date']} on {meta['cpus']} CPUs (load average {meta['load']} at "
        f"the start), Python {meta['python']}, commit {meta['commit']}; "
        f"{meta['relations']:,} relations.",
        "",
        "| patients | facts | assertions | statements | relations/s | "
        + " | ".join(f"{n.split('/')[1]} db hits" for n in STATEMENTS)
        + " | identical |",
        "|---:|---:|---:|---|---:|" + "---:|" * len(STATEMENTS) + "---|",
    ]
    for block in results:
        c = block["counts"]
        for v in ("old", "new"):
            m = block["measure"][v]
            hits = " | ".join(f"{m['statements'][n]['db_hits']:,}" for n in STATEMENTS)
            lines.append(
                f"| {c['patients']:,} | {c['facts']:,} | {c['assertions']:,} | {v} | "
                f"{m['relations_per_s']:,} | {hits} | {block['measure']['identical_verdicts']} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patients", default="0,50", help="ascending sizes, comma-separated")
    parser.add_argument("--chunk", type=int, default=10_000, help="patients generated at once")
    server_options(parser, 7798)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    sizes = sorted({int(s) for s in args.patients.split(",")})
    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-verify-patients-"))
    settings = server_settings(work, args)
    meta = run_meta(args=vars(args) | {"json": str(args.json) if args.json else None})
    server = LocalServer(settings)
    server.start()
    results: list[dict[str, Any]] = []
    try:
        with Graph.connect(settings) as graph, OldStatementsGraph.connect(settings) as old:
            for name, parts in SAMPLE_RELEASES.items():
                load_vocabulary(name, sample_path(*parts), settings=settings, graph=graph)
            # The measured relations: the sample EHR's, which is copy 0 of the generator.
            base = work / "base"
            write_omop(base, 0, 39)
            extract_relations("omop", base, base / "relations.jsonl", settings=settings)
            link_relations_file(
                base / "relations.jsonl", base / "linked.jsonl", settings=settings, graph=graph
            )
            relations = list(read_linked(base / "linked.jsonl"))
            meta["relations"] = len(relations)
            have = 0
            for size in sizes:
                built: dict[str, float] = {}
                while have < size:  # in pieces, so the generated CSVs stay small on disk
                    step = min(args.chunk, size - have)
                    for key, seconds in add_patients(graph, settings, work, have, step).items():
                        built[key] = round(built.get(key, 0.0) + seconds, 1)
                    have += step
                block = {"size": size, "built": built, "counts": counts(graph)}
                block["measure"] = measure(settings, relations, {"old": old, "new": graph})
                results.append(block)
                print(json.dumps(block), flush=True)
    finally:
        server.stop()
    print(markdown(meta, results))
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
        args.json.with_suffix(".md").write_text(markdown(meta, results) + "\n")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
