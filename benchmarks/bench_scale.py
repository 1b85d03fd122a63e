"""Issue 39's changes before and after, back to back in one run on the same synthetic EHR:
the source read once for ingest and extraction, and fact sheets on disk. Writes JSON and
prints Markdown.

    python -m benchmarks.bench_scale --patients 10000 --before /work/wt-scale-before \\
        --json docs/benchmarks/scale-10k.json

(Run it as a module from the repository root; ``--before`` is a checkout of the tree to
compare with, e.g. ``git worktree add --detach ../before e546981``.)

- The ``synth_ehr.py`` OMOP CSVs of the first N patients (not timed).
- **Ingest and extract** on two fresh local Neo4j graphs, one after the other, each with
  the three sample releases (not timed): graph A, the earlier tree's ``kgverify ingest``
  then ``kgverify extract`` (two reads of the source, as ``make sample`` and ``pipeline()``
  ran them); graph B, this tree's ``api.ingest_and_extract`` (one read). Same relations
  file (compared byte for byte) and the same graph (node and relationship counts).
- Graph B is then linked and verified with write-back (this tree's CLI, timed for the
  record), and ``derive facts`` runs with the earlier tree's CLI, then this tree's: the
  sheets compared model for model (``read_sheets`` against the earlier one-a-line file),
  and their bytes on disk, plain and (``--gzip``) compressed.
- ``--qa``: ``derive qa`` with each tree's CLI as well, its item files compared byte for
  byte.
Every stage is a ``kgverify`` (or ``python -c``) child process with the tree's package
first on ``PYTHONPATH``; peak RSS is the child's own (``common.run_cli``), its CPU seconds
(user + system, ``RUSAGE_CHILDREN``) and the load average at its start are recorded beside
its wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import cli_env, run_cli, run_meta, server_options, server_settings
from benchmarks.synth_ehr import write_omop
from kgverify.api import SAMPLE_RELEASES, load_vocabulary, sample_path
from kgverify.graph import Graph
from kgverify.server import LocalServer

AFTER = Path(__file__).resolve().parents[1]

# One read of the source in this tree, as a child process like the CLI stages.
_ONE_READ = """
import json, sys
from pathlib import Path
from kgverify.api import ingest_and_extract
ingested, extracted = ingest_and_extract("omop", sys.argv[1], Path(sys.argv[2]))
print(json.dumps({"ingest": ingested.model_dump(mode="json"),
                  "extract": extracted.model_dump(mode="json")}))
"""


def children_cpu() -> float:
    """User and system CPU seconds of this process's finished children (the stages; not
    Neo4j's): the stage's own work, which the machine's load stretches less than its
    wall time."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def last_json(out: bytes) -> Any:
    """The JSON report a stage printed last (a line before it, if any, is not JSON)."""
    text = out.decode()
    start = text.rfind("\n{")
    return json.loads(text[start + 1 if start >= 0 else text.index("{") :])


def tree_env(env: dict[str, str], tree: Path) -> dict[str, str]:
    return env | {"PYTHONPATH": str(tree)}


def timed_cli(
    name: str, tree: Path, args: list[str], env: dict[str, str], log: Path
) -> dict[str, Any]:
    cpu, load = children_cpu(), round(os.getloadavg()[0], 2)
    out, seconds, peak, code = run_cli([*args, "--json"], tree_env(env, tree), log, cwd=tree)
    if code != 0:
        raise SystemExit(f"{name} failed (exit {code}); see {log}")
    result = {"stage": name, "tree": tree.name, "seconds": round(seconds, 1), "peak_rss_mb": peak}
    result |= {"cpu_s": round(children_cpu() - cpu, 1), "load": load}
    print(json.dumps(result), flush=True)
    return result | {"report": last_json(out)}


