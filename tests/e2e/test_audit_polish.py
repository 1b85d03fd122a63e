"""The auditor's command line on the sample pipeline in the real Neo4j (issue 34, point 4):
an audit query imports no linker, `find` scores on one scale, the lineage text carries the
ids the next query takes, concepts by name, nested JSON decoded, the nearest query name
suggested, a port setting the recorded server does not use refused, and a linker index
keyed by what the releases hold rather than when they were loaded."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kgverify.api import SAMPLE_RELEASES, audit, load_vocabulary, sample_path, sample_pipeline
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.derive import QAItem, read_items
from kgverify.graph import Graph
from kgverify.link.index import IndexSettings, graph_index_key
from kgverify.verify.model import read_verdicts
from loaders import LoadOptions, get_loader
from loaders.pipeline import content_hash
from tests.conftest import free_port

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("spacy", "scispacy", "sklearn", "nmslib", "rdflib", "networkx")
# `kgverify audit ...` in a fresh interpreter, then which heavy packages it imported.
PROBE = (
    "import atexit, json, sys\n"
    f"atexit.register(lambda: print('IMPORTED', json.dumps(sorted(m for m in sys.modules "
    f"if m in {HEAVY!r})), file=sys.stderr))\n"
    "from kgverify.cli import main\n"
    "sys.argv = ['kgverify', *sys.argv[1:]]\n"
    "main()\n"
)


@pytest.fixture(scope="module")
def items(graph: Graph, sample_settings: Settings) -> list[QAItem]:
    sample_pipeline(graph, sample_settings)
    found = list(read_items(sample_settings.cache_dir / "sample" / "qa"))
    assert found
    return found


@pytest.fixture
def env(cli_env: Settings, sample_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The CLI on the session's server, with the module's cache (its linker index)."""
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(sample_settings.cache_dir))
    return sample_settings


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), env={"COLUMNS": "400"})


def one_error(result: Result, message: str) -> None:
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and message in errors[0], result.stderr
    assert "Traceback" not in result.output


