"""Derivation quality benchmark: QA items derived the way commit 18767f1 did (a distractor
admitted when no rule supports it: the graph's silence) against the current tree (a
distractor admitted only with a stored positive justification, one item per clinical
content, splits by content group), in one run, on one graph.

    python -m benchmarks.bench_derive_quality --json docs/benchmarks/derive_quality.json

(Run it as a module from the repository root: pysbd, a scispaCy dependency, installs a
top-level ``benchmarks`` package that shadows this folder otherwise.)

1. **Graph**: a private local Neo4j on a free port with its data and cache under a
   temporary folder (or the server ``NEO4J_URI`` names: its database is emptied first),
   then the main job's pipeline on the shipped sample (``kgverify.api.sample_pipeline``:
   sample releases, 39 Eunomia patients, extraction, linking, verification, items), with a
   fixed pseudonym key so that every run derives the same items. (The
   full Eunomia CDM, 2,694 patients, was tried on the 2-core machine and left out: 17 min
   to build the graph and 35 min in all.)
2. **Before**: ``git worktree add`` of ``--before`` (18767f1) under a temporary folder, its
   ``run_qa(..., write=False)`` in a subprocess with ``PYTHONPATH`` set to that tree, on the
   same server. **After**: the current tree's ``run_qa(..., write=False)``, in a subprocess
   too. Each is run once (warm-up; its output is the one analysed), then timed
   ``--repeats`` times; the median is reported. Nothing is written to the graph, and the
   worktree is removed at the end.
3. **Figures**, from each run's report and, computed the same way for both, from the
   JSONL: items per task and split; duplicate clinical content; test and validation content
   that also occurs in train; patients in several splits. The content of an item is its
   task, its question with the patient and setting ("A female patient aged 40-49 is seen at
   an outpatient visit") and the "Earlier conditions" line removed (the condition the first
   sentence names is kept), its answer concept, and (for "content with options") its
   sorted option concepts.
4. **What the old rule let through**: every distractor of the before items judged again by
   the current ``kgverify.derive.justify.Justifier``, with each item's request rebuilt from
   the item (treatment: the topic is the condition of its ``treats`` check; diagnosis: the
   clues are the shown medications ("treats") and findings and tests ("indicates");
   prognosis: the clues are the causes of its ``leads_to`` checks; no patient conditions).
   The after items go through the same rebuild as a control: none of theirs may be refused.
5. ``benchmarks/bench_review.py``, when present: run as a subprocess on the same graph
   (``--no-review`` skips it); its figures, or its error, go into the results.

Writes JSON (``--json``) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from kgverify.config import Settings
from kgverify.derive.justify import Justifier, Request
from kgverify.derive.model import Task
from kgverify.graph import Graph, delete_all, ensure_schema
from kgverify.graph.driver import batched
from kgverify.server import LocalServer
from kgverify.verify.verifier import Verifier

BEFORE = "18767f1"
REPEATS = 3
ROOT = Path(__file__).resolve().parents[1]
SPLITS = ("train", "validation", "test")
EXAMPLES_PER_REASON = 3
# A fixed pseudonym key, so patient ids, the old per-patient splits and the order patients
# are read in (which patient's item stands for a content) are the same on every run.
SALT = "kgverify-bench-derive-quality"

# Runs in a subprocess, in either tree (both have run_qa(graph, settings, out, write=...)):
# the warm-up run's report, then the repeats' wall times, as one JSON line.
WORKER = """
import json, sys, time
from pathlib import Path
from kgverify.config import Settings
from kgverify.derive.run import run_qa
from kgverify.graph import Graph

out, repeats = Path(sys.argv[1]), int(sys.argv[2])
settings = Settings()
with Graph.connect(settings) as graph:
    started = time.perf_counter()
    report = run_qa(graph, settings, out, write=False)
    first = time.perf_counter() - started
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run_qa(graph, settings, out, write=False)
        times.append(time.perf_counter() - started)
