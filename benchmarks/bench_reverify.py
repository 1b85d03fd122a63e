"""Re-verification benchmark: after a new vocabulary release, `kgverify reverify` (re-checks
only the assertions a change can touch) against the naive ways (judge every assertion again;
re-verify every relation with write-back), on the same graph, in one run. Writes JSON and
prints a Markdown table.

    python -m benchmarks.bench_reverify --json docs/benchmarks/reverify.json

(Run it as a module from the repository root: pysbd, a scispaCy dependency, installs a
top-level ``benchmarks`` package that shadows this folder otherwise.)

One configuration, a synthetic UMLS graph:

1. ``synth_umls.py`` at ``--concepts``/``--relationships`` (release 2099AA, seed 7),
   bulk-imported; ``--relations`` linked ``treats`` relations, half true ``MAY_TREAT``
   pairs read from the graph, half random concept pairs (``bench_verify.large_graph``),
   verified with enrichment and write-back, so every relation is an ``(:Assertion)``.
2. A second release 2099AB (date 20990601): the first release's folder with MRREL changed.
   ``--changes`` MAY_TREAT pairs that a passing assertion rests on (its deciding path is the
   ``direct`` rule's edge) are dropped (both direction rows, found by RUI), and
   ``--changes`` new may_treat pairs are added (both directions, new RUIs ``R99...``): half
   of them on the pairs of relations that did not pass (their verdicts can change), half on
   random concept pairs. Loaded through the batched path, so the changed edges carry
   ``changed_in`` (retired) or ``first_release`` (new).
3. Timed on that graph state:

   - **selective**: ``kgverify.api.reverify`` (the ``Reverifier``). Its first run, against
     the pending release, is the one whose report and new verdicts are kept; it marks the
     release re-verified, so a plain call would find nothing pending: it is then repeated
     ``REPEATS`` times with ``releases=["UMLS@2099AB"]`` (the same touched set is
     re-checked and its rechecks written again, replacing the first run's; the counts are
     the first run's). The median of the repeats is reported, and the first run's time
     beside it, with the seconds between the Reverifier's progress log lines (what
     changed; assertions; items; the rest);
   - **naive, judge again**: every rule-decided assertion read back and judged again
     (``Verifier.evidence_for`` in chunks of 5,000, ``judge_evidence``, the filter policy),
     nothing written: the brute-force oracle of ``tests/e2e/test_reverify.py``. A lower
     bound for the naive way, since it records nothing. Read-only: warmed once (that run's
     time is reported as its first run), timed ``REPEATS`` times, median reported;
   - **naive, re-verify everything**: ``Verifier(write=True, enrich=True).iter_verify`` over
     every relation again, batches of 2,000: what a pipeline without ``reverify`` does. It
     overwrites the assertions, so it runs last; its warm-up run already writes the new
     verdicts (its time is reported as its first run), the timed runs then write the same
     again (``REPEATS``, median reported).

   The benchmark also checks that the three ways agree: the assertions that no longer pass
   (and those that pass now) must be the same sets, and the standing verdict the selective
   run leaves on every assertion must equal the naive re-judgement. Disagreement is printed,
   written into the results as a failure, and the script exits with status 1.

No QA items are derived here, so the item checks of ``reverify`` have nothing to do (items
= 0): the figures are the assertion re-check alone. Each way runs on the graph the previous
one left: the selective repeats and the naive re-judgement read the same vocabulary graph
and assertions (the repeats replace the (:Recheck) nodes of the same releases; the
verdicts they write are the same).
Bolt port 7798; the Neo4j store and the releases live under a temporary folder that is
removed at the end (``--keep`` keeps it).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.bench_verify import large_graph
from kgverify.api import load_vocabulary, reverify
from kgverify.audit.reverify import ReverifyReport
from kgverify.config import Settings
from kgverify.graph import Graph
from kgverify.link.model import LinkedRelation
from kgverify.server import LocalServer
from kgverify.verify.model import Verdict
from kgverify.verify.verifier import Triple, Verifier, judge_evidence

REPEATS = 3
"""Timed runs per way after the warm-up (selective: after its first run); median reported."""
PORT = 7798
SECOND = "2099AB"
SECOND_DATE = "20990601"
RELEASE_ID = f"UMLS@{SECOND}"
CHUNK = 5_000
"""Triples per ``evidence_for`` call in the naive re-judgement."""

Pair = tuple[str, str]  # (drug CUI, disease CUI): "drug may treat disease"


def _rows(graph: Graph, cypher: str, **params: Any) -> list[dict[str, Any]]:
    records = graph._driver.execute_query(cypher, params, database_=graph.database).records
    return [r.data() for r in records]


def _cui(concept_id: str) -> str:
    return concept_id.split(":", 1)[1]


def _median(runs: list[float]) -> float:
    return sorted(runs)[len(runs) // 2]


def _log(message: str, started: float) -> None:
    print(f"[{time.perf_counter() - started:7.1f} s] {message}", flush=True)


# -- step 1: first release, verified with write-back -------------------------------------


def verify_all(
    graph: Graph, settings: Settings, relations: list[LinkedRelation]
) -> tuple[dict[str, Verdict], float]:
    """Every relation verified with enrichment and write-back: the assertions."""
    verifier = Verifier(graph, settings, write=True, enrich=True)
    started = time.perf_counter()
    verdicts = {v.relation.relation_id: v for v in verifier.iter_verify(relations, 2_000)}
    return verdicts, time.perf_counter() - started


# -- step 2: the second release ----------------------------------------------------------


def choose_changes(
    verdicts: dict[str, Verdict], changes: int, concepts: int
) -> tuple[list[Pair], list[Pair], int]:
    """(pairs to drop, pairs to add, how many added pairs are on relations that did not
    pass). Dropped: MAY_TREAT pairs that a passing assertion's deciding path is (the direct
    rule's edge between its own two concepts). Added: half on the pairs of relations that
    did not pass, half random concept pairs."""
    rng = random.Random(23)
    resting: set[Pair] = set()
    failing: set[Pair] = set()
    for v in verdicts.values():
        if v.subject.concept_id is None or v.object.concept_id is None:
            continue
        pair = (_cui(v.subject.concept_id), _cui(v.object.concept_id))
        if v.passed and v.rule == "direct.support":
            resting.add(pair)
        elif not v.passed:
            failing.add(pair)
    drop = rng.sample(sorted(resting), min(changes, len(resting)))
    targeted = rng.sample(sorted(failing), min(changes // 2, len(failing)))
    add = list(targeted)
    taken = set(drop) | set(add)
    while len(add) < changes:
        a, b = rng.randint(1, concepts), rng.randint(1, concepts)
        pair = (f"C{a:07d}", f"C{b:07d}")
        if a != b and pair not in taken:
            taken.add(pair)
            add.append(pair)
    return drop, add, len(targeted)


def second_release(first: Path, dest: Path, drop: list[Pair], add: list[Pair]) -> dict[str, Any]:
    """The first release as 2099AB with the ``drop`` pairs' MRREL rows taken out (both
    directions, found by RUI) and the ``add`` pairs' rows appended (both directions)."""
    meta = dest / "META"
    shutil.copytree(first / "META", meta)
    rel = meta / "MRREL.RRF"
    dropped = set(drop)
    ruis: set[str] = set()
    total = 0
    with rel.open(encoding="utf-8") as lines:
        for line in lines:
            total += 1
            f = line.split("|")
            # "CUI1 | RELA=may_treat | CUI2" reads "CUI2 may treat CUI1".
            if (f[7] == "may_treat" and (f[4], f[0]) in dropped) or (
                f[7] == "may_be_treated_by" and (f[0], f[4]) in dropped
            ):
                ruis.add(f[8])
    kept = 0
    part = rel.with_suffix(".part")
    with rel.open(encoding="utf-8") as lines, part.open("w", encoding="utf-8") as out:
        for line in lines:
            if line.split("|")[8] not in ruis:
                out.write(line)
                kept += 1
        for n, (drug, disease) in enumerate(add):
            out.write(
                f"{disease}|A9{disease[1:]}|SCUI|RO|{drug}|A9{drug[1:]}|SCUI|may_treat|"
                f"R99{2 * n:08d}||MTH|MTH||Y|N||\n"
                f"{drug}|A9{drug[1:]}|SCUI|RO|{disease}|A9{disease[1:]}|SCUI|"
                f"may_be_treated_by|R99{2 * n + 1:08d}||MTH|MTH||N|N||\n"
            )
    assert kept == total - len(ruis), (kept, total, len(ruis))
    part.replace(rel)
    (meta / "release.dat").write_text(
        f"umls.release.name={SECOND}\numls.release.date={SECOND_DATE}\n", encoding="utf-8"
    )
    return {
        "pairs_dropped": len(drop),
        "mrrel_rows_dropped": len(ruis),
        "pairs_added": len(add),
        "mrrel_rows_added": 2 * len(add),
    }


