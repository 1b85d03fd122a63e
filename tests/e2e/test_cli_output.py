"""The command line's output on the sample run: the main reports (load, link, verify,
derive, audit) readable at 80 columns, `kgverify run --engine ray` giving the same outputs,
`prov --json`, `graph reset --json`. The module's
last test empties the graph."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kgverify.api import SAMPLE_EHR, graph_summary, sample_path, sample_pipeline
from kgverify.cli import (
    cli,
    print_derive_report,
    print_link_report,
    print_load_report,
    print_pipeline_report,
    print_verify_report,
)
from kgverify.config import Settings
from kgverify.derive import read_items
from kgverify.graph import Graph
from kgverify.pipeline import PipelineReport

pytestmark = pytest.mark.neo4j

WIDTH = {"COLUMNS": "80"}


@pytest.fixture(scope="module")
def run(graph: Graph, sample_settings: Settings) -> PipelineReport:
    return sample_pipeline(graph, sample_settings)


def _rendered(show: Callable[[], None]) -> list[str]:
    @click.command()
    def command() -> None:
        show()

    result = CliRunner().invoke(command, [], env=WIDTH)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def _fits(lines: list[str]) -> None:
    assert lines
    assert [line for line in lines if len(line) > 80] == []
    assert not [line for line in lines if "…" in line], "\n".join(lines)


def test_the_sample_runs_reports_fit_80_columns(run: PipelineReport) -> None:
    shows: list[Callable[[], None]] = [
        *(partial(print_load_report, report, False) for report in run.loads),
        *(partial(print_link_report, report) for report in run.link),
        partial(print_derive_report, run.derive.qa),
    ]
    for show in shows:
        _fits(_rendered(show))
    for report in run.verify:
        lines = _rendered(partial(print_verify_report, report))
        _fits(lines)
        assert any("type_mismatch" in line for line in lines)  # a header, whole


def test_the_sample_is_one_pipeline_run(run: PipelineReport, sample_settings: Settings) -> None:
    # sample_pipeline is api.pipeline with the sample's parameters: every output in one
    # folder, the extra relation file's named by its stem, and a report that survives JSON.
    out = sample_settings.cache_dir / "sample"
    assert Path(run.extract.out) == out / "relations.jsonl" and run.extract.relations > 0
    assert [Path(r.out) for r in run.link] == [out / "linked.jsonl", out / "linked_llm_style.jsonl"]
    assert [Path(r.out) for r in run.verify] == [
        out / "verdicts.jsonl",
        out / "verdicts_llm_style.jsonl",
    ]
    assert Path(run.derive.qa.out) == out / "qa" and run.derive.qa.written > 0
    assert run.derive.facts is not None and run.dialogues is not None
    assert [r.release for r in run.loads] == [
        "UMLS@2025AA",
        "SNOMEDCT@20250101",
        "RXNORM@2025-01-06",
    ]
    assert PipelineReport.model_validate_json(run.model_dump_json()) == run


# -- the ray engine gives the local path's outputs byte for byte: the sample's whole chain run
# by `kgverify run CONFIG --engine ray` on a real local Ray (two actors, one CPU each) against
# the module's run, every output file compared (docs/scale.md).

# Report fields that say when, how fast or where, not what. The evidence counts say how the
# rule reads were shared out: each Ray actor keeps its own evidence, so they depend on where
# the batches went.
VOLATILE = {
    "out",
    "file",
    "seconds",
    "relations_per_second",
    "mentions_per_second",
    "turns_per_second",
    "rejects",
    "evidence_read",
    "evidence_cached",
}


@pytest.fixture(scope="module")
def ray_stopped() -> Iterator[None]:
    """Ray is started by the engine inside this process; it is stopped after the module."""
    yield
    import ray

    ray.shutdown()


# What names the run itself (its id), which two pipeline runs never share.
RUN_NAMED = {"run", "scope", "run_file", "steps"}


def _what(report: object) -> object:
    """A report's counts, without the fields that differ between any two runs."""
    if isinstance(report, dict):
        return {k: _what(v) for k, v in report.items() if k not in VOLATILE | RUN_NAMED}
    if isinstance(report, list):
        return [_what(v) for v in report]
    return report


