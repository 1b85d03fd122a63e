"""Fault suite, the slow half (issue 15): kills of the client and of the JVM mid-load,
concurrent loads, damaged newer releases, ``--bulk`` under a kill, commands against a
stopped server. Prints a table (probe | expected | observed | ok | seconds) and, with
``--out``, writes the same as JSON.

    python -m benchmarks.faults --out docs/benchmarks/faults.json

(Run it as a module from the repository root: pysbd, a scispaCy dependency, installs a
top-level ``benchmarks`` package that shadows this folder otherwise.)

The suite starts its own local Neo4j (a temporary home, a free port, a temporary cache whose
``neo4j-local`` entry points at the launcher already built in the shared cache, so nothing is
rebuilt) and stops it at the end, whatever happens. Every probe runs the real CLI as a
subprocess (``kgverify ...`` with ``KGVERIFY_NEO4J_HOME``, ``KGVERIFY_BOLT_PORT``,
``KGVERIFY_CACHE_DIR``); the reference graphs are clean loads of the same releases through
the Python API, compared with ``tests.e2e.helpers.fingerprint`` (every property of every
node and relationship, Release nodes included, timestamps and the stored report left out)
and with the Release nodes' status and current flags.

Probes (``--only`` takes these group names, comma-separated):

1. ``client_kill``: ``kgverify load umls 2025AA --batch-size 25`` SIGKILLed at several
   points of the load, found by watching the graph (the Release node registered; half the
   concepts written; 10% and 90% of the typed relationships written), then the same command
   again;
2. ``jvm_kill``: the server's JVM (pid from ``kgverify neo4j status --json``) SIGKILLed while
   ``load`` writes relationships, ``kgverify neo4j start`` (recovery), the load again;
3. ``concurrent``: 2025AA and 2025AB loaded at once (then both commands again, in order), and
   UMLS 2025AA with SNOMED CT 20250101 at once;
4. ``damaged``: newer UMLS releases made from the sample, loaded over 2025AA: MRCONSO empty,
   MRCONSO cut at 50% and at 97% of its bytes (an interrupted copy), and 2025AA relabelled
   2025AB with 40% of its CUIs renamed in every file (then again with ``--allow-retire``);
   then newer RxNorm and SNOMED CT releases over the older ones: RxNorm without RXNSAT,
   RXNCONSO cut 40 bytes short, SNOMED CT with every description inactive, SNOMED CT with
   every concept inactive, RxNorm with a fifth of its RXCUIs renamed (issue 35: each held
   before any write, the graph unchanged);
5. ``bulk``: ``kgverify load umls 2025AA --bulk`` into the emptied database, the client
   SIGKILLed while it writes the CSVs, while neo4j-admin imports, and after the import
   (Release node registered); a neo4j-admin import that outlives its killed client is
   waited for; then the same command again, and what its error names (``graph reset``);
6. ``server_down``: ``kgverify load`` and ``kgverify verify`` with the server stopped.
7. ``host_files``: ``kgverify cypher`` reading ``/etc/passwd`` and the pseudonym salt with
   ``LOAD CSV``, without and with ``--write`` (issue 35: the client refuses the first, the
   server the second); then inputs that gave tracebacks: a deeply nested JSON line to
   ``link``, ``audit rejected_relations -p limit=-1``, ``-o`` under an existing file; and
   ``trajectories -o`` under umask 0 (owner-only files and folders).
8. ``starved``: a second private server with a 48 MB heap (``KGVERIFY_NEO4J_HEAP=48m``,
   transactions bounded at 30 s) and ``kgverify load umls 2025AA`` against it: one
   ``error:`` line, exit 2, no row rejected for the server's fault, never a hang (issue 35).
9. ``finishes`` (issue 35, points 6 and 8), on the sample chain run through the API:
   ``derive qa`` with another seed SIGKILLed once half as many items as are current are
   written pending, then run again; ``reverify`` after a newer SNOMED CT release SIGKILLed
   once rechecks are written, then run again, against a clean re-verification of the same
   chain; ``derive qa``, ``extract`` and ``verify`` writing to a full 16 KiB file system; and
   ``derive qa`` and ``link`` writing to a read-only one (both tmpfs mounts: root only).

Each probe records expected, observed, ok and seconds; where a graph differs from its
reference, the details say how (counts per property, one example each). Nothing here
asserts a wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgverify.api import SAMPLE_RELEASES, load_vocabulary, sample_path
from kgverify.config import Settings
from kgverify.graph import Graph, delete_all, ensure_schema
from kgverify.server import LocalServer
from kgverify.server import local as local_server
from tests.e2e.helpers import (
    VOLATILE,
    fingerprint,
    inactivate_rf2,
    rename_rxcuis,
    rows,
    value,
)

ROOT = Path(__file__).resolve().parents[1]
AA = sample_path("umls", "2025AA")
AB = sample_path("umls", "2025AB")
SCT = sample_path(*SAMPLE_RELEASES["snomed"])
SCT_JUN = sample_path("snomed", "SnomedCT_InternationalRF2_PRODUCTION_20250601T120000Z")
RX = sample_path(*SAMPLE_RELEASES["rxnorm"])
RX_FEB = sample_path("rxnorm", "RxNorm_full_02032025")
KILL_BATCH = 25
"""Rows per write in the kill probes: the sample's load then spans about a hundred
transactions, so a kill lands inside it."""
GROUPS = (
    "client_kill",
    "jvm_kill",
    "concurrent",
    "damaged",
    "bulk",
    "server_down",
    "host_files",
    "starved",
    "finishes",
)

STATE = """
CALL () { MATCH (c:UMLS) RETURN count(c) AS concepts }
CALL () {
  MATCH ()-[r]->() WHERE r.source = 'UMLS' AND type(r) <> 'MAPS_TO' RETURN count(r) AS edges
}
CALL () {
  MATCH (r:Release)
  RETURN collect(r.id + ' ' + coalesce(r.status, '?')
    + CASE WHEN r.current THEN ' current' ELSE '' END) AS releases
}
RETURN concepts, edges, releases
"""
RETIRED = "MATCH (c:UMLS) WHERE NOT c.active RETURN count(c)"
ACTIVE_BETWEEN_RETIRED = (
    "MATCH (s)-[r {active: true}]->(e) WHERE (s:UMLS AND NOT s.active) "
    "OR (e:UMLS AND NOT e.active) RETURN count(r)"
)


# -- records ------------------------------------------------------------------------------------


@dataclass
class Probe:
    """One row of the table."""

    name: str
    expected: str
    observed: str = ""
    ok: bool = False
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Done:
    """A finished CLI command."""

    args: list[str]
    rc: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def error_lines(self) -> list[str]:
        return self.stderr.splitlines()

    def brief(self) -> dict[str, Any]:
        return {
            "command": "kgverify " + " ".join(self.args),
            "rc": self.rc,
            "stderr": self.stderr.strip()[-600:],
            "seconds": round(self.seconds, 2),
        }


Trigger = Callable[[], "dict[str, Any] | None"]


@dataclass
class Job:
    """A CLI command running in the background."""

    proc: subprocess.Popen[bytes]
    args: list[str]
    out: Path
    err: Path
    started: float

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def finish(self, timeout: float = 300) -> Done:
        """Wait for it (killed past ``timeout``) and return what it did."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        return Done(
            self.args,
            self.proc.returncode,
            self.out.read_text(errors="replace"),
            self.err.read_text(errors="replace"),
            time.monotonic() - self.started,
        )