def one_read(ehr: Path, out: Path, env: dict[str, str], log: Path) -> dict[str, Any]:
    started, cpu, load = time.perf_counter(), children_cpu(), round(os.getloadavg()[0], 2)
    with log.open("ab") as err:
        done = subprocess.run(
            [sys.executable, "-c", _ONE_READ, str(ehr), str(out)],
            stdout=subprocess.PIPE,
            stderr=err,
            env=tree_env(env, AFTER),
            cwd=AFTER,
            check=False,
        )
    if done.returncode != 0:
        raise SystemExit(f"ingest_and_extract failed (exit {done.returncode}); see {log}")
    seconds = round(time.perf_counter() - started, 1)
    result = {"stage": "ingest and extract (one read)", "tree": AFTER.name, "seconds": seconds}
    result |= {"cpu_s": round(children_cpu() - cpu, 1), "load": load}
    print(json.dumps(result), flush=True)
    return result | {"report": last_json(done.stdout)}


def graph_counts(graph: Graph) -> dict[str, int]:
    nodes = graph.run_adhoc("MATCH (n) WHERE NOT n:Run RETURN count(n) AS n", {}, write=False)
    edges = graph.run_adhoc(
        "MATCH ()-[r]->(b) WHERE NOT b:Run RETURN count(r) AS n", {}, write=False
    )
    return {"nodes": int(nodes.rows[0]["n"]), "relationships": int(edges.rows[0]["n"])}


def fresh_graph(work: Path, args: argparse.Namespace) -> tuple[LocalServer, Any, Graph]:
    work.mkdir(parents=True, exist_ok=True)
    settings = server_settings(work, args)
    server = LocalServer(settings)
    server.start()
    graph = Graph.connect(settings)
    for name, parts in SAMPLE_RELEASES.items():
        load_vocabulary(name, sample_path(*parts), settings=settings, graph=graph)
    return server, settings, graph


def gzip_size(path: Path) -> int:
    """The bytes of ``path`` through gzip (level 9, as ``derive facts --gzip`` writes),
    streamed and counted, not kept."""
    import gzip
    import io

    class Count(io.RawIOBase):
        size = 0

        def writable(self) -> bool:
            return True

        def write(self, b: Any) -> int:
            self.size += len(b)
            return len(b)

    counter = Count()
    with path.open("rb") as src, gzip.GzipFile(fileobj=counter, mode="wb") as out:
        while chunk := src.read(1 << 20):
            out.write(chunk)
    return counter.size