# -- step 3: the ways --------------------------------------------------------------------


PHASES = (
    "mark what changed and what the rules' walks reach",
    "re-check the touched assertions",
    "items",
    "finish the run",
)
"""The stretches between the Reverifier's three progress log lines, in order."""


class _Records(logging.Handler):
    """Collects the Reverifier's progress log lines with their times."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[tuple[float, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.created, record.getMessage()))


def selective(
    graph: Graph, settings: Settings, releases: list[str] | None
) -> tuple[ReverifyReport, float, list[dict[str, Any]]]:
    """One ``reverify`` call: its report, wall seconds, and the seconds between its progress
    log lines (``PHASES`` when it logs three lines, else each line's text)."""
    logger = logging.getLogger("kgverify.audit.reverify")
    records = _Records()
    logger.addHandler(records)
    logger.setLevel(logging.INFO)
    try:
        wall0, started = time.time(), time.perf_counter()
        report = reverify(releases, settings=settings, graph=graph)
        seconds, wall1 = time.perf_counter() - started, time.time()
    finally:
        logger.removeHandler(records)
    marks = [wall0, *(t for t, _ in records.lines), wall1]
    names = (
        list(PHASES)
        if len(records.lines) == len(PHASES) - 1
        else [f"until: {m}" for _, m in records.lines] + ["until the end"]
    )
    phases = [
        {"phase": name, "s": round(b - a, 3)}
        for name, a, b in zip(names, marks[:-1], marks[1:], strict=True)
    ]
    return report, seconds, phases


def standing(graph: Graph) -> dict[str, dict[str, Any]]:
    """Every assertion's first verdict and its standing (re-checked) one."""
    found = _rows(
        graph,
        "MATCH (a:Assertion) RETURN a.id AS id, a.passed AS passed, a.verdict AS verdict, "
        "coalesce(a.standing_passed, a.passed) AS standing_passed, "
        "coalesce(a.standing_verdict, a.verdict) AS standing_verdict, "
        "coalesce(a.judged, 'evidence') AS judged",
    )
    return {r["id"]: r for r in found}


def rejudge_all(graph: Graph, settings: Settings) -> dict[str, tuple[str, bool, bool]]:
    """The naive way, nothing written: every rule-decided assertion judged again. Returns,
    per assertion, (verdict now, passes now, passed at first)."""
    assertions = _rows(
        graph,
        "MATCH (a:Assertion) WHERE coalesce(a.judged, 'evidence') = 'evidence' "
        "RETURN a.id AS id, a.subject_id AS s, a.object_id AS o, a.predicate AS p, "
        "a.confidence AS c, a.passed AS passed",
    )
    verifier = Verifier(graph, settings, write=False)
    out: dict[str, tuple[str, bool, bool]] = {}
    for start in range(0, len(assertions), CHUNK):
        chunk = assertions[start : start + CHUNK]
        triples: list[Triple] = [(a["s"], a["o"], a["p"]) for a in chunk]
        found = verifier.evidence_for(triples)
        for a, t in zip(chunk, triples, strict=True):
            kind, _, deciding = judge_evidence(found[t])
            score = deciding.score if deciding is not None else 0.0
            ok = verifier.policy.passes(kind, score, float(a["c"] or 0.0))
            out[a["id"]] = (kind.value, ok, bool(a["passed"]))
    return out


def reverify_everything(
    graph: Graph, settings: Settings, relations: list[LinkedRelation]
) -> dict[str, bool]:
    """The naive way a pipeline without ``reverify`` takes: verify every relation again,
    enriched and written back. Returns whether each relation passes now."""
    verifier = Verifier(graph, settings, write=True, enrich=True)
    return {v.relation.relation_id: v.passed for v in verifier.iter_verify(relations, 2_000)}


def _timed_runs(work: Callable[[], Any], runs: int) -> tuple[list[float], Any]:
    times: list[float] = []
    result: Any = None
    for _ in range(runs):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return times, result


def _row(way: str, judged: int, runs: list[float], first: float | None = None) -> dict[str, Any]:
    seconds = _median(runs)
    row: dict[str, Any] = {
        "way": way,
        "assertions_judged": judged,
        "seconds": round(seconds, 3),
        "runs_s": [round(r, 3) for r in runs],
    }
    if first is not None:
        row["first_run_s"] = round(first, 3)
    return row


def _diff(name: str, a: set[str], b: set[str]) -> list[str]:
    if a == b:
        return []
    return [
        f"{name}: {len(a)} against {len(b)}; only in the first {sorted(a - b)[:10]}, "
        f"only in the second {sorted(b - a)[:10]}"
    ]


def bench_settings(work: Path) -> Settings:
    return Settings().model_copy(
        update={
            "neo4j_home": work / "home",
            "bolt_port": PORT,
            "neo4j_uri": None,
            "cache_dir": work / "cache",
            "neo4j_heap": "2g",
            "neo4j_pagecache": "1g",
        }
    )


def run(args: argparse.Namespace, settings: Settings, work: Path, started: float) -> dict[str, Any]:
    _log(
        f"synthetic release 2099AA: {args.concepts:,} concepts, "
        f"{args.relationships:,} relationships; bulk import",
        started,
    )
    relations, counts = large_graph(
        settings, work, args.concepts, args.relationships, args.relations
    )
    results: dict[str, Any] = {**counts, "relations": len(relations)}
    with Graph.connect(settings) as graph:
        _log(f"verifying {len(relations):,} relations with write-back", started)
        verdicts, seconds = verify_all(graph, settings, relations)
        results["first_verification_s"] = round(seconds, 3)
        first_passed = {rid: v.passed for rid, v in verdicts.items()}

        drop, add, targeted = choose_changes(verdicts, args.changes, args.concepts)
        release = second_release(work / "synthetic", work / SECOND, drop, add)
        release["pairs_added_on_failing_relations"] = targeted
        _log(f"release {SECOND}: {release}; batched load", started)
        t0 = time.perf_counter()
        load = load_vocabulary("umls", work / SECOND, settings=settings, graph=graph)
        release["load_s"] = round(time.perf_counter() - t0, 3)
        release["retired_relationships"] = load.retired_relationships
        release["retired_concepts"] = load.retired_concepts
        results["second_release"] = release

        _log("selective: reverify against the pending release", started)
        report, first, first_phases = selective(graph, settings, None)
        print(report.model_dump_json(), flush=True)
        print(first_phases, flush=True)
        if report.releases != [RELEASE_ID]:
            raise SystemExit(f"reverify chose {report.releases}, expected [{RELEASE_ID}]")
        results["reverify_report"] = report.model_dump()
        after = standing(graph)
        repeats: list[float] = []
        repeat_phases: list[list[dict[str, Any]]] = []
        for _ in range(REPEATS):
            again, seconds, phases = selective(graph, settings, [RELEASE_ID])
            repeats.append(seconds)
            repeat_phases.append(phases)
            assert again.rechecked == report.rechecked, (again.rechecked, report.rechecked)
        _log(f"selective runs: first {first:.3f} s, repeats {repeats}", started)
        print(repeat_phases, flush=True)

        _log("naive: judge every assertion again (no write)", started)
        [naive_first], _ = _timed_runs(lambda: rejudge_all(graph, settings), 1)  # warm
        naive_times, naive = _timed_runs(lambda: rejudge_all(graph, settings), REPEATS)
        _log(f"naive judge-again runs: {naive_times}", started)

        _log("naive: re-verify every relation (enrich + write back)", started)
        # The warm-up run writes the new verdicts; the timed ones write the same again.
        [full_first], _ = _timed_runs(lambda: reverify_everything(graph, settings, relations), 1)
        full_times, full = _timed_runs(
            lambda: reverify_everything(graph, settings, relations), REPEATS
        )
        _log(f"naive re-verify runs: {full_times}", started)

    n = len(after)
    results["assertions"] = n
    results["rows"] = [
        _row(
            "selective: `reverify` (re-checks the assertions a change touches)",
            report.rechecked,
            repeats,
            first,
        ),
        _row(
            "naive: judge every assertion again (rules + verdict, nothing written)",
            len(naive),
            naive_times,
            naive_first,
        ),
        _row(
            "naive: re-verify every relation (enrich + write back)",
            len(full),
            full_times,
            full_first,
        ),
    ]
    median_run = repeats.index(_median(repeats))
    results["rows"][0]["phases_first_run"] = first_phases
    results["rows"][0]["phases_median_repeat"] = repeat_phases[median_run]
    base_s = results["rows"][0]["seconds"]
    for row in results["rows"]:
        row["times_selective"] = round(row["seconds"] / base_s, 1) if base_s else None

    # Correctness: the three ways must agree.
    sel_failing = {i for i, a in after.items() if a["passed"] and not a["standing_passed"]}
    sel_now = {i for i, a in after.items() if not a["passed"] and a["standing_passed"]}
    naive_failing = {i for i, (_, ok, was) in naive.items() if was and not ok}
    naive_now = {i for i, (_, ok, was) in naive.items() if ok and not was}
    full_failing = {i for i, ok in full.items() if first_passed.get(i) and not ok}
    full_now = {i for i, ok in full.items() if ok and first_passed.get(i) is False}
    problems = _diff("no longer passing, selective vs judge again", sel_failing, naive_failing)
    problems += _diff("no longer passing, selective vs re-verify", sel_failing, full_failing)
    problems += _diff("passing now, selective vs judge again", sel_now, naive_now)
    problems += _diff("passing now, selective vs re-verify", sel_now, full_now)
    verdict_diff = {
        i
        for i, (kind, ok, _) in naive.items()
        if i in after
        and (after[i]["standing_verdict"] != kind or bool(after[i]["standing_passed"]) != ok)
    }
    if verdict_diff:
        problems.append(
            f"standing verdict differs from the naive re-judgement on {len(verdict_diff)} "
            f"assertions, e.g. {sorted(verdict_diff)[:10]}"
        )
    if report.no_longer_passing != len(sel_failing):
        problems.append(
            f"report says {report.no_longer_passing} no longer pass, the graph {len(sel_failing)}"
        )
    if report.now_passing != len(sel_now):
        problems.append(f"report says {report.now_passing} pass now, the graph {len(sel_now)}")
    results["correctness"] = {
        "ok": not problems,
        "no_longer_passing": len(sel_failing),
        "passing_now": len(sel_now),
        "standing_verdicts_compared": len(naive),
        "problems": problems,
    }
    return results


def markdown(meta: dict[str, Any], results: dict[str, Any]) -> str:
    report = results["reverify_report"]
    release = results["second_release"]
    check = results["correctness"]
    selective_row = results["rows"][0]
    lines = [
        f"Measured {meta['date']} on {meta['cpus']} CPUs, Python {meta['python']}, "
        f"commit {meta['commit']} (load average {meta['load_average_start']} at the start, "
        f"{meta['load_average_end']} at the end)"
        + (
            f", with uncommitted changes to {', '.join(meta['uncommitted'])}."
            if meta["uncommitted"]
            else "."
        ),
        "",
        f"Graph: {results['graph_concepts']:,} concept nodes, "
        f"{results['graph_relationships']:,} relationships; {results['assertions']:,} "
        f"assertions (first verification with write-back: {results['first_verification_s']} s). "
        f"Release {RELEASE_ID}: {release['pairs_dropped']:,} may_treat pairs dropped "
        f"({release['mrrel_rows_dropped']:,} MRREL rows), {release['pairs_added']:,} added "
        f"({release['pairs_added_on_failing_relations']:,} on relations that did not pass); "
        f"batched load {release['load_s']} s, {report['edges_changed']:,} edges changed.",
        "",
        "| way | assertions judged | seconds (median) | first run s (warm-up) | runs s "
        "| x selective |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for row in results["rows"]:
        first = row.get("first_run_s", "")
        runs = ", ".join(str(r) for r in row["runs_s"])
        lines.append(
            f"| {row['way']} | {row['assertions_judged']:,} | {row['seconds']} | {first} | "
            f"{runs} | {row['times_selective']} |"
        )
    lines += [
        "",
        "| reverify report | value |",
        "|---|---:|",
        *(f"| {key} | {value:,} |" for key, value in report.items() if type(value) is int),
        f"| seconds (its own clock, first run) | {report['seconds']} |",
        "",
        "Where a selective run spends its time (seconds between its progress log lines):",
        "",
        "| phase | first run s | median repeat s |",
        "|---|---:|---:|",
        *(
            f"| {a['phase']} | {a['s']} | {b['s'] if b['phase'] == a['phase'] else ''} |"
            for a, b in zip(
                selective_row["phases_first_run"],
                selective_row["phases_median_repeat"],
                strict=False,
            )
        ),
        "",
        (
            f"Correctness: the same {check['no_longer_passing']:,} assertions no longer pass "
            f"and the same {check['passing_now']:,} pass now in all three ways; the standing "
            f"verdicts equal the naive re-judgement on all "
            f"{check['standing_verdicts_compared']:,} assertions."
            if check["ok"]
            else "Correctness: **FAILED**: " + "; ".join(check["problems"])
        ),
    ]
    return "\n".join(lines)


def _load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concepts", type=int, default=100_000)
    parser.add_argument("--relationships", type=int, default=500_000)
    parser.add_argument("--relations", type=int, default=20_000)
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    started = time.perf_counter()
    load_start = _load_average()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    # Code the run measures that is not committed (the commit alone does not say it).
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "kgverify", "loaders", "queries"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.splitlines()
    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-reverify-"))
    settings = bench_settings(work)
    server = LocalServer(settings)
    try:
        results = run(args, settings, work, started)
    finally:
        server.stop()
        if args.keep:
            print(f"kept {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    meta = {
        "date": time.strftime("%Y-%m-%d"),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "commit": commit,
        "uncommitted": [line[3:] for line in dirty],
        "load_average_start": load_start,
        "load_average_end": _load_average(),
        "wall_s": round(time.perf_counter() - started, 1),
        "args": vars(args) | {"json": str(args.json) if args.json else None},
    }
    print(markdown(meta, results))
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
        args.json.with_suffix(".md").write_text(markdown(meta, results) + "\n")
    if not results["correctness"]["ok"]:
        for problem in results["correctness"]["problems"]:
            print(f"CORRECTNESS FAILED: {problem}", flush=True)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