def _report(done: Done) -> dict[str, Any]:
    """The load report a ``--json`` load printed (also printed when it was held or had too
    many rejects), reduced to what the table needs; empty when it printed none."""
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return {}
    files = report.get("files") or []
    return {
        "status": report.get("status"),
        "read": sum(f.get("read", 0) for f in files),
        "rejected": sum(f.get("rejected", 0) for f in files),
        "retired_concepts": report.get("retired_concepts"),
        "would_retire_concepts": report.get("would_retire_concepts"),
        "would_retire_relationships": report.get("would_retire_relationships"),
    }


def _said(done: Done, limit: int = 90) -> str:
    """What a load said: its report's key figures, else its error line."""
    report = _report(done)
    if report:
        return (
            f"{report['status']}, {report['rejected']} of {report['read']} rows rejected, "
            f"retired {report['retired_concepts']} concepts, the guard counted "
            f"{report['would_retire_concepts']} concepts and "
            f"{report['would_retire_relationships']} edges to retire"
        )
    return _one_line(done.stderr.removeprefix("error: "), limit) or "no output"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _kgverify() -> list[str]:
    script = Path(sys.executable).with_name("kgverify")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "kgverify"]


def _short(fp: tuple[int, int, str] | None) -> str:
    return "none" if fp is None else f"{fp[0]} nodes, {fp[1]} rels, {fp[2][:10]}"


def _one_line(text: str, limit: int = 160) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


# -- the suite ----------------------------------------------------------------------------------


class Suite:
    """A private server, its settings and environment, and the helpers every probe uses."""

    def __init__(self, work: Path) -> None:
        self.work = work
        cache = work / "cache"
        (cache / "neo4j-local").mkdir(parents=True)
        # The launcher built once in the shared cache, linked under this run's cache: the
        # server, neo4j-admin import and the CLI find it without Maven.
        build = local_server.ensure_built(Settings())
        (cache / "neo4j-local" / build.name).symlink_to(build, target_is_directory=True)
        # No HTTP connector where the server has one (Neo4j Browser): a private server
        # needs only Bolt, and must not take the default HTTP port from anyone.
        no_http: dict[str, Any] = {"http_port": 0} if "http_port" in Settings.model_fields else {}
        self.settings = Settings(
            neo4j_home=work / "neo4j",
            bolt_port=_free_port(),
            cache_dir=cache,
            neo4j_heap="512m",
            neo4j_pagecache="128m",
            **no_http,
        )
        self.server = LocalServer(self.settings)
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("KGVERIFY_", "NEO4J_")) and k != "XDG_CACHE_HOME"
        }
        self.env.update(
            KGVERIFY_NEO4J_HOME=str(self.settings.local_home),
            KGVERIFY_BOLT_PORT=str(self.settings.bolt_port),
            KGVERIFY_CACHE_DIR=str(cache),
            KGVERIFY_NEO4J_HEAP=self.settings.neo4j_heap,
            KGVERIFY_NEO4J_PAGECACHE=self.settings.neo4j_pagecache,
            **{f"KGVERIFY_{k.upper()}": str(v) for k, v in no_http.items()},
        )
        self._graph: Graph | None = None
        self.refs: dict[str, tuple[int, int, str]] = {}
        self.clean_edges = 0
        self.clean_concepts = 0
        self.snaps: dict[str, dict[str, dict[str, Any]]] = {}
        self.order_diff: list[str] = []
        self._runs = 0

    # graph ------------------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        if self._graph is None:
            self._graph = Graph.connect(self.settings)
        return self._graph

    def disconnect(self) -> None:
        if self._graph is not None:
            with suppress(Exception):  # a dead server's driver may complain on close
                self._graph.close()
            self._graph = None

    def reset(self) -> None:
        delete_all(self.graph)
        ensure_schema(self.graph)

    def api_load(self, vocabulary: str, path: Path) -> None:
        self._runs += 1
        load_vocabulary(
            vocabulary,
            path,
            settings=self.settings,
            graph=self.graph,
            rejects_path=self.work / f"api-rejects-{self._runs}.jsonl",
        )

    def state(self) -> dict[str, Any]:
        found = rows(self.graph, STATE)[0]
        return {
            "concepts": found["concepts"],
            "edges": found["edges"],
            "releases": found["releases"],
        }

    def releases(self) -> dict[str, dict[str, Any]]:
        found = rows(
            self.graph, "MATCH (r:Release) RETURN r.id AS id, r.status AS s, r.current AS c"
        )
        return {r["id"]: {"status": r["s"], "current": bool(r["c"])} for r in found}

    def count(self, cypher: str) -> int:
        return int(value(self.graph, cypher))

    def fp(self, *, concepts_only: bool = False) -> tuple[int, int, str]:
        return fingerprint(self.graph, concepts_only=concepts_only)

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Every node and relationship keyed, with the properties ``fingerprint`` hashes:
        to say what differs when two fingerprints do not match."""
        out: dict[str, dict[str, Any]] = {}
        for n in rows(self.graph, "MATCH (n) RETURN n.id AS k, labels(n) AS l, properties(n) AS p"):
            out[f"({n['k']})"] = {"labels": sorted(n["l"]), **n["p"]}
        for r in rows(
            self.graph,
            "MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p",
        ):
            tag = f"{r['p'].get('sab', '')}/{r['p'].get('group', '')}"
            key = f"({r['a']})-[{r['t']} {tag}]->({r['b']})"
            while key in out:
                key += "'"
            out[key] = r["p"]
        return {
            k: {p: v for p, v in props.items() if p not in VOLATILE} for k, props in out.items()
        }

    # CLI --------------------------------------------------------------------------------
    def cli(self, *args: str, timeout: float = 300) -> Done:
        started = time.monotonic()
        done = subprocess.run(
            [*_kgverify(), *args],
            env=self.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return Done(
            list(args), done.returncode, done.stdout, done.stderr, time.monotonic() - started
        )

    def spawn(self, *args: str, env: dict[str, str] | None = None) -> Job:
        """A CLI command started in the background (its output to files); ``env`` adds to
        the suite's environment."""
        self._runs += 1
        out, err = self.work / f"run-{self._runs}.out", self.work / f"run-{self._runs}.err"
        with out.open("wb") as stdout, err.open("wb") as stderr:
            proc = subprocess.Popen(
                [*_kgverify(), *args],
                env={**self.env, **(env or {})},
                cwd=ROOT,
                stdout=stdout,
                stderr=stderr,
            )
        return Job(proc, list(args), out, err, time.monotonic())

    def quick_state(self) -> dict[str, Any] | None:
        """``state`` in one auto-commit call without retries; None when the server does not
        answer (a bulk load stops it, a probe kills it)."""
        if not (self.settings.local_home / "ready").is_file():
            return None
        try:
            with self.graph._driver.session(database=self.graph.database) as session:
                found = session.run(STATE).single()
        except Exception:  # the command may have stopped the server
            self.disconnect()
            return None
        return None if found is None else found.data()

    def when_count(self, cypher: str, at_least: int) -> Trigger:
        """A trigger on one count (``RETURN count(...)``) reaching ``at_least``, read in one
        auto-commit call like ``quick_state``."""

        def trigger() -> dict[str, Any] | None:
            try:
                with self.graph._driver.session(database=self.graph.database) as session:
                    found = session.run(cypher).single()
            except Exception:
                self.disconnect()
                return None
            n = int(found[0]) if found is not None else 0
            return {"count": n} if n >= at_least else None

        return trigger

    def when_graph(self, test: Callable[[dict[str, Any]], bool]) -> Trigger:
        """A trigger on the graph's state (concepts, typed edges, releases)."""

        def trigger() -> dict[str, Any] | None:
            now = self.quick_state()
            return now if now is not None and test(now) else None

        return trigger

    def watch(
        self, job: Job, trigger: Trigger, act: Callable[[], None], timeout: float = 180
    ) -> dict[str, Any]:
        """Poll ``trigger`` while ``job`` runs; the first time it returns what it saw, run
        ``act`` (a kill). Says whether it fired, when, and what was seen."""
        deadline = time.monotonic() + timeout
        while job.proc.poll() is None and time.monotonic() < deadline:
            seen = trigger()
            if seen is not None:
                act()
                after = round(time.monotonic() - job.started, 2)
                return {"fired": True, "at": seen, "after_s": after}
            time.sleep(0.02)
        return {"fired": False, "rc": job.proc.poll()}

    def server_pid(self) -> int | None:
        done = self.cli("neo4j", "status", "--json")
        pid = json.loads(done.stdout).get("pid") if done.stdout.strip() else None
        return int(pid) if pid else None

    def import_pids(self) -> list[int]:
        """neo4j-admin import processes working on this run's store."""
        found = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            home = str(self.settings.local_home).encode()
            if local_server.IMPORT_CLASS.encode() in cmdline and home in cmdline:
                found.append(int(proc.name))
        return found

    def forget_server(self) -> None:
        """After a kill of the JVM: drop the connection, reap the JVM if this process
        started it (else it lingers as a zombie)."""
        self.disconnect()
        for proc in local_server._STARTED:
            proc.poll()

    def stop_server(self) -> None:
        self.forget_server()
        self.server.stop()


