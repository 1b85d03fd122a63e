"""Linking against the sample vocabularies in the real Neo4j: the index is built from the
graph and cached per release set, codes are mapped through the graph, and the CLI links
the shipped LLM-style relations with their hard cases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kgverify.api import (
    build_linker_index,
    extract_relations,
    load_vocabulary,
    open_linker,
    sample_path,
)
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.graph import Graph
from kgverify.link import MentionQuery
from kgverify.link.model import LinkStatus, Method, read_linked
from kgverify.link.scoring import PARTIAL_SCORE

pytestmark = pytest.mark.neo4j

KGVERIFY = Path(sys.executable).parent / "kgverify"


def test_no_release_loaded_is_one_clear_error(
    fresh_graph: Graph, cli_env: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(tmp_path))
    relations = sample_path("relations", "llm_style.jsonl")
    result = CliRunner().invoke(cli, ["link", str(relations), "-o", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 2
    assert (
        result.stderr.strip() == "error: no vocabulary release is loaded: run `kgverify load` first"
    )
    assert not (tmp_path / "o.jsonl").exists()


def test_the_index_is_built_once_per_release_set(
    sample_graph: Graph, sample_settings: Settings
) -> None:
    first = build_linker_index(sample_settings, sample_graph)
    assert first.concepts > 1000 and first.aliases >= first.indexed_aliases > 0
    assert {r["id"] for r in first.source["releases"]} == {
        "UMLS@2025AA",
        "SNOMEDCT@20250101",
        "RXNORM@2025-01-06",
    }
    meta = sample_settings.cache_dir / "linker" / first.key / "meta.json"
    stamp = meta.stat().st_mtime_ns
    again = build_linker_index(sample_settings, sample_graph)
    assert again == first and meta.stat().st_mtime_ns == stamp  # reused, not rebuilt
    rebuilt = build_linker_index(sample_settings, sample_graph, rebuild=True)
    assert rebuilt.key == first.key and meta.stat().st_mtime_ns != stamp


def test_two_runs_build_the_same_index_and_link_alike(
    sample_graph: Graph, cli_env: Settings, tmp_path: Path
) -> None:
    """Two `kgverify link` runs, each building its own index from the same releases with two
    threads, give the same links, every lower-ranked candidate included. Before the HNSW
    graph was built on one thread, neighbours tied or padded were ranked in no fixed order
    and the index's name rows followed the process's string hashing, two such runs' links
    of the sample's 1,558 template relations differed in 273."""
    relations = tmp_path / "relations.jsonl"
    eunomia = sample_path("omop", "eunomia_sample")
    extract_relations("omop", eunomia, relations, settings=cli_env)
    env = {**os.environ, "KGVERIFY_INDEX_THREADS": "2"}
    linked = []
    for n in (1, 2):
        out = tmp_path / f"linked-{n}.jsonl"
        env["KGVERIFY_CACHE_DIR"] = str(tmp_path / f"cache-{n}")
        done = subprocess.run(
            [str(KGVERIFY), "link", str(relations), "-o", str(out)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert (tmp_path / f"cache-{n}" / "linker").is_dir()
        linked.append(out.read_bytes())
    assert linked[0].count(b"\n") > 1000
    assert linked[0] == linked[1]


def test_the_index_carries_mined_tables_a_reranker_and_a_calibration(
    sample_graph: Graph, sample_settings: Settings
) -> None:
    info = build_linker_index(sample_settings, sample_graph)
    folder = sample_settings.cache_dir / "linker" / info.key
    assert (folder / "mined.json").is_file() and (folder / "reranker.json").is_file()
    assert info.mined["concepts"] == info.concepts
    assert info.reranker is not None and info.reranker["queries"] >= 50
    linker = open_linker(sample_settings, sample_graph)
    try:
        assert linker.index.reranker.trained
        # "hyperkalemia" / "hypokalemia" must never be a mined substitution of the sample.
        assert "hyperkalemia" not in linker.index.mined.substitutions
        assert "hypokalemia" not in linker.index.mined.substitutions
        assert "hyperkalemia" not in linker.index.mined.words
        # The calibration is fitted on the sample's own held-out synonyms and stored with it.
        assert (folder / "calibration.json").is_file()
        assert info.calibration["queries"] >= 30 and linker.index.calibration.fitted
    finally:
        linker.index.close()


def test_cli_index_reuses_the_cached_index(
    sample_graph: Graph,
    cli_env: Settings,
    sample_settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(sample_settings.cache_dir))
    expected = build_linker_index(sample_settings, sample_graph)
    result = CliRunner().invoke(cli, ["index", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == expected.model_dump()
    table = CliRunner().invoke(cli, ["index"])
    assert expected.key in table.output and "UMLS@2025AA" in table.output


def test_codes_are_mapped_through_the_graph(sample_graph: Graph, sample_settings: Settings) -> None:
    linker = open_linker(sample_settings, sample_graph)
    try:
        owned, stub, unknown, retired = linker.link(
            [
                # A SNOMED code of a loaded SNOMED concept, whatever the text says.
                MentionQuery("heart thing", code_system="SNOMEDCT", code="22298006"),
                # A LOINC code: only a MAPS_TO target; it reaches the UMLS concept.
                MentionQuery("glucose", code_system="LNC", code="2345-7"),
                # A code the graph does not know: the text decides.
                MentionQuery("Otitis media", code_system="SNOMEDCT", code="999999999"),
                # An inactive SNOMED concept is not a link target: its CUI is, by name.
                MentionQuery("Perinephric abscess", code_system="SNOMEDCT", code="235998001"),
            ]
        )
    finally:
        linker.index.close()
    assert (owned.status, owned.method, owned.concept_id) == (
        LinkStatus.LINKED,
        Method.CODE,
        "SNOMEDCT:22298006",
    )
    assert "UMLS:C0027051" in owned.equivalents
    assert (stub.method, stub.concept_id) == (Method.CODE, "UMLS:C9900151")
    assert unknown.method is Method.EXACT and unknown.concept_id is not None
    assert retired.method is Method.EXACT and retired.concept_id == "UMLS:C9900030"
    assert all(c.concept_id != "SNOMEDCT:235998001" for c in retired.candidates)


def test_cli_links_the_hard_cases(
    sample_graph: Graph,
    cli_env: Settings,
    sample_settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(sample_settings.cache_dir))
    out = sample_settings.cache_dir / "linked.jsonl"
    result = CliRunner().invoke(
        cli,
        [
            "link",
            str(sample_path("relations", "llm_style.jsonl")),
            "-o",
            str(out),
            "--trajectories",
            str(sample_path("relations", "llm_style_trajectories.jsonl")),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["read"] == report["linked_relations"] + report["rejected"] == 12
    assert sum(report["by_status"].values()) == 24
    assert report["expanded"] == 2
    got = {
        (r.relation.subject.text, r.relation.object.text, r.relation.patient_id): r
        for r in read_linked(out)
    }
    assert len(got) == 12

    def sides(subject: str, obj: str, patient: str = "sample-llm-p2") -> tuple[object, ...]:
        r = got[(subject, obj, patient)]
        return (
            r.subject.status.value,
            r.subject.concept_id,
            r.object.status.value,
            r.object.concept_id,
        )

    mi = "UMLS:C0027051"
    # "MI" defined in the encounter's note: expanded and linked; without a note: ambiguous.
    assert sides("aspirin", "MI", "sample-llm-p1")[2:] == ("linked", mi)
    assert sides("aspirin", "MI")[2:] == ("ambiguous", None)
    assert sides("chest pain", "MI", "sample-llm-p1") == ("linked", "UMLS:C0008031", "linked", mi)
    # Brand names.
    tylenol = got[("Tylenol", "headache", "sample-llm-p2")]
    assert "RXNORM:202433" in [tylenol.subject.concept_id, *tylenol.subject.equivalents]
    # Misspellings: one typo away.
    typo = got[("metfromin", "diabetes mellitus, type 2", "sample-llm-p2")]
    assert typo.subject.method is Method.EDIT and typo.subject.concept_id == "UMLS:C0025598"
    assert typo.object.concept_id == "UMLS:C0011860"
    # "RA" in a condition slot cannot be the right atrium.
    assert sides("metformin", "RA")[3] == "UMLS:C0003873"
    # An invented drug is unlinked, not forced onto the nearest name.
    assert sides("quantum flux capacitor", "acute bronchitis")[:2] == ("unlinked", None)


def test_find_ranks_as_the_linker_does(
    sample_graph: Graph,
    cli_env: Settings,
    sample_settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(sample_settings.cache_dir))

    def find(text: str) -> list[dict[str, object]]:
        result = CliRunner().invoke(cli, ["find", text, "--json"])
        assert result.exit_code == 0, result.output
        rows: list[dict[str, object]] = json.loads(result.stdout)
        return rows

    # "Heart Attack" is a MeSH synonym of myocardial infarction: the linker's exact stage.
    [first, *rest] = find("heart attack")
    assert (first["id"], first["method"], first["linked"]) == ("UMLS:C0027051", "exact", True)
    assert not any(row["linked"] for row in rest)
    # One transposition: the linker's typo stage, which full text alone misses.
    [first, *_] = find("metfromin")
    assert (first["id"], first["method"], first["linked"]) == ("UMLS:C0025598", "edit", True)
    # Nonsense links nothing; what full text finds is listed as such, never as linked.
    rows = find("quantum flux capacitor")
    assert not any(row["linked"] for row in rows)
    assert all(row["method"] in ("tfidf", "fulltext") for row in rows)
    table = CliRunner().invoke(cli, ["find", "heart attack"])
    assert table.exit_code == 0 and "UMLS:C0027051" in table.stdout
    assert "not in the loaded vocabularies" not in table.stdout


def test_find_says_when_no_name_is_close(
    sample_graph: Graph,
    cli_env: Settings,
    sample_settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 38: "Ménières Disease" (not in the sample) found the root concept "Disease" at
    0.80, as if the text named it; the nearest names are now offered as such."""
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(sample_settings.cache_dir))

    def find(*args: str) -> Result:
        result = CliRunner().invoke(cli, ["find", *args])
        assert result.exit_code == 0, result.output
        return result

    for text in ("Ménières Disease", "quantum flux capacitor"):
        rows = json.loads(find(text, "--json").stdout)
        assert rows and not any(row["close"] or row["linked"] for row in rows), (text, rows)
        # "Disease" is listed as a neighbour, never scored as a match.
        assert all(row["score"] < sample_settings.link_threshold for row in rows), rows
        table = find(text).stdout
        assert f"{text!r} is not in the loaded vocabularies: the nearest names are" in table
        assert "no close match" in table
    # Each name once, though UMLS and SNOMED CT both have "Disease".
    nearest = find("Ménières Disease").stdout.replace("\n", " ").split("names are ", 1)[1]
    assert nearest.startswith("Disease (") and nearest.count("Disease (") == 1
    # A partial neighbour keeps half its score (at most 0.5), in its cosine's order.
    first = float(nearest.split("(", 1)[1].split(")", 1)[0])
    assert 0.0 < first <= PARTIAL_SCORE
    # A name that is there is close, and the table says nothing of the kind.
    rows = json.loads(find("héart attack", "--json").stdout)  # accents folded
    assert rows[0]["close"] and rows[0]["linked"] and rows[0]["id"] == "UMLS:C0027051"
    assert "not in the loaded vocabularies" not in find("heart attack").stdout


def test_bad_lines_are_rejected_with_their_line(
    sample_graph: Graph, sample_settings: Settings, tmp_path: Path
) -> None:
    from kgverify.api import link_relations_file

    good = sample_path("relations", "llm_style.jsonl").read_text().splitlines()
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join([good[0], "{not json", good[1], '{"patient_id": "p"}']) + "\n")
    report = link_relations_file(
        source, tmp_path / "out.jsonl", settings=sample_settings, graph=sample_graph
    )
    assert (report.read, report.linked_relations, report.rejected) == (4, 2, 2)
    rejects = [json.loads(line) for line in Path(report.rejects or "").read_text().splitlines()]
    assert [r["line"] for r in rejects] == [2, 4]
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 2


def test_a_gz_output_is_gzip(
    sample_graph: Graph, sample_settings: Settings, tmp_path: Path
) -> None:
    """``-o linked.jsonl.gz`` is gzip (it was plain text under a .gz name while the partial
    file's name ended in .partial), and it reads back like the plain file."""
    from kgverify.api import link_relations_file

    source = sample_path("relations", "llm_style.jsonl")
    plain, packed = tmp_path / "linked.jsonl", tmp_path / "linked.jsonl.gz"
    link_relations_file(source, plain, settings=sample_settings, graph=sample_graph)
    link_relations_file(source, packed, settings=sample_settings, graph=sample_graph)
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    assert not list(tmp_path.glob("*partial*"))
    assert [r.relation.relation_id for r in read_linked(packed)] == [
        r.relation.relation_id for r in read_linked(plain)
    ]


def test_a_new_release_gets_a_new_index(sample_graph: Graph, sample_settings: Settings) -> None:
    before = build_linker_index(sample_settings, sample_graph)
    load_vocabulary(
        "umls", sample_path("umls", "2025AB"), settings=sample_settings, graph=sample_graph
    )
    after = build_linker_index(sample_settings, sample_graph)
    assert after.key != before.key
    assert "UMLS@2025AB" in {r["id"] for r in after.source["releases"]}
