"""Small helpers for the e2e tests (test code, not engine queries): reads for assertions,
the template chain on the sample EHR that the derivation tests start from, and damaged
copies of releases (the fault suite, benchmarks/faults.py, uses them too)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from kgverify.config import Settings
from kgverify.graph import Graph

VOLATILE = {"started_at", "finished_at", "report", "seconds"}


def rows(graph: Graph, cypher: str, **params: Any) -> list[dict[str, Any]]:
    records = graph._driver.execute_query(cypher, params, database_=graph.database).records
    return [r.data() for r in records]


def value(graph: Graph, cypher: str, **params: Any) -> Any:
    found = rows(graph, cypher, **params)
    assert len(found) == 1, found
    return next(iter(found[0].values()))


def fingerprint(
    graph: Graph, *, concepts_only: bool = False, without_runs: bool = False
) -> tuple[int, int, str]:
    """Node count, relationship count and a hash of every property, list order included
    (timestamps excluded). ``concepts_only`` leaves out Release nodes and treats an empty
    list like a missing property (neo4j-admin import stores no empty arrays);
    ``without_runs`` leaves out the ``(:Run)`` nodes and their edges (every ingest makes one)."""
    where = "WHERE n:Concept" if concepts_only else "WHERE NOT n:Run" if without_runs else ""
    nodes = rows(graph, f"MATCH (n) {where} RETURN labels(n) AS l, properties(n) AS p")
    rels = rows(
        graph,
        "MATCH (a)-[r]->(b) WHERE NOT ($without_runs AND b:Run) "
        "RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p",
        without_runs=without_runs,
    )

    def clean(items: list[dict[str, Any]]) -> list[str]:
        out = []
        for item in items:
            props = {
                k: v
                for k, v in item["p"].items()
                if k not in VOLATILE and not (concepts_only and v == [])
            }
            out.append(
                json.dumps(
                    {**item, "l": sorted(item.get("l", [])), "p": props},
                    sort_keys=True,
                    default=str,
                )
            )
        return sorted(out)

    digest = hashlib.sha256("\n".join(clean(nodes) + clean(rels)).encode()).hexdigest()
    return len(nodes), len(rels), digest


def edge(graph: Graph, start: str, rel_type: str, end: str) -> dict[str, Any] | None:
    """Properties of the (first) edge of a type between two concept ids, or None."""
    found = rows(
        graph,
        "MATCH (a:Concept {id: $start})-[r]->(b:Concept {id: $end}) WHERE type(r) = $type "
        "RETURN properties(r) AS p",
        start=start,
        end=end,
        type=rel_type,
    )
    return found[0]["p"] if found else None


def differences(a: Graph, b: Graph, limit: int = 5) -> list[str]:
    """The first concept/relationship property differences between two graphs (for
    assertion messages): an empty list when they hold the same concepts and edges."""

    def snapshot(g: Graph) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for n in rows(g, "MATCH (n:Concept) RETURN n.id AS k, properties(n) AS p"):
            out[n["k"]] = n["p"]
        for r in rows(
            g,
            "MATCH (x)-[r]->(y) RETURN x.id + ' ' + type(r) + ' ' + y.id + ' ' "
            "+ coalesce(r.sab, '') + ' ' + toString(r.group) AS k, "
            "properties(r) AS p",
        ):
            out[r["k"]] = r["p"]
        return {
            k: {p: v for p, v in props.items() if p not in VOLATILE and v != []}
            for k, props in out.items()
        }

    left, right = snapshot(a), snapshot(b)
    found = []
    for key in sorted(set(left) | set(right)):
        one, two = left.get(key), right.get(key)
        if one != two:
            if one is None or two is None:
                found.append(f"{key}: only in {'right' if one is None else 'left'}")
            else:
                diff = {
                    p: (one.get(p), two.get(p))
                    for p in set(one) | set(two)
                    if one.get(p) != two.get(p)
                }
                found.append(f"{key}: {diff}")
        if len(found) >= limit:
            break
    return found


def verified_sample_ehr(graph: Graph, settings: Settings, tmp: Path) -> None:
    """The sample EHR ingested, its template relations extracted and verified (written
    back), on a graph that holds the sample vocabularies: what derivation reads."""
    from kgverify.api import extract_relations, ingest_source, sample_path, verify_relations_file

    eunomia = sample_path("omop", "eunomia_sample")
    ingest_source("omop", eunomia, settings=settings, graph=graph)
    extracted = extract_relations("omop", eunomia, tmp / "relations.jsonl", settings=settings)
    verify_relations_file(
        Path(extracted.out), tmp / "verdicts.jsonl", settings=settings, graph=graph
    )


def inactivate_rf2(release: Path, pattern: str) -> None:
    """Every row of the RF2 file of ``release`` that ``pattern`` names made inactive (its
    third column), in place."""
    path = next(release.rglob(pattern))
    header, *body = path.read_text(encoding="utf-8").splitlines(keepends=True)
    rows = [line.split("\t") for line in body]
    path.write_text(
        header + "".join("\t".join([*r[:2], "0", *r[3:]]) for r in rows), encoding="utf-8"
    )


def rename_rxcuis(release: Path, share: float) -> None:
    """``share`` of the RXCUIs named by an RxNorm atom get a new name, in place: the STR of
    every SAB=RXNORM atom of theirs changed (RXNCONSO's 15th column), chosen with a fixed
    seed."""
    path = next(release.rglob("RXNCONSO.RRF"))
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    named = sorted({line.split("|")[0] for line in lines if line.split("|")[11] == "RXNORM"})
    chosen = set(random.Random(7).sample(named, int(len(named) * share)))
    out = []
    for line in lines:
        fields = line.split("|")
        if fields[0] in chosen and fields[11] == "RXNORM":
            fields[14] = f"{fields[14]} (renamed)"
        out.append("|".join(fields))
    path.write_text("".join(out), encoding="utf-8")