def before_and_after(args: argparse.Namespace) -> tuple[Path, Path, dict[str, Any], Path, Path]:
    """What a run comparing ``--before`` with this tree starts from: the earlier tree, the
    work folder, the run's metadata, the synthetic OMOP source of ``--patients`` (written
    once, not timed) and the stages' log."""
    before = args.before.resolve()
    root = args.workdir
    root.mkdir(parents=True, exist_ok=True)
    meta = run_meta(patients=args.patients, before=str(before), after=str(AFTER))
    ehr = root / "omop"
    if not ehr.exists():
        write_omop(ehr, 0, args.patients)
    return before, root, meta, ehr, root / "stages.log"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patients", type=int, default=1000)
    parser.add_argument("--before", type=Path, required=True, help="the earlier tree")
    parser.add_argument("--qa", action="store_true", help="derive qa with both trees too")
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    server_options(parser, 7797)
    args = parser.parse_args()
    before, root, meta, ehr, log = before_and_after(args)
    stages: list[dict[str, Any]] = []
    checks: dict[str, Any] = {}

    # Graph A: the earlier tree, two reads.
    server, settings, graph = fresh_graph(root / "a", args)
    try:
        env = cli_env(settings)
        rel_a = root / "a" / "relations.jsonl"
        stages.append(timed_cli("ingest", before, ["ingest", "omop", str(ehr)], env, log))
        stages.append(
            timed_cli("extract", before, ["extract", "omop", str(ehr), "-o", str(rel_a)], env, log)
        )
        counts_a = graph_counts(graph)
    finally:
        graph.close()
        server.stop()

    # Graph B: this tree, one read; then the rest of the chain on it. The same pseudonym
    # salt as graph A's, so the same patients get the same pseudonyms.
    salt = root / "b" / "cache" / "pseudonym-salt"
    if not salt.exists():
        salt.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / "a" / "cache" / "pseudonym-salt", salt)
    server, settings, graph = fresh_graph(root / "b", args)
    try:
        env = cli_env(settings)
        b = root / "b"
        rel_b = b / "relations.jsonl"
        stages.append(one_read(ehr, rel_b, env, log))
        checks["relations_identical"] = rel_a.read_bytes() == rel_b.read_bytes()
        checks["graph_a"], checks["graph_b"] = counts_a, graph_counts(graph)
        linked, verdicts = b / "linked.jsonl", b / "verdicts.jsonl"
        stages.append(timed_cli("link", AFTER, ["link", str(rel_b), "-o", str(linked)], env, log))
        stages.append(
            timed_cli("verify", AFTER, ["verify", str(linked), "-o", str(verdicts)], env, log)
        )
        facts: dict[str, Path] = {}
        for tree in (before, AFTER):
            facts[tree.name] = b / f"facts-{tree.name}"
            stages.append(
                timed_cli(
                    "derive facts",
                    tree,
                    ["derive", "facts", "-o", str(facts[tree.name])],
                    env,
                    log,
                )
            )
        from kgverify.derive.model import FactSheet
        from kgverify.derive.sheetfile import read_sheets
        from kgverify.jsonl import read_models

        old = facts[before.name] / "sheets.jsonl"
        new = facts[AFTER.name] / "sheets.jsonl"
        checks["sheets_identical"] = all(
            x == y for x, y in zip(read_models(old, FactSheet), read_sheets(new), strict=True)
        )
        checks["sheet_bytes"] = {
            "before": old.stat().st_size,
            "before_gzip": gzip_size(old),
            "after": new.stat().st_size,
            "after_gzip": gzip_size(new),
        }
        if args.qa:
            qa: dict[str, Path] = {}
            for tree in (before, AFTER):
                qa[tree.name] = b / f"qa-{tree.name}"
                stages.append(
                    timed_cli(
                        "derive qa", tree, ["derive", "qa", "-o", str(qa[tree.name])], env, log
                    )
                )
            files = sorted(p.relative_to(qa[AFTER.name]) for p in qa[AFTER.name].rglob("*.jsonl"))
            checks["qa_files"] = len(files)
            checks["qa_identical"] = all(
                (qa[before.name] / f).read_bytes() == (qa[AFTER.name] / f).read_bytes()
                for f in files
            )
    finally:
        graph.close()
        server.stop()
    meta["load_end"] = round(os.getloadavg()[0], 2)
    for s in stages:
        report = s.pop("report")
        if s["stage"] == "derive qa":  # the synthetic copies repeat items: candidates/s
            s["candidates"] = sum(report["candidates"].values())
            s["candidates_per_s"] = round(s["candidates"] / s["seconds"], 1)
        elif s["stage"] == "derive facts":
            s["sheets_per_s"] = round(report["sheets"] / s["seconds"], 1)
            s["bytes"] = report["bytes"]
        elif s["stage"] == "ingest":
            s["patients_per_s"] = round(report["ingest"]["patients"] / s["seconds"], 1)
        elif s["stage"] in ("extract", "link", "verify"):
            key = {"extract": "relations", "link": "linked_relations", "verify": "verified"}
            done = report[key[s["stage"]]]
            s["relations_per_s"] = round(done / s["seconds"], 1)
        else:
            s["patients_per_s"] = round(report["ingest"]["ingest"]["patients"] / s["seconds"], 1)
            s["relations"] = report["extract"]["relations"]
    result = {"meta": meta, "stages": stages, "checks": checks}
    print(json.dumps(result, indent=2, default=str))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