print(json.dumps({"report": report.model_dump(mode="json"), "first": first, "times": times}))
"""

_PATIENT = re.compile(
    r"^A .+? is seen at (?:an inpatient stay|an outpatient visit|an emergency visit|"
    r"a recorded visit)"
)


def _log(message: str, started: float) -> None:
    print(f"[{time.perf_counter() - started:7.1f} s] {message}", flush=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout


# -- the graph ------------------------------------------------------------------------------


@contextlib.contextmanager
def bench_server(work: Path) -> Iterator[Settings]:
    """Settings for a private local Neo4j (stopped on exit), or for ``NEO4J_URI``. The
    launcher build stays in the shared cache; everything the pipeline writes goes to
    ``work/cache``."""
    mine = {"cache_dir": work / "cache", "pseudonym_salt": SecretStr(SALT)}
    if os.environ.get("NEO4J_URI"):
        yield Settings().model_copy(update=mine)
        return
    server_settings = Settings(
        neo4j_home=work / "neo4j",
        bolt_port=_free_port(),
        neo4j_heap="1g",
        neo4j_pagecache="512m",
    )
    server = LocalServer(server_settings)
    server.start()
    try:
        yield server_settings.model_copy(update=mine)
    finally:
        server.stop()


def worker_env(settings: Settings, tree: Path) -> dict[str, str]:
    """The environment a subprocess needs to reach the same server and cache."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGVERIFY_")}
    env["PYTHONPATH"] = str(tree)
    env["KGVERIFY_CACHE_DIR"] = str(settings.cache_dir)
    env["KGVERIFY_PSEUDONYM_SALT"] = SALT
    if not os.environ.get("NEO4J_URI"):
        env["KGVERIFY_NEO4J_HOME"] = str(settings.local_home)
        env["KGVERIFY_BOLT_PORT"] = str(settings.bolt_port)
    return env


def build_graph(graph: Graph, settings: Settings) -> dict[str, Any]:
    """The main job on the sample (items written, as ``kgverify sample`` leaves them);
    returns the step counts worth reporting."""
    from kgverify import api

    delete_all(graph)
    ensure_schema(graph)
    out = api.sample_pipeline(graph, settings)
    return {
        "ehr": "sample (39 Eunomia patients)",
        "relations": out.extract.relations,
        "verified": sum(v.verified for v in out.verify),
        "passed": sum(v.passed for v in out.verify),
    }


# -- derivation in either tree ----------------------------------------------------------------


def derive_in(tree: Path, settings: Settings, out: Path, repeats: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(out), str(repeats)],
        cwd=tree,
        env=worker_env(settings, tree),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"derivation in {tree} failed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def read_items(folder: Path) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for task in Task:
        for split in SPLITS:
            path = folder / task.value / f"{split}.jsonl"
            if path.is_file():
                with path.open(encoding="utf-8") as handle:
                    items.extend(json.loads(line) for line in handle if line.strip())
    return items


# -- duplicate content ------------------------------------------------------------------------


def stem(question: str) -> str:
    """The question without who the patient is, where they are seen, and their earlier
    conditions."""
    lines = question.splitlines()
    lines[0] = _PATIENT.sub("", lines[0])
    kept = [
        line
        for line in lines
        if not line.startswith("Earlier conditions")
        and line != "Nothing else is recorded for this visit."
    ]
    return "\n".join(kept)


def stem_key(item: dict[str, Any]) -> tuple[str, str, str]:
    return item["task"], stem(item["question"]), item["answer_concept"]


def content_key(item: dict[str, Any]) -> tuple[str, str, str, tuple[str, ...]]:
    return (*stem_key(item), tuple(sorted(o["concept_id"] for o in item["options"])))