# -- references ---------------------------------------------------------------------------------


def references(suite: Suite, groups: set[str]) -> dict[str, Any]:
    """Clean loads through the API: the fingerprints every probe compares with (and the
    snapshots that say what differs when one does not match)."""
    started = time.monotonic()
    plans = {"AA": [("umls", AA)]}
    if "concurrent" in groups:
        plans["AA_AB"] = [("umls", AA), ("umls", AB)]
        plans["UMLS_SNOMED"] = [("umls", AA), ("snomed", SCT)]
        plans["SNOMED_UMLS"] = [("snomed", SCT), ("umls", AA)]
    for name, loads in plans.items():
        suite.reset()
        for vocabulary, path in loads:
            suite.api_load(vocabulary, path)
        suite.refs[name] = suite.fp()
        suite.snaps[name] = suite.snapshot()
        if name == "AA":
            suite.refs["AA_concepts"] = suite.fp(concepts_only=True)
            clean = suite.state()
            suite.clean_edges, suite.clean_concepts = clean["edges"], clean["concepts"]
    orders = []
    if suite.refs.get("UMLS_SNOMED") != suite.refs.get("SNOMED_UMLS"):
        orders = differences(suite.snaps["UMLS_SNOMED"], suite.snaps["SNOMED_UMLS"])
        suite.order_diff = orders
    return {
        "fingerprints": {k: list(v) for k, v in suite.refs.items()},
        "umls_concepts": suite.clean_concepts,
        "typed_umls_edges": suite.clean_edges,
        "umls_then_snomed_vs_snomed_then_umls": orders,
        "seconds": round(time.monotonic() - started, 2),
    }