def test_an_audit_query_imports_no_linker(items: list[QAItem], env: Settings) -> None:
    for args in (
        ["audit", "filter_rates"],
        ["audit", "items_on_concept", "-p", f"concept={items[0].answer_concept}", "--json"],
    ):
        done = subprocess.run(
            [sys.executable, "-c", PROBE, *args],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            check=False,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip()  # it answered from the session's graph
        [line] = [x for x in done.stderr.splitlines() if x.startswith("IMPORTED ")]
        assert json.loads(line.removeprefix("IMPORTED ")) == [], (args, line)


def test_find_gives_one_score_scale_and_says_how_each_row_was_found(
    items: list[QAItem], env: Settings
) -> None:
    result = invoke("find", "metformin", "--json")
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    assert {r["found_by"] for r in rows} == {"linker", "full-text search"}
    assert all(0.0 <= r["score"] <= 1.0 for r in rows), rows
    for r in rows:
        assert (r["found_by"] == "full-text search") == (r["method"] == "fulltext")
    # A name equal to the text scores 1.0 whichever way it was found, as the linker's exact
    # stage scores it; a longer name less, on the same scale as the TF-IDF stage.
    fulltext = [r for r in rows if r["found_by"] == "full-text search"]
    assert any(r["name"].lower() == "metformin" and r["score"] == 1.0 for r in fulltext)
    linker = {r["name"].lower(): r["score"] for r in rows if r["method"] == "tfidf"}
    for r in fulltext:
        if r["name"].lower() in linker:
            assert r["score"] == pytest.approx(linker[r["name"].lower()], abs=1e-3), r
    table = invoke("find", "metformin")
    assert "full-text search" in table.stdout and "linker" in table.stdout


def test_the_lineage_text_carries_the_edge_ids_items_on_edge_takes(
    items: list[QAItem], env: Settings
) -> None:
    item = sorted(items, key=lambda i: i.item_id)[0]
    text = invoke("audit", "item_lineage", "-p", f"item={item.item_id}").stdout
    verdicts = {
        v.relation_id: v
        for name in ("verdicts.jsonl", "verdicts_llm_style.jsonl")
        for v in read_verdicts(env.cache_dir / "sample" / name)
    }
    edges = {e for b in item.basis for p in verdicts[b].evidence for e in p.edges}
    assert edges
    for e in edges:
        assert f"items_on_edge -p start={e.start} -p type={e.type} -p end={e.end}" in text
    # The ids copied from the text answer the next query with this item.
    line = next(x for x in text.splitlines() if "items_on_edge -p" in x)
    args = line.split("items_on_edge", 1)[1].split()
    rows = json.loads(invoke("audit", "items_on_edge", *args, "--json").stdout)
    assert item.item_id in {r["item"] for r in rows}
    # Each cited edge of a distractor's justification shows its ids beside its names.
    cites = [x for x in text.splitlines() if x.strip().startswith("cites ")]
    assert cites and all(re.search(r"\(\S+:\S+ [A-Z_]+ \S+:\S+\)$", x) for x in cites)


def test_a_concept_may_be_given_by_name(items: list[QAItem], env: Settings) -> None:
    item = next(i for i in sorted(items, key=lambda i: i.item_id) if i.answer.strip())
    name = next(o.text for o in item.options if o.concept_id == item.answer_concept)
    result = invoke("audit", "items_on_concept", "-p", f"concept={name}", "--json")
    assert result.exit_code == 0, result.output
    [said] = result.stderr.splitlines()
    m = re.fullmatch(
        rf"concept: {re.escape(name)} -> (\S+:\S+) .+ \(linked by \w+, score [01]\.\d\d\)", said
    )
    assert m, said
    by_id = audit("items_on_concept", {"concept": m.group(1)}, settings=env)
    assert json.loads(result.stdout) == by_id.model_dump()
    # The API reports the resolution too, and gives the same rows.
    seen: list[str] = []
    got = audit(
        "items_on_concept",
        {"concept": name},
        settings=env,
        resolved=lambda r: seen.append(r.line()),
    )
    assert got == by_id and seen == [said]
    one_error(
        invoke("audit", "items_on_concept", "-p", "concept=xqzzy flurbo"),
        "no concept named 'xqzzy flurbo' (unlinked); look it up with `kgverify find",
    )
    one_error(
        invoke("audit", "items_on_concept", "-p", "concept=SNOMEDCT:0"),
        "no such concept: SNOMEDCT:0 (`kgverify find NAME` looks a name up)",
    )


def _json_texts(value: Any) -> list[Any]:
    """Every string inside ``value`` that is itself a JSON object or array."""
    if isinstance(value, dict):
        return [t for v in value.values() for t in _json_texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _json_texts(v)]
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return [json.loads(value)]
        except ValueError:
            return []
    return []


def test_json_output_nests_stored_json_as_objects(items: list[QAItem], env: Settings) -> None:
    item = next(i for i in sorted(items, key=lambda i: i.item_id) if i.why_wrong)
    result = invoke("audit", "item_lineage", "-p", f"item={item.item_id}", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert _json_texts(rows) == []
    first = rows[0]
    assert [o["concept_id"] for o in first["options"]] == [o.concept_id for o in item.options]
    assert first["why_wrong"] and all(isinstance(w, dict) for w in first["why_wrong"])
    assert all(isinstance(c, dict) for c in first["checks"])
    assert all(isinstance(p["edges"], list) for r in rows for p in r["evidence"])
    for name in ("rejected_relations", "relation_scores", "flagged_items", "filter_rates"):
        done = invoke("audit", name, "--json")
        assert done.exit_code == 0 and _json_texts(json.loads(done.stdout)) == [], name
    # CSV keeps the stored JSON text in one cell, as before.
    as_csv = invoke("audit", "item_lineage", "-p", f"item={item.item_id}", "--csv").stdout
    assert '""label""' in as_csv


def test_a_mistyped_query_name_suggests_the_nearest(items: list[QAItem], env: Settings) -> None:
    result = invoke("audit", "filter_rate")
    one_error(result, "no audit query 'filter_rate'; did you mean filter_rates?")
    assert "items_on_edge" not in result.stderr  # not the whole list
    one_error(invoke("audit", "items_on_conept"), "did you mean items_on_concept?")
    one_error(
        invoke("audit", "zzz"),
        "no audit query 'zzz'; known: actions_by_verdict, changed_evidence, ",
    )


def test_a_port_setting_the_recorded_server_does_not_use_is_one_error(
    items: list[QAItem], env: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke("cypher", "RETURN 1").exit_code == 0  # its own port: fine
    other = free_port()
    monkeypatch.setenv("KGVERIFY_BOLT_PORT", str(other))
    expected = f"KGVERIFY_BOLT_PORT is {other}, but the local Neo4j recorded under"
    for args in (["cypher", "RETURN 1"], ["audit", "filter_rates"], ["neo4j", "start"]):
        result = invoke(*args)
        one_error(result, expected)
        assert f"uses port {env.bolt_port}" in result.stderr
    monkeypatch.setenv("KGVERIFY_BOLT_PORT", str(env.bolt_port))
    monkeypatch.setenv("KGVERIFY_HTTP_PORT", str(other))
    one_error(invoke("neo4j", "start"), f"KGVERIFY_HTTP_PORT is {other}")


def test_the_linker_index_key_follows_release_content_not_load_times(
    items: list[QAItem], graph: Graph, env: Settings, tmp_path: Path
) -> None:
    index = IndexSettings.from_settings(env)
    key, source = graph_index_key(graph, index, env.neo4j_database)
    loaded = {
        get_loader(name)(sample_path(*parts), LoadOptions()).release().id: (name, parts)
        for name, parts in SAMPLE_RELEASES.items()
    }
    for release in source["releases"]:
        name, parts = loaded[release["id"]]
        loader = get_loader(name)(sample_path(*parts), LoadOptions())
        assert release["content"] == content_hash(loader)
    assert (env.cache_dir / "linker" / key / "meta.json").is_file()  # the pipeline's index
    # The same files loaded again (what every `kgverify sample` does): a later load time,
    # the same key, so the index built before is found, not rebuilt.
    load_vocabulary("rxnorm", sample_path(*SAMPLE_RELEASES["rxnorm"]), settings=env, graph=graph)
    assert graph_index_key(graph, index, env.neo4j_database)[0] == key
    # Other bytes, or other rows chosen, are another release content.
    copy = tmp_path / "rxnorm"
    shutil.copytree(sample_path(*SAMPLE_RELEASES["rxnorm"]), copy)
    conso = next(copy.rglob("RXNCONSO.RRF"))
    conso.write_bytes(conso.read_bytes().replace(b"Metformin", b"Metformine", 1))
    original = get_loader("rxnorm")(sample_path(*SAMPLE_RELEASES["rxnorm"]), LoadOptions())
    assert content_hash(get_loader("rxnorm")(copy, LoadOptions())) != content_hash(original)
    other = get_loader("rxnorm")(copy, LoadOptions(languages=("ENG", "SPA")))
    assert content_hash(other) != content_hash(get_loader("rxnorm")(copy, LoadOptions()))