def duplicates(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Repeated clinical content, and evaluation content that train holds too."""
    out: dict[str, Any] = {}
    for name, key in (("stem_answer", stem_key), ("with_options", content_key)):
        counts = Counter(key(i) for i in items)
        train = {key(i) for i in items if i["split"] == "train"}
        held_out = [i for i in items if i["split"] != "train"]
        out[name] = {
            "distinct": len(counts),
            "items_sharing_it": sum(n for n in counts.values() if n > 1),
            "items_beyond_the_first": sum(n - 1 for n in counts.values()),
            "largest_group": max(counts.values(), default=0),
            "validation_test_items": len(held_out),
            "validation_test_items_also_in_train": sum(key(i) in train for i in held_out),
        }
    used: Counter[tuple[str, str]] = Counter(
        (i["task"], o["text"])
        for i in items
        for o in i["options"]
        if o["concept_id"] != i["answer_concept"]
    )
    out["distinct_distractors"] = len(used)
    out["most_common_distractors"] = [
        {"task": task, "text": text, "items": n} for (task, text), n in used.most_common(5)
    ]
    splits: defaultdict[str, set[str]] = defaultdict(set)
    for i in items:
        splits[i["patient_id"]].add(i["split"])
    out["patients"] = len(splits)
    out["patients_in_several_splits"] = sum(len(s) > 1 for s in splits.values())
    return out


def items_per_split(items: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (task, split), n in sorted(Counter((i["task"], i["split"]) for i in items).items()):
        out.setdefault(task, {})[split] = n
    return out


# -- the old items under the new rules --------------------------------------------------------

CLUE_PREDICATE = {"medication": "treats", "finding": "indicates", "test": "indicates"}


def request_of(item: dict[str, Any]) -> Request:
    """The justification request of a stored item, rebuilt from the item alone."""
    task = Task(item["task"])
    answer = item["answer_concept"]
    checks = item.get("checks") or []
    if task is Task.TREATMENT:
        topic = next(c["fixed"] for c in checks if c["predicate"] == "treats")
        clues = [(topic, "treats")]
    elif task is Task.DIAGNOSIS:
        topic = answer
        clues = list(
            dict.fromkeys(
                (f["concept_id"], CLUE_PREDICATE[f["role"]])
                for f in item["context"]
                if f["role"] in CLUE_PREDICATE and f["concept_id"]
            )
        )
    else:
        causes = [c["fixed"] for c in checks if c["predicate"] == "leads_to"]
        topic = causes[0]
        clues = [(c, "leads_to") for c in causes]
    return Request(
        task=task,
        topic=topic,
        answer=answer,
        clues=clues,
        conditions=[],
        candidates=[o["concept_id"] for o in item["options"] if o["concept_id"] != answer],
    )


def witness(justifier: Justifier, r: Request, candidate: str, reason: str) -> dict[str, Any]:
    """What a refusal rests on, in the justifier's own terms: the indication, class or clue
    target that lies near, and the shared ancestor that makes it near (the ``near``
    witness). Mirrors ``Justifier._treatment`` / ``_pointers``, for the report only."""
    if r.task is Task.TREATMENT:
        drug = justifier._drugs[candidate]
        if "may treat a condition near" in reason:
            for e in drug.indications:
                near = justifier.near(r.topic, e.end)
                if near is not None:
                    return {"near": e.end, "edge": e.type, "source": e.source, "via": near}
        if "shares a class" in reason:
            treaters = [r.answer, *justifier._treaters[r.topic]]
            for t in treaters:
                shared = sorted(set(drug.classes) & set(justifier._drugs[t].classes))
                if shared:
                    return {"drug": t, "classes": [drug.classes[k] or k for k in shared]}
        return {}
    for clue, predicate in r.clues:
        if predicate == "treats":
            pointed = [(e.end, e) for e in justifier._drugs[clue].indications]
        else:
            pointed = list(justifier._targets[(clue, predicate)])
        for target, e in pointed:
            near = justifier.near(candidate, target)
            if near is not None:
                return {
                    "clue": clue,
                    "near": target,
                    "edge": e.type,
                    "source": e.source,
                    "via": near,
                }
    return {}


def _names(graph: Graph, ids: set[str]) -> dict[str, str]:
    rows = graph._driver.execute_query(
        "MATCH (c:Concept) WHERE c.id IN $ids RETURN c.id AS id, c.name AS name",
        {"ids": sorted(ids)},
        database_=graph.database,
    ).records
    return {r["id"]: r["name"] or r["id"] for r in rows}


def flagged_by_depth(
    graph: Graph, settings: Settings, items: list[dict[str, Any]], depths: range
) -> dict[str, int]:
    """Items with a distractor the new rules refuse, per ``derive_near_depth`` (the same
    depth for the treatment rules)."""
    out = {}
    with Verifier(graph, settings, write=False, enrich=False) as verifier:
        for depth in depths:
            justifier = Justifier(graph, verifier.hubs, depth, depth)
            flagged = 0
            for chunk in batched(items, 500):
                judged = justifier.judge([request_of(i) for i in chunk])
                flagged += sum(any(not o.admissible for o in j.values()) for j in judged)
            out[str(depth)] = flagged
    return out


def rejudge(graph: Graph, settings: Settings, items: list[dict[str, Any]]) -> dict[str, Any]:
    """Every distractor of ``items`` judged by the current justification rules, with what
    each refusal rests on; ``EXAMPLES_PER_REASON`` examples per refusal reason."""
    items_by_reason: Counter[str] = Counter()
    distractors_by_reason: Counter[str] = Counter()
    per_task: Counter[str] = Counter()
    vias: Counter[str] = Counter()
    flagged = 0
    distractors = 0
    examples: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with Verifier(graph, settings, write=False, enrich=False) as verifier:
        justifier = Justifier(
            graph, verifier.hubs, settings.derive_near_depth, settings.derive_drug_near_depth
        )
        for chunk in batched(items, 500):
            requests = [request_of(i) for i in chunk]
            judged = justifier.judge(requests)
            for item, r, outcomes in zip(chunk, requests, judged, strict=True):
                distractors += len(outcomes)
                refused = {
                    d: o.refused or "no justification"
                    for d, o in outcomes.items()
                    if not o.admissible
                }
                if not refused:
                    continue
                flagged += 1
                per_task[item["task"]] += 1
                items_by_reason.update(set(refused.values()))
                distractors_by_reason.update(refused.values())
                why = {d: witness(justifier, r, d, reason) for d, reason in refused.items()}
                vias.update(w["via"] for w in why.values() if "via" in w)
                for reason in dict.fromkeys(refused.values()):
                    if len(examples[reason]) < EXAMPLES_PER_REASON:
                        texts = {o["concept_id"]: o["text"] for o in item["options"]}
                        examples[reason].append(
                            {
                                "item_id": item["item_id"],
                                "task": item["task"],
                                "question": item["question"],
                                "answer": texts[item["answer_concept"]],
                                "topic": r.topic,
                                "refused": [
                                    {"distractor": texts[d], "id": d, "reason": why_not} | why[d]
                                    for d, why_not in refused.items()
                                ],
                            }
                        )
    ids = set(vias)
    for found in examples.values():
        for example in found:
            ids.add(example["topic"])
            for refusal in example["refused"]:
                ids.update(str(refusal[k]) for k in ("near", "via", "clue", "drug") if k in refusal)
    names = _names(graph, ids)
    for found in examples.values():
        for example in found:
            example["topic"] = names.get(example["topic"], example["topic"])
            for refusal in example["refused"]:
                for k in ("near", "via", "clue", "drug"):
                    if k in refusal:
                        refusal[k] = f"{names.get(refusal[k], refusal[k])} ({refusal[k]})"
    return {
        "items": len(items),
        "distractors": distractors,
        "items_with_a_refused_distractor": flagged,
        "items_with_a_refused_distractor_per_task": dict(sorted(per_task.items())),
        "items_per_reason": dict(items_by_reason.most_common()),
        "distractors_refused": sum(distractors_by_reason.values()),
        "distractors_per_reason": dict(distractors_by_reason.most_common()),
        "near_via": {f"{names.get(v, v)} ({v})": n for v, n in vias.most_common(15)},
        "examples": dict(examples),
    }


# -- the review benchmark --------------------------------------------------------------------


def run_review(settings: Settings, work: Path) -> dict[str, Any]:
    script = ROOT / "benchmarks" / "bench_review.py"
    if not script.is_file():
        return {"error": "benchmarks/bench_review.py is not there"}
    out = work / "review.json"
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_review", "--json", str(out)],
        cwd=ROOT,
        env=worker_env(settings, ROOT),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not out.is_file():
        return {"error": (done.stderr or done.stdout)[-2000:], "returncode": done.returncode}
    result: dict[str, Any] = json.loads(out.read_text())
    result["wall_s"] = round(time.perf_counter() - started, 1)
    return result


# -- one side ----------------------------------------------------------------------------------


def side(run: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    report = run["report"]
    out = {
        "seconds_median": round(statistics.median(run["times"]), 3),
        "seconds_runs": [round(t, 3) for t in run["times"]],
        "seconds_first": round(run["first"], 3),
        "patients": report["patients"],
        "candidates": report["candidates"],
        "items": report["items"],
        "items_total": sum(sum(s.values()) for s in report["items"].values()),
        "skipped": report["skipped"],
        "distractors_rejected": report["distractors_rejected"],
        "duplicates": duplicates(items),
    }
    if items_per_split(items) != report["items"]:
        raise SystemExit("the JSONL and the run report disagree on the items")
    for key in ("justifications", "difficulty", "splits", "patients_in_several_splits"):
        if key in report:
            out[key] = report[key]
    return out


def run(args: argparse.Namespace, work: Path, started: float) -> dict[str, Any]:
    before_tree = work / "kgv-before"
    with bench_server(work) as settings, Graph.connect(settings) as graph:
        _log("server up; building the graph", started)
        t = time.perf_counter()
        graph_facts = build_graph(graph, settings)
        graph_facts["pipeline_s"] = round(time.perf_counter() - t, 1)
        _log(f"graph built in {graph_facts['pipeline_s']} s", started)
        _git("worktree", "add", "--detach", str(before_tree), args.before)
        try:
            runs = {}
            for name, tree in (("before", before_tree), ("after", ROOT)):
                runs[name] = derive_in(tree, settings, work / f"qa-{name}", args.repeats)
                _log(f"{name}: median {statistics.median(runs[name]['times']):.3f} s", started)
        finally:
            _git("worktree", "remove", "--force", str(before_tree))
        before_items = read_items(work / "qa-before")
        after_items = read_items(work / "qa-after")
        results: dict[str, Any] = {
            "graph": graph_facts,
            "before": side(runs["before"], before_items),
            "after": side(runs["after"], after_items),
        }
        results["before_under_new_rules"] = rejudge(graph, settings, before_items)
        results["before_under_new_rules"]["items_flagged_per_near_depth"] = flagged_by_depth(
            graph, settings, before_items, range(1, settings.derive_near_depth + 1)
        )
        control = rejudge(graph, settings, after_items)
        results["after_under_new_rules_control"] = {
            k: v for k, v in control.items() if k != "examples"
        }
        _log("re-judged", started)
        if not args.no_review:
            results["review"] = run_review(settings, work)
            _log("review benchmark done", started)
    return results


# -- the table ---------------------------------------------------------------------------------


def _fmt(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def markdown(meta: dict[str, Any], results: dict[str, Any]) -> str:
    b, a = results["before"], results["after"]
    rows: list[tuple[str, object, object]] = [
        ("`run_qa` wall time, warm, median of 3 (s)", b["seconds_median"], a["seconds_median"]),
        ("patients", b["patients"], a["patients"]),
    ]
    for task in sorted(set(b["candidates"]) | set(a["candidates"])):
        rows.append(
            (f"{task}: candidates", b["candidates"].get(task, 0), a["candidates"].get(task, 0))
        )
        for split in SPLITS:
            rows.append(
                (
                    f"{task}: items, {split}",
                    b["items"].get(task, {}).get(split, 0),
                    a["items"].get(task, {}).get(split, 0),
                )
            )
    rows.append(("items", b["items_total"], a["items_total"]))
    bd, ad = b["duplicates"], a["duplicates"]
    rows += [
        (
            "items sharing (task, stem, answer) with another item",
            bd["stem_answer"]["items_sharing_it"],
            ad["stem_answer"]["items_sharing_it"],
        ),
        (
            "items sharing (task, stem, answer, options) with another item",
            bd["with_options"]["items_sharing_it"],
            ad["with_options"]["items_sharing_it"],
        ),
        (
            "validation + test items",
            bd["stem_answer"]["validation_test_items"],
            ad["stem_answer"]["validation_test_items"],
        ),
        (
            "... whose (task, stem, answer) is also in train",
            bd["stem_answer"]["validation_test_items_also_in_train"],
            ad["stem_answer"]["validation_test_items_also_in_train"],
        ),
        (
            "... whose (task, stem, answer, options) is also in train",
            bd["with_options"]["validation_test_items_also_in_train"],
            ad["with_options"]["validation_test_items_also_in_train"],
        ),
        (
            "patients in several splits",
            bd["patients_in_several_splits"],
            ad["patients_in_several_splits"],
        ),
        ("distinct distractor concepts", bd["distinct_distractors"], ad["distinct_distractors"]),
        (
            "most frequent distractor: items offering it",
            bd["most_common_distractors"][0]["items"],
            ad["most_common_distractors"][0]["items"],
        ),
    ]
    rj = results["before_under_new_rules"]
    rows.append(
        (
            "items with a distractor the new rules refuse (after: the same check, a control)",
            f"{rj['items_with_a_refused_distractor']:,} of {rj['items']:,}",
            f"{results['after_under_new_rules_control']['items_with_a_refused_distractor']:,}"
            f" of {results['after_under_new_rules_control']['items']:,}",
        )
    )
    depths = rj["items_flagged_per_near_depth"]
    for depth, n in depths.items():
        if depth != str(len(depths)):
            rows.append((f"... with `derive_near_depth` {depth} instead", f"{n:,}", ""))
    lines = ["| | before (18767f1) | after |", "|---|---:|---:|"]
    lines += [f"| {name} | {_fmt(x)} | {_fmt(y)} |" for name, x, y in rows]
    lines += ["", "Before items with a distractor the new rules refuse, per reason:", ""]
    lines += ["| reason | items | distractors |", "|---|---:|---:|"]
    for reason, n in rj["items_per_reason"].items():
        lines.append(f"| {reason} | {n:,} | {rj['distractors_per_reason'][reason]:,} |")
    lines += ["", "Candidates dropped, per reason:", ""]
    lines += ["| reason | before | after |", "|---|---:|---:|"]
    for reason in sorted(set(b["skipped"]) | set(a["skipped"])):
        lines.append(
            f"| {reason} | {_fmt(b['skipped'].get(reason, 0))} | "
            f"{_fmt(a['skipped'].get(reason, 0))} |"
        )
    lines += ["", "Distractor candidates refused, per reason:", ""]
    lines += ["| reason | before | after |", "|---|---:|---:|"]
    for reason in sorted(
        set(b["distractors_rejected"]) | set(a["distractors_rejected"]),
        key=lambda r: -(b["distractors_rejected"].get(r, 0) + a["distractors_rejected"].get(r, 0)),
    ):
        lines.append(
            f"| {reason} | {_fmt(b['distractors_rejected'].get(reason, 0))} | "
            f"{_fmt(a['distractors_rejected'].get(reason, 0))} |"
        )
    lines += ["", "After: justifications of the chosen distractors, per rule:", ""]
    lines += ["| rule | distractors |", "|---|---:|"]
    lines += [f"| `{rule}` | {n:,} |" for rule, n in a.get("justifications", {}).items()]
    lines += ["", "After: chosen distractors per distance to the topic (is-a steps):", ""]
    difficulty = a.get("difficulty", {})
    lines += ["| " + " | ".join(difficulty) + " |", "|" + "---:|" * len(difficulty)]
    lines += ["| " + " | ".join(f"{n:,}" for n in difficulty.values()) + " |"]
    review = results.get("review")
    if review and "error" not in review:
        lines += [
            "",
            f"Review round trip (`bench_review`): {review['items']:,} items, export "
            f"{review['export_seconds']} s, import {review['import_seconds']} s, "
            f"{review['items_per_second']} items/s.",
        ]
    lines += ["", f"({meta['date']}, {meta['cpus']} cores, wall time {meta['wall_s']} s)"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--markdown", type=Path, help="also write the Markdown table here")
    parser.add_argument("--before", default=BEFORE, help="the commit derived the old way")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="timed runs per side")
    parser.add_argument("--no-review", action="store_true", help="skip bench_review")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    started = time.perf_counter()
    load_start = _load_average()
    dirty = _git("status", "--porcelain", "--", "kgverify", "queries").splitlines()
    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-derive-quality-"))
    try:
        results = run(args, work, started)
    finally:
        if args.keep:
            print(f"kept {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    meta = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "commit": _git("rev-parse", "--short", "HEAD").strip(),
        "before": args.before,
        "uncommitted": [line[3:] for line in dirty],
        "load_average_start": load_start,
        "load_average_end": _load_average(),
        "wall_s": round(time.perf_counter() - started, 1),
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
    }
    table = markdown(meta, results)
    print(table)
    print(json.dumps({"meta": meta, "results": results}, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    if args.markdown:
        args.markdown.write_text(table + "\n")


if __name__ == "__main__":
    main()