def differences(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> list[str]:
    """What differs between two snapshots: counts, how many items differ in each property,
    and one example per property (reference value -> value here)."""
    only_before = sorted(set(before) - set(after))
    only_after = sorted(set(after) - set(before))
    changed = 0
    per_property: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for key in sorted(set(before) & set(after)):
        one, two = before[key], after[key]
        if one == two:
            continue
        changed += 1
        for prop in sorted(p for p in set(one) | set(two) if one.get(p) != two.get(p)):
            per_property[prop] += 1
            examples.setdefault(prop, f"{key}: {prop} {one.get(prop)!r} -> {two.get(prop)!r}")
    tally = ", ".join(f"{prop} {n}" for prop, n in per_property.most_common())
    out = [
        f"{len(only_before)} only in the reference, {len(only_after)} only here, "
        f"{changed} with other properties" + (f" ({tally})" if tally else "")
    ]
    out += [f"only in reference: {k}" for k in only_before[:3]]
    out += [f"only here: {k}" for k in only_after[:3]]
    out += [example[:300] for example in examples.values()]
    return out


# -- 1. kill of the client ----------------------------------------------------------------------


def client_kill(suite: Suite) -> list[Probe]:
    edges = suite.clean_edges
    points: list[tuple[str, Trigger]] = [
        ("Release node registered", suite.when_graph(lambda s: bool(s["releases"]))),
        (
            "half the concepts written",
            suite.when_graph(lambda s: s["concepts"] >= suite.clean_concepts / 2),
        ),
        ("10% of the typed edges written", suite.when_graph(lambda s: s["edges"] >= edges * 0.1)),
        ("90% of the typed edges written", suite.when_graph(lambda s: s["edges"] >= edges * 0.9)),
    ]
    command = ("load", "umls", str(AA), "--batch-size", str(KILL_BATCH))
    probes = []
    for label, when in points:
        started = time.monotonic()
        probe = Probe(
            f"1. client SIGKILL at: {label}; same command again",
            "rerun exit 0; graph = clean 2025AA load; UMLS@2025AA complete, current",
        )
        suite.reset()
        job = suite.spawn(*command)
        seen = suite.watch(job, when, job.kill)
        job.kill()
        at_kill = suite.state()
        rerun = suite.cli(*command)
        fp = suite.fp()
        rel = suite.releases().get("UMLS@2025AA", {})
        probe.ok = (
            rerun.rc == 0
            and fp == suite.refs["AA"]
            and rel == {"status": "complete", "current": True}
        )
        killed = (
            f"killed after {seen['after_s']} s with {at_kill['concepts']} concepts, "
            f"{at_kill['edges']}/{edges} typed edges, release {at_kill['releases'] or 'none'}"
            if seen["fired"]
            else f"NOT killed: the load ended first (rc {job.proc.returncode})"
        )
        probe.observed = (
            f"{killed}; rerun exit {rerun.rc}; graph "
            f"{'= clean' if fp == suite.refs['AA'] else '!= clean (' + _short(fp) + ')'}; "
            f"2025AA {rel.get('status')}{', current' if rel.get('current') else ''}"
        )
        probe.details = {
            "kill": seen,
            "at_kill": at_kill,
            "rerun": rerun.brief(),
            "fingerprint": fp,
        }
        if fp != suite.refs["AA"]:
            here = suite.snapshot()
            probe.details["differences"] = differences(suite.snaps["AA"], here)
        probe.seconds = round(time.monotonic() - started, 2)
        probes.append(probe)
    return probes


# -- 4. damaged newer releases --------------------------------------------------------------------


def _copy(release: Path, into: Path) -> Path:
    target = into / release.name
    shutil.copytree(release, target)
    return target


def _cut(release: Path, into: Path, share: float) -> Path:
    target = _copy(release, into)
    conso = target / "META" / "MRCONSO.RRF"
    data = conso.read_bytes()
    conso.write_bytes(data[: int(len(data) * share)])  # an interrupted copy: mid-line
    return target


def _renamed(into: Path, share: float) -> tuple[Path, int]:
    """2025AA relabelled 2025AB with ``share`` of its CUIs renamed consistently in every
    file (C0xxxxxx -> C7xxxxxx): no file shrinks, nothing dangles, the old CUIs are gone."""
    import re

    target = into / "2025AB"
    shutil.copytree(AA, target)
    conso = (target / "META" / "MRCONSO.RRF").read_text(encoding="utf-8")
    cuis = sorted({line.split("|", 1)[0] for line in conso.splitlines()})
    renamed = set(random.Random(7).sample(cuis, int(len(cuis) * share)))
    mapping = {cui: "C7" + cui[2:] for cui in renamed}
    for dat in target.rglob("release.dat"):
        dat.write_text(dat.read_text().replace("2025AA", "2025AB"))
    for path in (target / "META").glob("*.RRF"):
        text = path.read_text(encoding="utf-8")
        path.write_text(
            re.sub(r"\bC\d{7}\b", lambda m: mapping.get(m.group(0), m.group(0)), text),
            encoding="utf-8",
        )
    return target, len(renamed)


def damaged(suite: Suite) -> list[Probe]:
    work = suite.work / "damaged"
    suite.reset()
    suite.api_load("umls", AA)
    assert suite.fp() == suite.refs["AA"]
    probes = []

    def case(
        name: str,
        expected: str,
        path: Path,
        check: Callable[[Done, dict[str, Any]], bool],
        vocabulary: str = "umls",
    ) -> Done:
        started = time.monotonic()
        before = {"fp": suite.fp(), "retired": suite.count(RETIRED)}
        done = suite.cli("load", vocabulary, str(path))
        after: dict[str, Any] = {
            "fp": suite.fp(),
            "retired": suite.count(RETIRED),
            "releases": suite.releases(),
            "active_edges_between_retired": suite.count(ACTIVE_BETWEEN_RETIRED),
        }
        probe = Probe(
            name, expected, details={"run": done.brief(), "before": before, "after": after}
        )
        probe.ok = check(done, {"before": before, **after})
        rels = ", ".join(
            f"{k.split('@')[1]} {v['status']}{' current' if v['current'] else ''}"
            for k, v in sorted(after["releases"].items())
        )
        probe.observed = (
            f"exit {done.rc}; graph {'unchanged' if after['fp'] == before['fp'] else 'changed'}; "
            f"retired {before['retired']} -> {after['retired']}; {rels}; "
            f"{_one_line(done.stderr.removeprefix('error: '), 150)}"
        )
        probe.seconds = round(time.monotonic() - started, 2)
        probes.append(probe)
        return done

    def unchanged(rc: int) -> Callable[[Done, dict[str, Any]], bool]:
        return lambda d, s: d.rc == rc and s["fp"] == s["before"]["fp"]

    empty = _copy(AB, work / "empty")
    (empty / "META" / "MRCONSO.RRF").write_text("")
    case("4a. newer release, MRCONSO empty", "exit 2; nothing written", empty, unchanged(2))
    case(
        "4b. newer release, MRCONSO cut at 50% of its bytes",
        "exit 4; nothing written",
        _cut(AB, work / "half", 0.5),
        unchanged(4),
    )

    case(
        "4c. newer release, MRCONSO cut at 97% of its bytes",
        "exit 4 (its last line has no newline); nothing written",
        _cut(AB, work / "cut97", 0.97),
        unchanged(4),
    )
    wrong, renamed = _renamed(work / "wrong", 0.4)

    def held(d: Done, s: dict[str, Any]) -> bool:
        # Held before any write (issue 35): no Release node of it, the graph unchanged.
        rel = s["releases"]
        return (
            d.rc == 4
            and s["fp"] == s["before"]["fp"]
            and "UMLS@2025AB" not in rel
            and rel.get("UMLS@2025AA", {}).get("current") is True
        )

    case(
        f"4d. wrong-source release (2025AA relabelled, 40% = {renamed} CUIs renamed)",
        "exit 4; held before any write; graph unchanged; 2025AA current",
        wrong,
        held,
    )
    started = time.monotonic()
    before = suite.count(RETIRED)
    allowed = suite.cli("load", "umls", str(wrong), "--allow-retire")
    retired = suite.count(RETIRED)
    between = suite.count(ACTIVE_BETWEEN_RETIRED)
    rels = suite.releases()
    probe = Probe(
        "4e. the same with --allow-retire",
        f"exit 0; {renamed} concepts retired; no active edge with a retired end; 2025AB current",
        ok=allowed.rc == 0
        and retired == renamed
        and between == 0
        and rels.get("UMLS@2025AB") == {"status": "complete", "current": True},
        details={
            "run": allowed.brief(),
            "retired": retired,
            "active_edges_between_retired": between,
        },
    )
    probe.observed = (
        f"exit {allowed.rc}; retired {before} -> {retired}; active edges with a retired end "
        f"{between}; 2025AB {rels.get('UMLS@2025AB')}"
    )
    probe.seconds = round(time.monotonic() - started, 2)
    probes.append(probe)

    # Completeness per format (issue 35): newer RxNorm and SNOMED CT releases missing what
    # names come from, or cut mid-line, over the older ones; each refused, nothing written.
    suite.api_load("rxnorm", RX)
    suite.api_load("snomed", SCT)
    no_sat = _copy(RX_FEB, work / "no_sat")
    (no_sat / "rrf" / "RXNSAT.RRF").unlink()
    case(
        "4f. newer RxNorm without RXNSAT", "exit 2; nothing written", no_sat, unchanged(2), "rxnorm"
    )
    cut = _copy(RX_FEB, work / "cut40")
    conso = cut / "rrf" / "RXNCONSO.RRF"
    conso.write_bytes(conso.read_bytes()[:-40])
    case(
        "4g. newer RxNorm, RXNCONSO cut 40 bytes short",
        "exit 4 (its last line has no newline); nothing written",
        cut,
        unchanged(4),
        "rxnorm",
    )
    case(
        "4h. newer SNOMED CT, every description inactive",
        "exit 4 (concepts without a name); nothing written",
        _inactive_descriptions(SCT_JUN, work / "inactive"),
        unchanged(4),
        "snomed",
    )
    no_lang = _copy(SCT_JUN, work / "no_language")
    next(no_lang.rglob("der2_cRefset_Language*")).unlink()
    case(
        "4k. newer SNOMED CT without its language refset",
        "exit 2; nothing written",
        no_lang,
        unchanged(2),
        "snomed",
    )
    rel_cut = _copy(RX_FEB, work / "rxnrel98")
    rxnrel = rel_cut / "rrf" / "RXNREL.RRF"
    data = rxnrel.read_bytes()
    rxnrel.write_bytes(data[: int(len(data) * 0.98)])
    case(
        "4l. newer RxNorm, RXNREL cut at 98% of its bytes",
        "exit 4 (its last line has no newline); nothing written",
        rel_cut,
        unchanged(4),
        "rxnorm",
    )
    case(
        "4i. newer SNOMED CT, every concept inactive",
        "exit 4 (would inactivate every concept); held before any write; graph unchanged",
        _inactive_concepts(SCT_JUN, work / "inactive_concepts"),
        unchanged(4),
        "snomed",
    )
    case(
        "4j. newer RxNorm, a fifth of its RXCUIs renamed",
        "exit 4 (would rename too many); held before any write; graph unchanged",
        _renamed_rxcuis(RX_FEB, work / "renamed", 0.2),
        unchanged(4),
        "rxnorm",
    )
    return probes


def _inactive_concepts(release: Path, into: Path) -> Path:
    return _inactivated(release, into, "sct2_Concept_Snapshot*")


def _renamed_rxcuis(release: Path, into: Path, share: float) -> Path:
    """A copy of ``release`` with ``share`` of its RXCUIs renamed (``rename_rxcuis``)."""
    target = _copy(release, into)
    rename_rxcuis(target, share)
    return target


def _inactive_descriptions(release: Path, into: Path) -> Path:
    return _inactivated(release, into, "sct2_Description_Snapshot*")


def _inactivated(release: Path, into: Path, pattern: str) -> Path:
    """A copy of an RF2 release with every row of the file ``pattern`` names inactive."""
    target = _copy(release, into)
    inactivate_rf2(target, pattern)
    return target


# -- 3. concurrent loads --------------------------------------------------------------------------


def _together(suite: Suite, *commands: tuple[str, ...]) -> list[Done]:
    jobs = [suite.spawn(*command) for command in commands]
    return [job.finish() for job in jobs]


def _releases_text(rels: dict[str, dict[str, Any]]) -> str:
    return ", ".join(
        f"{k} {v['status']}{' current' if v['current'] else ''}" for k, v in sorted(rels.items())
    )


def concurrent(suite: Suite) -> list[Probe]:
    probes = []
    # Two releases of one vocabulary at once.
    started = time.monotonic()
    suite.reset()
    aa, ab = _together(
        suite, ("load", "umls", str(AA), "--json"), ("load", "umls", str(AB), "--json")
    )
    rels_now, fp_now = suite.releases(), suite.fp()
    marks = rows(
        suite.graph,
        "MATCH (c:UMLS) RETURN c.release AS release, c.first_release AS first, "
        "c.active AS active, count(*) AS n ORDER BY release, first, active",
    )
    first = Probe(
        "3a. 2025AA and 2025AB loaded at once",
        "one load per vocabulary: one exits 0 and is current, the other exits 2 with one "
        "line (another load running, or older than the loaded one), nothing of it written",
        details={
            "aa": {**aa.brief(), "report": _report(aa)},
            "ab": {**ab.brief(), "report": _report(ab)},
            "releases": rels_now,
            "umls_concepts_by_release_first_release_active": marks,
            "fingerprint": fp_now,
        },
    )
    winner, loser = (aa, ab) if aa.rc == 0 else (ab, aa)
    won = "UMLS@2025AA" if winner is aa else "UMLS@2025AB"
    first.ok = (
        winner.rc == 0
        and loser.rc == 2
        and len(loser.stderr.strip().splitlines()) == 1
        and ("another load of UMLS" in loser.stderr or "older than" in loser.stderr)
        and rels_now.get(won, {}).get("current") is True
        and all(v["status"] == "complete" for v in rels_now.values())
        and (winner is ab or fp_now == suite.refs["AA"])
    )
    first.observed = (
        f"AA exit {aa.rc} ({_said(aa)}); AB exit {ab.rc} ({_said(ab)}); "
        f"{_releases_text(rels_now)}; graph "
    )
    ref = "AA" if winner is aa else "AA_AB"  # what the winner alone should leave
    if fp_now == suite.refs[ref]:
        first.observed += f"= a clean load of {won}" if ref == "AA" else "= AA then AB"
    elif ref not in suite.snaps:
        first.observed += f"!= the clean load ({_short(fp_now)})"
    else:
        diff = differences(suite.snaps[ref], suite.snapshot())
        first.details["differences"] = diff
        first.observed += f"!= the reference: {diff[0]}"
    first.seconds = round(time.monotonic() - started, 2)
    probes.append(first)

    # What a user does next: both commands again, in release order.
    started = time.monotonic()
    again_aa = suite.cli("load", "umls", str(AA))
    again_ab = suite.cli("load", "umls", str(AB))
    rels, fp = suite.releases(), suite.fp()
    loading = [k for k, v in rels.items() if v["status"] == "loading"]
    second = Probe(
        "3b. after 3a: load 2025AA, then 2025AB again",
        "AB exit 0; 2025AB current; no release loading; graph = AA then AB (when AA won "
        "3a; when AB won, AA is refused as older)",
        details={
            "aa": again_aa.brief(),
            "ab": again_ab.brief(),
            "releases": rels,
            "fingerprint": fp,
        },
    )
    # When 2025AB won the race, 2025AA is older than the current release (refused, exit 2)
    # and the graph is 2025AB loaded alone: first_release marks differ from AA then AB.
    second.ok = (
        again_ab.rc == 0
        and rels.get("UMLS@2025AB", {}).get("current") is True
        and not loading
        and (fp == suite.refs["AA_AB"] if winner is aa else again_aa.rc == 2)
    )
    second.observed = (
        f"AA exit {again_aa.rc}"
        + (f" ({_one_line(again_aa.stderr.removeprefix('error: '), 80)})" if again_aa.rc else "")
        + f"; AB exit {again_ab.rc}; {_releases_text(rels)}; graph "
        f"{'= AA then AB' if fp == suite.refs['AA_AB'] else '!= AA then AB (' + _short(fp) + ')'}"
    )
    if fp != suite.refs["AA_AB"]:
        here = suite.snapshot()
        diff = differences(suite.snaps["AA_AB"], here)
        second.details["differences"] = diff
        second.observed += f"; {diff[0]}"
    second.seconds = round(time.monotonic() - started, 2)
    probes.append(second)

    # Two vocabularies at once.
    started = time.monotonic()
    suite.reset()
    umls, snomed = _together(suite, ("load", "umls", str(AA)), ("load", "snomed", str(SCT)))
    rels, fp = suite.releases(), suite.fp()
    orders = {
        "UMLS then SNOMED": suite.refs["UMLS_SNOMED"],
        "SNOMED then UMLS": suite.refs["SNOMED_UMLS"],
    }
    same = [name for name, ref in orders.items() if ref == fp]
    third = Probe(
        "3c. UMLS 2025AA and SNOMED CT 20250101 loaded at once",
        "both exit 0; both current; graph = a sequential load of the two",
        details={
            "umls": umls.brief(),
            "snomed": snomed.brief(),
            "releases": rels,
            "fingerprint": fp,
            "sequential_orders_equal": suite.refs["UMLS_SNOMED"] == suite.refs["SNOMED_UMLS"],
        },
    )
    third.ok = (
        umls.rc == 0 and snomed.rc == 0 and bool(same) and all(v["current"] for v in rels.values())
    )
    third.observed = (
        f"UMLS exit {umls.rc}, SNOMED exit {snomed.rc}; {_releases_text(rels)}; graph "
        + (f"= {' and '.join(same)}" if same else "!= either sequential order")
        + (
            ""
            if suite.refs["UMLS_SNOMED"] == suite.refs["SNOMED_UMLS"]
            else f" (the two sequential orders differ: {suite.order_diff[0]})"
        )
    )
    if not same:
        here = suite.snapshot()
        diff = differences(suite.snaps["UMLS_SNOMED"], here)
        third.details["differences"] = diff
        third.observed += f"; vs UMLS then SNOMED: {diff[0]}"
    third.seconds = round(time.monotonic() - started, 2)
    probes.append(third)
    return probes


# -- 2. kill of the JVM ----------------------------------------------------------------------------


def jvm_kill(suite: Suite) -> list[Probe]:
    started = time.monotonic()
    probe = Probe(
        "2. JVM SIGKILL mid-load (typed edges being written); neo4j start; load again",
        "client: exit 2, one error line; start: recovers, exit 0; rerun exit 0; "
        "graph = clean 2025AA",
    )
    suite.reset()
    pid = suite.server_pid()
    if pid is None:
        probe.observed = "no server pid from `kgverify neo4j status --json`"
        return [probe]
    command = ("load", "umls", str(AA), "--batch-size", str(KILL_BATCH))
    edges = suite.clean_edges
    job = suite.spawn(*command)
    seen = suite.watch(
        job,
        suite.when_graph(lambda s: s["edges"] >= edges * 0.3),
        lambda: os.kill(pid, signal.SIGKILL),
    )
    client = job.finish(timeout=180)
    suite.forget_server()
    starts = [suite.cli("neo4j", "start", timeout=400)]
    if starts[-1].rc != 0:  # the docs: `neo4j start` again keeps waiting for a recovery
        starts.append(suite.cli("neo4j", "start", timeout=400))
    restart = starts[-1]
    recovery_lines = [
        line for done in starts for line in done.stderr.splitlines() if "recovery" in line
    ]
    rerun = suite.cli(*command)
    up = suite.server.status().running
    fp = suite.fp() if up else None
    rel = suite.releases().get("UMLS@2025AA", {}) if up else {}
    one_line = len(client.error_lines) == 1 and client.stderr.startswith("error: ")
    probe.ok = (
        bool(seen["fired"])
        and client.rc == 2
        and one_line
        and "Traceback" not in client.stderr
        and len(starts) == 1
        and restart.rc == 0
        and rerun.rc == 0
        and fp == suite.refs["AA"]
        and rel == {"status": "complete", "current": True}
    )
    at = seen.get("at") or {}
    probe.observed = (
        (
            f"JVM killed after {seen['after_s']} s at {at.get('edges')}/{edges} typed edges"
            if seen["fired"]
            else "NOT killed: the load ended first"
        )
        + f"; client exit {client.rc}, {len(client.error_lines)} stderr line(s): "
        f"{_one_line(client.stderr, 110)!r}; "
        + "; ".join(
            f"`neo4j start` exit {d.rc}"
            + (f" ({_one_line(d.stderr.removeprefix('error: '), 120)})" if d.rc else "")
            for d in starts
        )
        + (f" ({recovery_lines[-1]})" if recovery_lines else " (no recovery reported)")
        + f"; rerun exit {rerun.rc}; graph "
        f"{'= clean' if fp == suite.refs['AA'] else '!= clean (' + _short(fp) + ')'}; "
        f"2025AA {rel.get('status')}{', current' if rel.get('current') else ''}"
    )
    probe.details = {
        "kill": seen,
        "client": client.brief(),
        "starts": [d.brief() for d in starts],
        "recovery_lines": recovery_lines,
        "rerun": rerun.brief(),
        "fingerprint": fp,
    }
    probe.seconds = round(time.monotonic() - started, 2)
    return [probe]


# -- 5. --bulk under a client kill ---------------------------------------------------------------


def bulk(suite: Suite) -> list[Probe]:
    folder = suite.settings.cache_dir / "bulk" / "UMLS-2025AA"
    command = ("load", "umls", str(AA), "--bulk")

    def csv_files() -> dict[str, Any] | None:
        found = sorted(p.name for p in folder.glob("*.csv")) if folder.is_dir() else []
        return {"csv_files": found} if found else None

    def importing() -> dict[str, Any] | None:
        pids = suite.import_pids()
        return {"import_pids": pids} if pids else None

    points: list[tuple[str, Trigger]] = [
        ("while it writes the CSVs", csv_files),
        ("while neo4j-admin imports", importing),
        (
            "after the import (Release node registered)",
            suite.when_graph(lambda s: any(r.startswith("UMLS@2025AA") for r in s["releases"])),
        ),
    ]
    probes = []
    for label, when in points:
        started = time.monotonic()
        probe = Probe(
            f"5. --bulk into the emptied database, client SIGKILL {label}; recover",
            "the rerun (or the command the error names) finishes; concepts and edges = "
            "clean 2025AA; 2025AA complete, current",
        )
        if not suite.server.status().running:
            suite.server.start()
        suite.reset()
        shutil.rmtree(folder, ignore_errors=True)
        job = suite.spawn(*command)
        seen = suite.watch(job, when, job.kill)
        job.kill()
        # A killed client does not take its neo4j-admin child with it: wait for it.
        orphans = suite.import_pids()
        waited = time.monotonic()
        while suite.import_pids() and time.monotonic() - waited < 180:
            time.sleep(0.2)
        orphan_s = round(time.monotonic() - waited, 2) if orphans else None
        suite.disconnect()
        running = suite.server.status().running
        after_kill = suite.quick_state()
        left = ", ".join(after_kill["releases"]) if after_kill and after_kill["releases"] else None
        steps: list[Done] = []
        for _ in range(4):
            done = suite.cli(*command)
            steps.append(done)
            if done.rc == 0:
                break
            if "graph reset" in done.stderr:
                steps.append(suite.cli("graph", "reset", "--yes"))
            elif "kgverify neo4j start" in done.stderr or "not running" in done.stderr:
                steps.append(suite.cli("neo4j", "start", timeout=400))
            else:
                break
        if not suite.server.status().running:
            suite.cli("neo4j", "start", timeout=400)
        fp = suite.fp(concepts_only=True)
        rel = suite.releases().get("UMLS@2025AA", {})
        probe.ok = (
            bool(seen["fired"])
            and steps[-1].rc == 0
            and fp == suite.refs["AA_concepts"]
            and rel == {"status": "complete", "current": True}
        )
        path = " -> ".join(
            f"`{' '.join(d.args[:2]) if d.args[0] != 'load' else 'load --bulk'}` exit {d.rc}"
            for d in steps
        )
        told = next((d.stderr.strip() for d in steps if d.rc != 0 and d.stderr.strip()), "")
        probe.observed = (
            (
                f"killed after {seen['after_s']} s "
                f"(server {'running' if running else 'stopped'} after the kill; "
                f"release {left or 'none'}"
                + (f"; orphan neo4j-admin ran {orphan_s} s more" if orphans else "")
                + ")"
            )
            if seen["fired"]
            else "NOT killed: the load ended first"
        ) + f"; then {path}"
        if told:
            probe.observed += f"; error: {_one_line(told.removeprefix('error: '), 140)!r}"
        probe.observed += (
            f"; concepts/edges {'= clean' if fp == suite.refs['AA_concepts'] else '!= clean'}; "
            f"2025AA {rel.get('status')}{', current' if rel.get('current') else ''}"
        )
        probe.details = {
            "kill": seen,
            "server_running_after_kill": running,
            "state_after_kill": after_kill,
            "orphan_import_pids": orphans,
            "orphan_import_seconds": orphan_s,
            "steps": [d.brief() for d in steps],
            "fingerprint_concepts": fp,
        }
        probe.seconds = round(time.monotonic() - started, 2)
        probes.append(probe)
    return probes


# -- 6. server down ---------------------------------------------------------------------------


def server_down(suite: Suite) -> list[Probe]:
    suite.disconnect()
    stopped = suite.cli("neo4j", "stop")
    probes = []
    commands = {
        "load": ("load", "umls", str(AA)),
        "verify": (
            "verify",
            str(sample_path("relations", "llm_style.jsonl")),
            "-o",
            str(suite.work / "verdicts.jsonl"),
        ),
    }
    for name, command in commands.items():
        started = time.monotonic()
        done = suite.cli(*command)
        lines = done.error_lines
        probe = Probe(
            f"6. `kgverify {name}` with the server stopped",
            "exit 2; stderr exactly one `error:` line; no traceback",
            ok=done.rc == 2
            and len(lines) == 1
            and lines[0].startswith("error: ")
            and "Traceback" not in done.stdout + done.stderr,
            details={"stop": stopped.brief(), "run": done.brief()},
        )
        probe.observed = (
            f"exit {done.rc}; {len(lines)} stderr line(s): {_one_line(done.stderr, 150)!r}"
        )
        probe.seconds = round(time.monotonic() - started, 2)
        probes.append(probe)
    suite.server.start()  # the groups after this one need it
    return probes


# -- 7. host files --------------------------------------------------------------------------


def host_files(suite: Suite) -> list[Probe]:
    from kgverify.config import Settings

    salt = suite.work / "cache" / "pseudonym-salt"
    Settings(cache_dir=suite.work / "cache").salt()  # the owner-only file, made if missing
    probes = []
    targets = {"/etc/passwd": Path("/etc/passwd"), "the pseudonym salt": salt}
    for label, path in targets.items():
        for write in (False, True):
            started = time.monotonic()
            statement = f"LOAD CSV FROM 'file://{path}' AS line RETURN line LIMIT 1"
            done = suite.cli("cypher", statement, *(["--write"] if write else []))
            lines = done.error_lines
            probe = Probe(
                f"7. `kgverify cypher` LOAD CSV of {label}{' --write' if write else ''}",
                "exit != 0; one `error:` line; no row of the file",
                ok=done.rc != 0
                and len(lines) == 1
                and lines[0].startswith("error: ")
                and "cannot reach" not in lines[0]  # refused, not merely unanswered
                and "root:" not in done.stdout,
                details={"run": done.brief()},
            )
            probe.observed = f"exit {done.rc}; {_one_line(done.stderr, 150)!r}"
            probe.seconds = round(time.monotonic() - started, 2)
            probes.append(probe)
    # Inputs that gave tracebacks (issue 35, point 8): one `error:` line or a rejected line.
    nested = suite.work / "nested.jsonl"
    nested.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    a_file = suite.work / "a-file"
    a_file.write_text("x\n")
    relations = str(sample_path("relations", "llm_style.jsonl"))
    commands = {
        "a 100,000-deep JSON line to `link`": (
            "link",
            str(nested),
            "-o",
            str(suite.work / "linked.jsonl"),
        ),
        "`audit rejected_relations -p limit=-1`": ("audit", "rejected_relations", "-p", "limit=-1"),
        "`verify -o` under an existing file": (
            "verify",
            relations,
            "-o",
            str(a_file / "verdicts.jsonl"),
        ),
    }
    for label, command in commands.items():
        started = time.monotonic()
        done = suite.cli(*command)
        errors = [line for line in done.error_lines if line.startswith("error: ")]
        probe = Probe(
            f"8. {label}",
            "exit != 0; one `error:` line; no traceback",
            ok=done.rc != 0
            and len(errors) == 1
            and "cannot reach" not in errors[0]
            and "Traceback" not in done.stdout + done.stderr,
            details={"run": done.brief()},
        )
        probe.observed = f"exit {done.rc}; {_one_line(errors[0] if errors else done.stderr, 150)!r}"
        probe.seconds = round(time.monotonic() - started, 2)
        probes.append(probe)
    # Patient data written owner-only whatever the umask (issue 35, point 7).
    started = time.monotonic()
    out = suite.work / "private" / "trajectories.jsonl"
    mask = os.umask(0)
    try:
        done = suite.cli(
            "trajectories", "omop", str(sample_path("omop", "eunomia_sample")), "-o", str(out)
        )
    finally:
        os.umask(mask)
    modes = {
        str(p.relative_to(suite.work)): oct(p.stat().st_mode & 0o777)
        for p in [out.parent, *out.parent.rglob("*")]
    }
    probe = Probe(
        "9. `trajectories -o` under umask 0",
        "exit 0; files 0600, the folder it made 0700",
        ok=done.rc == 0
        and all(
            mode == ("0o700" if (suite.work / name).is_dir() else "0o600")
            for name, mode in modes.items()
        ),
        details={"run": done.brief(), "modes": modes},
    )
    probe.observed = f"exit {done.rc}; " + ", ".join(f"{k} {v}" for k, v in modes.items())
    probe.seconds = round(time.monotonic() - started, 2)
    probes.append(probe)
    return probes


# -- 8. a starved server -------------------------------------------------------------------


def starved(suite: Suite) -> list[Probe]:
    home = suite.work / "starved"
    env = {
        **suite.env,
        "KGVERIFY_NEO4J_HOME": str(home),
        "KGVERIFY_BOLT_PORT": str(_free_port()),
        "KGVERIFY_NEO4J_HEAP": "48m",
        "KGVERIFY_NEO4J_PAGECACHE": "32m",
        "KGVERIFY_NEO4J_TX_TIMEOUT_S": "30",
    }

    def run(*args: str, timeout: float = 300) -> Done:
        started = time.monotonic()
        done = subprocess.run(
            [*_kgverify(), *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return Done(
            list(args), done.returncode, done.stdout, done.stderr, time.monotonic() - started
        )

    started = time.monotonic()
    boot = run("neo4j", "start")
    try:
        done = run("load", "umls", str(AA))
    finally:
        stop = run("neo4j", "stop")
    lines = done.error_lines
    probe = Probe(
        "8. `kgverify load umls` against a server with a 48 MB heap",
        "exit 2; one `error:` line; no row rejected; no traceback; no hang",
        ok=done.rc == 2
        and len(lines) == 1
        and lines[0].startswith("error: ")
        and "rejected" not in lines[0]
        and "Traceback" not in done.stdout + done.stderr,
        details={"start": boot.brief(), "run": done.brief(), "stop": stop.brief()},
    )
    probe.observed = (
        f"start exit {boot.rc}; load exit {done.rc} after {done.seconds:.1f} s; "
        f"{len(lines)} stderr line(s): {_one_line(done.stderr, 150)!r}"
    )
    probe.seconds = round(time.monotonic() - started, 2)
    return [probe]


# -- 9. finishes: kills between writing and publishing, full and read-only disks ------------

CURRENT_ITEMS = "MATCH (i:Item) WHERE i.current RETURN i.id AS id"
PENDING_ITEMS = "MATCH (i:Item) WHERE i.pending_run IS NOT NULL RETURN count(i)"
RECHECKS = (
    "MATCH (a:Assertion)-[:RECHECKED]->(c:Recheck) RETURN a.id AS assertion, c.id AS id, "
    "c.verdict AS verdict, c.passed AS passed, c.previous_verdict AS previous, "
    "c.changed AS changed, a.standing_verdict AS now ORDER BY id"
)


def _chain(suite: Suite) -> set[str]:
    """The sample chain in an emptied graph (the suite's cache: the same pseudonyms every
    time); the current items."""
    from kgverify.api import sample_pipeline

    suite.reset()
    sample_pipeline(suite.graph, suite.settings)
    return {r["id"] for r in rows(suite.graph, CURRENT_ITEMS)}


def _items_in(folder: Path) -> set[str]:
    return {
        json.loads(line)["item_id"]
        for path in folder.glob("*/*.jsonl")
        for line in path.read_text().splitlines()
    }


def _mounted(folder: Path, options: str) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def _one_error_line(done: Done) -> str | None:
    """The command's one ``error:`` line, when it failed with exactly that."""
    lines = done.error_lines
    if done.rc == 0 or len(lines) != 1 or not lines[0].startswith("error: "):
        return None
    return None if "Traceback" in done.stdout + done.stderr else lines[0]


def finishes(suite: Suite) -> list[Probe]:
    probes = [_killed_derivation(suite), _killed_reverify(suite)]
    probes += _unwritable(suite, "full", "size=16k,mode=0700")
    probes += _unwritable(suite, "read-only", "ro,size=16k")
    return probes


def _killed_derivation(suite: Suite) -> Probe:
    started = time.monotonic()
    old = _chain(suite)
    out = suite.work / "finish-qa"
    # Items written five at a time, so the kill lands while they are pending.
    job = suite.spawn(
        "derive", "qa", "--seed", "99", "-o", str(out), env={"KGVERIFY_BATCH_SIZE": "5"}
    )
    seen = suite.watch(job, suite.when_count(PENDING_ITEMS, max(1, len(old) // 2)), job.kill)
    killed = job.finish()
    after_kill = {r["id"] for r in rows(suite.graph, CURRENT_ITEMS)}
    pending = suite.count(PENDING_ITEMS)
    folder_after_kill = out.exists()  # its .partial may stay: a SIGKILL cleans nothing
    rerun = suite.cli("derive", "qa", "--seed", "99", "-o", str(out))
    new = {r["id"] for r in rows(suite.graph, CURRENT_ITEMS)}
    folder = _items_in(out) if out.is_dir() else set()
    probe = Probe(
        "9. `derive qa` SIGKILLed with its items written, not published; then again",
        "after the kill: the old items current, no new ones, no output folder; the rerun: "
        "exactly its folder's items current, none pending",
        ok=bool(seen["fired"])
        and after_kill == old
        and pending > 0
        and not folder_after_kill
        and rerun.rc == 0
        and new == folder
        and bool(new)
        and new != old
        and suite.count(PENDING_ITEMS) == 0,
        details={"kill": seen, "killed": killed.brief(), "rerun": rerun.brief()},
    )
    probe.observed = (
        f"killed at {seen.get('at')} pending (fired: {seen['fired']}); then {len(after_kill)} "
        f"current ({'the old set' if after_kill == old else 'NOT the old set'}), {pending} "
        f"pending, folder {'PRESENT' if folder_after_kill else 'absent'} before the rerun; "
        f"rerun exit {rerun.rc}: {len(new)} current, "
        f"{'= its folder' if new == folder else '!= its folder'}, "
        f"{suite.count(PENDING_ITEMS)} pending"
    )
    probe.seconds = round(time.monotonic() - started, 2)
    return probe


def _killed_reverify(suite: Suite) -> Probe:
    started = time.monotonic()
    _chain(suite)
    suite.api_load("snomed", SCT_JUN)
    clean = suite.cli("reverify", "--json")
    reference = rows(suite.graph, RECHECKS)
    _chain(suite)
    suite.api_load("snomed", SCT_JUN)
    job = suite.spawn("reverify", env={"KGVERIFY_BATCH_SIZE": "5"})
    seen = suite.watch(job, suite.when_count("MATCH (c:Recheck) RETURN count(c)", 1), job.kill)
    killed = job.finish()
    rerun = suite.cli("reverify", "--json")
    found = rows(suite.graph, RECHECKS)
    recheck_nodes = suite.count("MATCH (c:Recheck) RETURN count(c)")
    probe = Probe(
        "9. `reverify` SIGKILLed with rechecks written; then again",
        "the rerun leaves exactly the rechecks a clean run writes (one per assertion)",
        ok=clean.rc == 0
        and bool(reference)
        and bool(seen["fired"])
        and rerun.rc == 0
        and found == reference
        and recheck_nodes == len(reference),
        details={"kill": seen, "killed": killed.brief(), "rerun": rerun.brief()},
    )
    probe.observed = (
        f"clean run: {len(reference)} rechecks; killed at {seen.get('at')} (fired: "
        f"{seen['fired']}); rerun exit {rerun.rc}: {recheck_nodes} Recheck nodes, "
        f"{'the same as the clean run' if found == reference else 'NOT the clean run'}"
    )
    probe.seconds = round(time.monotonic() - started, 2)
    return probe


def _unwritable(suite: Suite, kind: str, options: str) -> list[Probe]:
    """Commands writing to a full (or read-only) 16 KiB tmpfs: one `error:` line each,
    nothing cut left under a final name, the current items unchanged."""
    folder = suite.work / kind
    sample_out = suite.settings.cache_dir / "sample"
    commands = {
        "derive qa": ("derive", "qa", "--seed", "5", "-o", str(folder / "qa")),
        "link": ("link", str(sample_out / "relations.jsonl"), "-o", str(folder / "l.jsonl")),
    }
    if kind == "full":
        commands |= {
            "extract": (
                "extract",
                "omop",
                str(sample_path("omop", "eunomia_sample")),
                "-o",
                str(folder / "r.jsonl"),
            ),
            "verify": ("verify", str(sample_out / "linked.jsonl"), "-o", str(folder / "v.jsonl")),
        }
    before = {r["id"] for r in rows(suite.graph, CURRENT_ITEMS)}
    if not _mounted(folder, options):
        return [Probe(f"9. a {kind} disk", "one `error:` line", "tmpfs could not be mounted here")]
    probes = []
    try:
        for label, command in commands.items():
            started = time.monotonic()
            done = suite.cli(*command)
            line = _one_error_line(done)
            left = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
            unchanged = {r["id"] for r in rows(suite.graph, CURRENT_ITEMS)} == before
            probe = Probe(
                f"9. `{label}` writing to a {kind} 16 KiB file system",
                "exit != 0; one `error:` line naming the cause; no file left; items unchanged",
                ok=line is not None and not left and unchanged,
                details={"run": done.brief(), "left": left},
            )
            probe.observed = (
                f"exit {done.rc}; {_one_line(done.stderr, 110)!r}; files left: {left or 'none'}; "
                f"current items {'unchanged' if unchanged else 'CHANGED'}"
            )
            probe.seconds = round(time.monotonic() - started, 2)
            probes.append(probe)
    finally:
        subprocess.run(["umount", str(folder)], check=False)
    return probes


# -- main -------------------------------------------------------------------------------------


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout.strip()


def table(probes: list[Probe]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| probe | expected | observed | ok | s |", "|---|---|---|---|---:|"]
    lines += [
        f"| {cell(p.name)} | {cell(p.expected)} | {cell(p.observed)} | "
        f"{'yes' if p.ok else '**NO**'} | {p.seconds:.1f} |"
        for p in probes
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    parser.add_argument("--only", help=f"comma-separated groups of {', '.join(GROUPS)}")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    if os.environ.get("NEO4J_URI"):
        raise SystemExit("the fault suite kills its own local server; unset NEO4J_URI")
    groups = set(args.only.split(",")) if args.only else set(GROUPS)
    unknown = groups - set(GROUPS)
    if unknown:
        raise SystemExit(f"unknown groups: {', '.join(sorted(unknown))}")

    began = time.monotonic()
    load_before = [round(x, 2) for x in os.getloadavg()]
    work = Path(tempfile.mkdtemp(prefix="kgverify-faults-"))
    probes: list[Probe] = []
    refs: dict[str, Any] = {}
    failure = None
    suite = Suite(work)
    try:
        print(f"[{time.monotonic() - began:6.1f} s] starting a private Neo4j in {work}", flush=True)
        suite.server.start()
        refs = references(suite, groups)
        print(f"[{time.monotonic() - began:6.1f} s] references loaded", flush=True)
        for group in GROUPS:
            if group not in groups:
                continue
            try:
                found = globals()[group](suite)
            except Exception as exc:  # one group's crash is a finding, not the end
                traceback.print_exc()
                found = [
                    Probe(f"{group}: aborted", "runs to the end", f"{type(exc).__name__}: {exc}")
                ]
                suite.disconnect()
                with suppress(Exception):
                    suite.server.start()
            for p in found:
                mark = "ok" if p.ok else "NO"
                print(
                    f"[{time.monotonic() - began:6.1f} s] {mark} {p.name}: {p.observed}", flush=True
                )
            probes += found
    except Exception as exc:  # report what ran, then fail
        failure = f"{type(exc).__name__}: {exc}"
        traceback.print_exc()
        print(f"suite aborted: {failure}", file=sys.stderr, flush=True)
    finally:
        suite.stop_server()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    for p in probes:  # the temporary folder is gone: say so rather than print its path
        p.observed = p.observed.replace(str(work), "<tmp>")
    print()
    print(table(probes))
    result = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "commit": _git("rev-parse", "--short", "HEAD"),
        "tree_modified": bool(_git("status", "--porcelain")),
        "machine": {
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_start": load_before,
            "load_average_end": [round(x, 2) for x in os.getloadavg()],
        },
        "seconds": round(time.monotonic() - began, 1),
        "references": refs,
        "aborted": failure,
        "probes": [asdict(p) for p in probes],
        "passed": sum(p.ok for p in probes),
        "failed": sum(not p.ok for p in probes),
    }
    print(f"\n{result['passed']} ok, {result['failed']} not ok, {result['seconds']} s")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(result, indent=2, default=str).replace(str(work), "<tmp>")
        args.out.write_text(text + "\n")
    if failure:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