def test_kgverify_run_on_ray_gives_the_local_outputs(
    run: PipelineReport,
    sample_settings: Settings,
    cli_env: Settings,
    tmp_path: Path,
    ray_stopped: None,
) -> None:
    here = sample_settings.cache_dir / "sample"
    kind, parts = SAMPLE_EHR
    # No vocabularies: the releases the module's run loaded stay, and with them the index key
    # every linked mention records.
    config = tmp_path / "run.toml"
    config.write_text(
        f'source = "{kind}"\nsource_path = "{sample_path(*parts)}"\nout = "out"\n'
        f'dialogues = "{here / "dialogues.jsonl"}"\n'
        f'[[relations]]\npath = "{sample_path("relations", "llm_style.jsonl")}"\n'
        f'trajectories = "{sample_path("relations", "llm_style_trajectories.jsonl")}"\n'
    )
    # Batches of 500 (the module's run: one of 1,558): several batches split and in flight
    # at once, and the outputs must not depend on where the batches end.
    env = {
        "KGVERIFY_CACHE_DIR": str(sample_settings.cache_dir),
        "KGVERIFY_RAY_WORKERS": "2",
        "KGVERIFY_BATCH_SIZE": "500",
    }
    done = CliRunner().invoke(cli, ["run", str(config), "--engine", "ray", "--json"], env=env)
    assert done.exit_code == 0, done.output
    on_ray = PipelineReport.model_validate(json.loads(done.stdout))

    got, expected = on_ray.model_dump(), run.model_dump()
    for name in ("link", "verify", "derive", "dialogues"):
        assert _what(got[name]) == _what(expected[name]), name
    assert all(v.written for v in on_ray.verify)
    assert on_ray.link[0].index == run.link[0].index

    there = tmp_path / "out"
    # The dialogue file is the run's input, kept beside the sample's outputs.
    outputs = sorted(p.relative_to(here) for p in here.rglob("*") if p.is_file())
    outputs.remove(Path("dialogues.jsonl"))
    assert sorted(p.relative_to(there) for p in there.rglob("*") if p.is_file()) == outputs
    assert {"linked.jsonl", "verdicts.jsonl", "linked_llm_style.jsonl"} <= {p.name for p in outputs}
    # The run record and the dataset card name their run; the rest is byte for byte.
    outputs.remove(Path("run.json"))
    card = Path("qa/README.md")
    differing = [
        p for p in outputs if p != card and (here / p).read_bytes() != (there / p).read_bytes()
    ]
    assert differing == []
    assert (here / card).read_text().replace(str(run.run), "RUN") == (
        there / card
    ).read_text().replace(str(on_ray.run), "RUN")


def test_audit_output_fits_80_columns(
    run: PipelineReport, sample_settings: Settings, cli_env: Settings
) -> None:
    env = {**WIDTH, "KGVERIFY_CACHE_DIR": str(sample_settings.cache_dir)}
    items = list(read_items(Path(run.derive.qa.out)))
    item = max(items, key=lambda i: (len(i.basis), i.item_id)).item_id  # most assertions
    for args in (
        ["audit", "filter_rates"],
        ["audit", "rejected_relations", "-p", "limit=5"],
        ["audit", "item_lineage", "-p", f"item={item}"],
        ["audit", "--list"],
    ):
        result = CliRunner().invoke(cli, args, env=env)
        assert result.exit_code == 0, (args, result.output)
        _fits(result.stdout.splitlines())


def test_prov_json(run: PipelineReport, cli_env: Settings, tmp_path: Path) -> None:
    item = next(iter(read_items(Path(run.derive.qa.out)))).item_id
    printed = CliRunner().invoke(cli, ["prov", item, "--json"])
    assert printed.exit_code == 0, printed.output
    report = json.loads(printed.stdout)
    assert report["item"] == item and report["format"] == "turtle" and report["out"] is None
    assert "prov:" in report["document"] and report["bytes"] == len(report["document"].encode())
    out = tmp_path / "item.jsonld"
    written = CliRunner().invoke(
        cli, ["prov", item, "--format", "json-ld", "-o", str(out), "--json"]
    )
    assert written.exit_code == 0, written.output
    report = json.loads(written.stdout)
    assert report["out"] == str(out) and "document" not in report
    assert report["bytes"] == out.stat().st_size
    json.loads(out.read_text())
    missing = CliRunner().invoke(cli, ["prov", "0000", "--json"])
    assert missing.exit_code == 2 and missing.stdout == ""
    (line,) = missing.stderr.splitlines()
    assert line.startswith("error: ")


def test_kgverify_run_reads_a_pipeline_config(
    run: PipelineReport, sample_settings: Settings, cli_env: Settings, tmp_path: Path
) -> None:
    env = {**WIDTH, "KGVERIFY_CACHE_DIR": str(sample_settings.cache_dir)}
    runner = CliRunner()
    source = sample_path("omop", "eunomia_sample")
    keys = f'source = "omop"\nsource_path = "{source}"\nout = "out"\n'
    typo = tmp_path / "typo.toml"
    typo.write_text(keys + 'extractr = "template"\n')
    refused = runner.invoke(cli, ["run", str(typo)], env=env)
    assert refused.exit_code == 2
    assert refused.output.strip().splitlines() == [
        f"error: {typo}: unknown key 'extractr' (did you mean 'extractor'?)"
    ]
    assert not (tmp_path / "out").exists()  # checked before anything ran
    config = tmp_path / "run.toml"
    config.write_text(keys + 'tasks = ["treatment"]\nfacts = false\n')
    done = runner.invoke(cli, ["run", str(config), "--json"], env=env)
    assert done.exit_code == 0, done.output
    report = PipelineReport.model_validate(json.loads(done.stdout))
    out = tmp_path / "out"  # relative to the config's folder
    assert Path(report.verify[0].out) == out / "verdicts.jsonl" and report.verify[0].passed
    assert report.derive.facts is None and report.dialogues is None and not report.loads
    assert sorted(p.name for p in (out / "qa").iterdir() if p.is_dir()) == ["treatment"]
    lines = _rendered(partial(print_pipeline_report, report))
    _fits(lines)
    assert not any("fact sheets" in line for line in lines)


def test_graph_reset_json_last(run: PipelineReport, graph: Graph, cli_env: Settings) -> None:
    refused = CliRunner().invoke(cli, ["graph", "reset", "--json"])
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr.startswith("error: refusing to delete everything without --yes")
    result = CliRunner().invoke(cli, ["graph", "reset", "--yes", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["emptied"] is True
    summary = graph_summary(graph=graph)
    assert summary.concepts == [] and summary.facts == []
