"""Derivation and verification write-back on a graph holding patients: ``derive facts``,
``derive qa`` and ``verify`` with write-back, timed for a baseline tree (a copy of an older
commit: ``git archive <commit> | tar -x -C DIR``) and for this tree, in one run, on one
graph. Writes JSON and prints Markdown.

    mkdir -p /tmp/c-base && git archive HEAD | tar -x -C /tmp/c-base   # before changing
    python -m benchmarks.bench_derive --base /tmp/c-base --patients 1000 \\
        --json docs/benchmarks/derive.json

(Run it as a module from the repository root: pysbd installs a top-level ``benchmarks``.)

- Graph: the three shipped sample releases in a fresh local Neo4j, then ``--patients``
  synthetic patients the normal way (``synth_ehr.py`` -> ``ingest_source("omop")`` ->
  template ``extract_relations`` -> ``link_relations_file`` -> a ``Verifier`` with
  enrichment and write-back), all by this tree.
- Each stage of each tree runs in its own Python process (``PYTHONPATH`` names the tree, so
  ``kgverify`` and ``queries/`` come from it), which gives its peak RSS: ``verify`` (every
  linked relation, enrichment and write-back, batches of 2,000; every assertion is deleted
  first, untimed, so the write-back is a first write, as after extraction), ``facts``
  (``run_facts``) and ``qa`` (``run_qa`` with the item write-back). Trees alternate (base
  then new, then new then base, ...).
- Outputs compared between the trees: the verdict JSONL, the stored assertions (every
  property but ``verified_at``, and every edge), ``sheets.jsonl`` and the QA folder, byte
  for byte.
- With ``--profile``, each stage runs once more with every statement under ``PROFILE``
  (untimed), giving db hits per statement.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
STAGES = ("verify", "facts", "qa")
BATCH = 2_000


# -- the worker: one stage of one tree, in its own process ------------------------------------


def _peak_mb() -> float:
    # Here, not from benchmarks.common: the worker runs with the baseline tree on the path.
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):  # not ru_maxrss: that carries the spawning parent's size
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError("no VmHWM")


def _db_hits(node: Any) -> int:
    children = node.get("children", []) if isinstance(node, dict) else []
    return int(node.get("dbHits", 0)) + sum(_db_hits(c) for c in children)


def _profiling_graph(base: Any) -> Any:
    """A ``Graph`` subclass running every named statement under PROFILE, adding up db hits."""
    from kgverify.graph.queries import get_query

    class ProfilingGraph(base):  # type: ignore[misc]
        hits: ClassVar[dict[str, int]] = {}
        calls: ClassVar[dict[str, int]] = {}

        def _run(self, access: str, name: str, params: dict[str, Any]) -> list[Any]:
            query = get_query(name)
            query.check_params(params)
            text = "PROFILE " + query.text
            found: list[int] = []

            def work(tx: Any) -> list[Any]:
                result = tx.run(text, params)
                rows = [record.data() for record in result]
                summary = result.consume()
                found.append(_db_hits(dict(summary.profile or {})))
                return rows

            with self._errors(), self._driver.session(database=self.database) as session:
                runner = session.execute_read if access == "read" else session.execute_write
                rows = runner(work)
            self.hits[name] = self.hits.get(name, 0) + found[-1]
            self.calls[name] = self.calls.get(name, 0) + 1
            return list(rows)

    return ProfilingGraph


def _stage(stage: str, graph: Any, settings: Any, work: Path, linked: Path) -> dict[str, Any]:
    from kgverify.derive.run import run_facts, run_qa
    from kgverify.link.model import read_linked
    from kgverify.verify.verifier import Verifier

    out: dict[str, Any] = {}
    if stage == "verify":
        spent = [0.0]

        class Timed(Verifier):
            def _write_back(self, verdicts: Any) -> Any:
                # On iter_verify's writer thread: the write-back's own duration.
                started = time.perf_counter()
                done = super()._write_back(verdicts)
                spent[0] += time.perf_counter() - started
                return done

        relations = 0
        with (
            (work / "verdicts.jsonl").open("w", encoding="utf-8") as f,
            Timed(graph, settings, write=True, enrich=True) as verifier,
        ):
            for verdict in verifier.iter_verify(read_linked(linked), batch_size=BATCH):
                relations += 1
                f.write(verdict.model_dump_json() + "\n")
        out.update(relations=relations, write_back_s=round(spent[0], 3))
    elif stage == "facts":
        report = run_facts(graph, settings, work / "facts")
        out.update(
            sheets=report.sheets,
            encounters=report.encounters,
            sheet_bytes=(work / "facts" / "sheets.jsonl").stat().st_size,
        )
    elif stage == "qa":
        qa = run_qa(graph, settings, work / "qa", write=True)
        out.update(
            items=sum(sum(s.values()) for s in qa.items.values()),
            candidates=sum(qa.candidates.values()),
            patients=qa.patients,
        )
    return out


def worker(stage: str, work: Path, linked: Path, profile: bool) -> None:
    import kgverify
    from kgverify.config import Settings
    from kgverify.graph import Graph

    settings = Settings()
    result: dict[str, Any] = {"kgverify": kgverify.__file__}
    with Graph.connect(settings) as graph:
        started = time.perf_counter()
        result.update(_stage(stage, graph, settings, work, linked))
        result["seconds"] = round(time.perf_counter() - started, 3)
    result["peak_rss_mb"] = _peak_mb()
    if profile:
        scratch = work / "profiled"
        scratch.mkdir()
        cls = _profiling_graph(Graph)
        with cls.connect(settings) as graph:
            _stage(stage, graph, settings, scratch, linked)
            result["db_hits"] = dict(sorted(cls.hits.items()))
            result["calls"] = dict(sorted(cls.calls.items()))
        shutil.rmtree(scratch)
    print("RESULT " + json.dumps(result), flush=True)


# -- the driver ------------------------------------------------------------------------------


def run_stage(
    tree: Path, stage: str, work: Path, linked: Path, env: dict[str, str], profile: bool
) -> dict[str, Any]:
    work.mkdir(parents=True)
    cmd = [sys.executable, str(HERE), "--worker", stage, "--work", str(work)]
    cmd += ["--linked", str(linked)] + (["--profile"] if profile else [])
    done = subprocess.run(
        cmd,
        env=env | {"PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        check=False,
        cwd=tree,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{tree} {stage} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    if not result["kgverify"].startswith(str(tree)):
        raise SystemExit(f"{stage} imported {result['kgverify']}, not the tree {tree}")
    return result


def digest_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def digest_folder(folder: Path, pattern: str = "*") -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob(pattern) if p.is_file()):
        h.update(str(path.relative_to(folder)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def digest_assertions(graph: Any) -> str:
    """Every stored assertion (properties but verified_at) and its edges, in id order."""
    h = hashlib.sha256()
    cypher = (
        "MATCH (a:Assertion) WITH a ORDER BY a.id "
        "RETURN a.id AS id, properties(a) AS props, "
        "COLLECT { MATCH (a)-[r]->(x) RETURN type(r) + '>' + coalesce(x.id, x.key, '') AS e "
        "ORDER BY e } AS edges"
    )
    with graph._driver.session(database=graph.database) as session:
        for record in session.run(cypher):
            props = dict(record["props"])
            props.pop("verified_at", None)
            h.update(json.dumps([record["id"], props, record["edges"]], default=str).encode())
    return h.hexdigest()[:16]


def drop_assertions(graph: Any) -> None:
    with graph._driver.session(database=graph.database) as session:
        session.run(
            "MATCH (a:Assertion) CALL (a) { DETACH DELETE a } IN TRANSACTIONS OF 5000 ROWS"
        ).consume()


def build(settings: Any, work: Path, patients: int) -> tuple[Path, dict[str, Any]]:
    from benchmarks.synth_ehr import write_omop
    from kgverify.api import (
        SAMPLE_RELEASES,
        extract_relations,
        ingest_source,
        link_relations_file,
        load_vocabulary,
        sample_path,
    )
    from kgverify.graph import Graph
    from kgverify.link.model import read_linked
    from kgverify.verify.verifier import Verifier

    folder = work / "omop"
    timings: dict[str, Any] = {}
    with Graph.connect(settings) as graph:
        started = time.perf_counter()
        for name, parts in SAMPLE_RELEASES.items():
            load_vocabulary(name, sample_path(*parts), settings=settings, graph=graph)
        timings["vocabularies_s"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        timings["omop_rows"] = write_omop(folder, 0, patients)
        ingest_source("omop", folder, settings=settings, graph=graph)
        timings["ingest_s"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        relations, linked = work / "relations.jsonl", work / "linked.jsonl"
        extract_relations("omop", folder, relations, settings=settings)
        link_relations_file(relations, linked, settings=settings, graph=graph)
        timings["extract_link_s"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        with Verifier(graph, settings, write=True, enrich=True) as verifier:
            for verdict in verifier.iter_verify(read_linked(linked), batch_size=BATCH):
                del verdict
        timings["assertions_s"] = round(time.perf_counter() - started, 1)
        timings["counts"] = {
            key: int(graph._driver.execute_query(q, database_=graph.database).records[0]["n"])
            for key, q in (
                ("patients", "MATCH (n:Patient) RETURN count(n) AS n"),
                ("facts", "MATCH (n:Fact) RETURN count(n) AS n"),
                ("assertions", "MATCH (n:Assertion) RETURN count(n) AS n"),
                ("passed", "MATCH (n:Assertion {passed: true}) RETURN count(n) AS n"),
            )
        }
    shutil.rmtree(folder)
    return linked, timings


def rate(result: dict[str, Any], stage: str) -> dict[str, Any]:
    s = result["seconds"]
    if stage == "verify":
        return {
            "relations_per_s": round(result["relations"] / s, 1),
            "write_back_relations_per_s": round(result["relations"] / result["write_back_s"], 1),
        }
    if stage == "facts":
        return {
            "sheets_per_s": round(result["sheets"] / s, 1),
            "kb_per_patient": round(result["sheet_bytes"] / 1024 / result["sheets"], 1),
        }
    return {
        "items_per_s": round(result["items"] / s, 1),
        "candidates_per_s": round(result["candidates"] / s, 1),
        "patients_per_s": round(result["patients"] / s, 1),
    }


def markdown(meta: dict[str, Any], results: dict[str, dict[str, list[dict[str, Any]]]]) -> str:
    lines = [
        f"{meta['patients']:,} patients ({meta['counts']['facts']:,} facts, "
        f"{meta['counts']['assertions']:,} assertions), measured {meta['date']} on "
        f"{meta['cpus']} CPUs, load average {meta['load_start']} at the start and "
        f"{meta['load_end']} at the end, Python {meta['python']}.",
        "",
        "| stage | tree | work | seconds | rate | peak RSS (MB) | identical |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    for stage in (s for s in STAGES if s in results):  # --stages may leave some out
        for tree in ("base", "new"):
            for r in results[stage][tree]:
                work = {
                    "verify": f"{r.get('relations', 0):,} relations",
                    "facts": f"{r.get('sheets', 0):,} sheets",
                    "qa": f"{r.get('items', 0):,} items",
                }[stage]
                rates = ", ".join(f"{k} {v:,}" for k, v in rate(r, stage).items())
                if stage == "verify":
                    rates += f" (write-back {r['write_back_s']} s)"
                lines.append(
                    f"| {stage} | {tree} | {work} | {r['seconds']} | {rates} | "
                    f"{r['peak_rss_mb']} | {meta['identical'][stage]} |"
                )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", choices=STAGES, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--linked", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--base", type=Path, help="the baseline tree (an extracted commit)")
    parser.add_argument("--patients", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=1, help="timed runs per tree and stage")
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--profile", action="store_true", help="db hits (one more run each)")
    parser.add_argument("--port", type=int, default=7797)
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache", default="1g")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.work, args.linked, args.profile)
        return

    from kgverify.config import Settings
    from kgverify.graph import Graph
    from kgverify.server import LocalServer

    trees = {"base": (args.base or ROOT).resolve(), "new": ROOT}
    stages = [s for s in STAGES if s in args.stages.split(",")]
    work = Path(tempfile.mkdtemp(prefix="kgverify-bench-derive-"))
    env = dict(os.environ) | {
        "KGVERIFY_NEO4J_HOME": str(work / "home"),
        "KGVERIFY_BOLT_PORT": str(args.port),
        "KGVERIFY_NEO4J_HEAP": args.heap,
        "KGVERIFY_NEO4J_PAGECACHE": args.pagecache,
    }
    for key in ("NEO4J_URI", "KGVERIFY_NEO4J_URI", "NEO4J_PASSWORD", "KGVERIFY_NEO4J_PASSWORD"):
        env.pop(key, None)
    os.environ.clear()
    os.environ.update(env)
    settings = Settings()
    meta: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "load_start": round(os.getloadavg()[0], 2),
        "patients": args.patients,
        "trees": {k: str(v) for k, v in trees.items()},
        "args": {k: str(v) for k, v in vars(args).items() if k not in ("worker", "work")},
    }
    results: dict[str, dict[str, list[dict[str, Any]]]] = {
        s: {"base": [], "new": []} for s in stages
    }
    digests: dict[str, dict[str, set[str]]] = {s: {"base": set(), "new": set()} for s in stages}
    items_digests: dict[str, set[str]] = {"base": set(), "new": set()}
    server = LocalServer(settings)
    server.start()
    try:
        started = time.perf_counter()
        linked, built = build(settings, work, args.patients)
        meta["build"] = built | {"seconds": round(time.perf_counter() - started, 1)}
        meta["counts"] = built["counts"]
        print(json.dumps(meta["build"]), flush=True)
        with Graph.connect(settings) as graph:
            for stage in stages:
                for n in range(args.repeats):
                    order = list(trees.items())  # base first, then new first, in turn
                    for name, tree in order if n % 2 == 0 else order[::-1]:
                        folder = work / f"{stage}-{name}-{n}"
                        if stage == "verify":  # a first write, as after extraction
                            drop_assertions(graph)
                        result = run_stage(
                            tree, stage, folder, linked, env, args.profile and n == 0
                        )
                        result |= {"load": round(os.getloadavg()[0], 2)}
                        result |= rate(result, stage)
                        if stage == "verify":
                            d = digest_file(folder / "verdicts.jsonl")
                            d += "/" + digest_assertions(graph)
                        elif stage == "facts":
                            d = digest_file(folder / "facts" / "sheets.jsonl")
                        else:
                            d = digest_folder(folder / "qa")
                            # The items alone: a report's counts may change meaning.
                            result["items_digest"] = digest_folder(folder / "qa", "*.jsonl")
                            items_digests[name].add(result["items_digest"])
                        result["digest"] = d
                        digests[stage][name].add(d)
                        results[stage][name].append(result)
                        print(stage, name, json.dumps(result), flush=True)
                        shutil.rmtree(folder)
    finally:
        server.stop()
    meta["load_end"] = round(os.getloadavg()[0], 2)
    meta["identical"] = {s: len(digests[s]["base"] | digests[s]["new"]) == 1 for s in stages}
    if "qa" in stages:
        meta["identical_items"] = len(items_digests["base"] | items_digests["new"]) == 1
    if args.json:  # first: a fault in the table must not lose the measurements
        args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    print(markdown(meta, results))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
