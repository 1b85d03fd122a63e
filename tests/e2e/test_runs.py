"""Runs (issue 34): every ingest is a ``(:Run)`` with the patients it brought; a pipeline on
a sub-extract derives only from its own patients even though the graph holds others;
``derive`` reads the latest run by default, another with ``--run``, every patient with
``--all-patients``; ``kgverify runs`` lists runs and ``runs diff`` compares two; a pipeline
writes ``run.json`` and tells each step as it starts and ends. All against the real Neo4j,
on the shipped Eunomia sample and an 8-patient extract of it cut here."""

from __future__ import annotations

import csv
import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kgverify.api import diff_runs, pipeline, runs, sample_path, sample_pipeline
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.dates import shift_days, shift_text
from kgverify.derive.sheetfile import read_sheets
from kgverify.dialogue.patient import persona
from kgverify.dialogue.record import SheetFile, view
from kgverify.graph import Graph
from kgverify.pipeline import PipelineReport, StepEvent
from tests.e2e.helpers import rows, value

pytestmark = pytest.mark.neo4j

EUNOMIA = sample_path("omop", "eunomia_sample")
SUBSET = 8


def sub_extract(into: Path, persons: int) -> Path:
    """The first ``persons`` people of the Eunomia sample with every row of theirs (each
    table filtered on PERSON_ID, the vocabulary table kept whole), as OMOP CSV."""
    into.mkdir()
    with (EUNOMIA / "person.csv").open(newline="", encoding="utf-8") as f:
        kept = {row["PERSON_ID"] for row in islice(csv.DictReader(f), persons)}
    for table in sorted(EUNOMIA.glob("*.csv")):
        with table.open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            fields = list(reader.fieldnames or [])
            chosen = [r for r in reader if "PERSON_ID" not in fields or r["PERSON_ID"] in kept]
        with (into / table.name).open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=fields)
            writer.writeheader()
            writer.writerows(chosen)
    return into


@dataclass
class Runs:
    settings: Settings
    graph: Graph
    first: PipelineReport  # the sample: 39 patients
    second: PipelineReport  # the 8-patient extract, after it
    events: list[StepEvent]
    out: Path
    bars: dict[str, list[int | None]]  # each step's bar: label -> [total, last count]


@pytest.fixture(scope="module")
def two_runs(
    sample_graph: Graph, sample_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Runs:
    first = sample_pipeline(sample_graph, sample_settings)
    tmp = tmp_path_factory.mktemp("runs")
    events: list[StepEvent] = []
    bars: dict[str, list[int | None]] = {}  # label -> [total, last count]

    @contextmanager
    def bar(label: str, total: int | None) -> Iterator[Callable[[int], None]]:
        bars[label] = [total, None]

        def tick(done: int) -> None:
            bars[label][1] = done

        yield tick

    second = pipeline(
        source="omop",
        source_path=sub_extract(tmp / "extract", SUBSET),
        out=tmp / "out",
        settings=sample_settings,
        graph=sample_graph,
        on_step=events.append,
        bars=bar,
    )
    return Runs(sample_settings, sample_graph, first, second, events, tmp / "out", bars)


def _kgverify(settings: Settings, *args: str) -> Result:
    env = {
        "KGVERIFY_NEO4J_HOME": str(settings.local_home),
        "KGVERIFY_BOLT_PORT": str(settings.bolt_port),
        "KGVERIFY_CACHE_DIR": str(settings.cache_dir),
    }
    return CliRunner().invoke(cli, list(args), env=env)


def patients_of(graph: Graph, run: str) -> set[str]:
    found = rows(graph, "MATCH (p:Patient)-[:IN_RUN]->(:Run {id: $r}) RETURN p.id AS id", r=run)
    return {r["id"] for r in found}


def test_a_pipeline_on_a_sub_extract_derives_only_from_its_own_patients(two_runs: Runs) -> None:
    r = two_runs
    assert r.first.run and r.second.run and r.first.run != r.second.run
    mine = patients_of(r.graph, r.second.run)
    everyone = {x["id"] for x in rows(r.graph, "MATCH (p:Patient) RETURN p.id AS id")}
    assert len(mine) == SUBSET and len(everyone) == r.first.ingest.ingest.patients > SUBSET
    qa = r.second.derive.qa
    assert qa.run == r.second.run and qa.patients == SUBSET
    items = [
        json.loads(line)
        for path in (r.out / "qa").glob("*/*.jsonl")
        for line in path.read_text().splitlines()
    ]
    assert items, "the extract's patients give items"
    assert {i["patient_id"] for i in items} <= mine
    # The fact sheets and the graph's record of the derivation say the same.
    sheets = list(read_sheets(r.out / "facts" / "sheets.jsonl"))
    assert {s.patient_id for s in sheets} == mine
    derived = rows(
        r.graph,
        "MATCH (i:Item)-[:DERIVED_IN]->(:Run {id: $r}) MATCH (i)-[:ABOUT]->(p:Patient) "
        "RETURN DISTINCT p.id AS id",
        r=r.second.run,
    )
    assert {x["id"] for x in derived} <= mine
    card = (r.out / "qa" / "README.md").read_text()
    assert f"those of run `{r.second.run}` only ({SUBSET} read" in card


def test_the_run_record_and_the_steps_as_they_ran(two_runs: Runs) -> None:
    r = two_runs
    record = json.loads((r.out / "run.json").read_text())
    assert stat.S_IMODE((r.out / "run.json").stat().st_mode) == 0o600
    assert record["run"] == r.second.run and record["source"] == "omop"
    names = [s["step"] for s in record["steps"]]
    assert names[0] == "ingest and extract" and names[-1] == "derive facts"
    assert "derive qa" in names and all(s["seconds"] >= 0 for s in record["steps"])
    assert record["counts"]["patients"] == SUBSET
    own_server = not os.environ.get("NEO4J_URI")  # a server of the user's: no stop command
    assert record["graph"]["bolt"]
    assert record["graph"]["stop"] == ("kgverify neo4j stop" if own_server else None)
    # Each step was told as it started and as it ended, in order, numbered.
    assert [(e.step, e.status) for e in r.events] == [
        (n, s) for n in names for s in ("started", "finished")
    ]
    assert [e.number for e in r.events if e.status == "finished"] == list(range(1, len(names) + 1))
    assert all(e.summary for e in r.events if e.status == "finished")
    # A bar of what each step counts, filled to the end where the total is known.
    by_step = {label.split("] ", 1)[1].split(":")[0]: v for label, v in r.bars.items()}
    assert set(by_step) == set(names)
    ingested = by_step["ingest and extract"]
    assert ingested[1] == by_step["derive qa"][1] == by_step["derive facts"][1] == SUBSET
    assert by_step["derive qa"][0] == SUBSET
    linked = by_step["link relations.jsonl"][1]
    assert linked and linked == r.second.link[0].linked_relations


def test_runs_are_listed_and_compared(two_runs: Runs) -> None:
    r = two_runs
    assert r.first.run and r.second.run
    listed = runs(r.settings, r.graph)
    assert [x.id for x in listed[:2]] == [r.second.run, r.first.run]
    assert listed[0].patients == SUBSET and listed[0].status == "complete"
    assert listed[0].items and listed[0].items == sum(
        sum(s.values()) for s in r.second.derive.qa.items.values()
    )
    diff = diff_runs(r.first.run, r.second.run, r.settings, r.graph)
    assert (diff.patients.both, diff.patients.only_b) == (SUBSET, 0)
    assert diff.patients.only_a == r.first.ingest.ingest.patients - SUBSET
    assert diff.differences["patients"] == [r.first.ingest.ingest.patients, SUBSET]
    assert diff.items.only_a + diff.items.both == r.first.derive.qa.written
    result = _kgverify(r.settings, "runs", "diff", r.first.run, r.second.run, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["patients"]["both"] == SUBSET
    listing = _kgverify(r.settings, "runs")
    assert listing.exit_code == 0 and r.second.run in listing.output


def test_derive_reads_the_latest_run_another_or_every_patient(
    two_runs: Runs, tmp_path: Path
) -> None:
    r = two_runs
    everyone = value(r.graph, "MATCH (p:Patient) RETURN count(p)")
    cases = {
        (): (SUBSET, f"the latest run {r.second.run}: {SUBSET} patients from omop"),
        ("--run", str(r.first.run)): (everyone, f"run {r.first.run}: {everyone} patients"),
        ("--all-patients",): (everyone, f"every patient in the graph ({everyone})"),
    }
    for n, (args, (patients, scope)) in enumerate(cases.items()):
        result = _kgverify(r.settings, "derive", "facts", "-o", str(tmp_path / str(n)), *args)
        assert result.exit_code == 0, result.output
        assert f"Patients: {scope}" in result.output, result.output
        sheets = read_sheets(tmp_path / str(n) / "sheets.jsonl")
        assert len({s.patient_id for s in sheets}) == patients


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--run", "20991231-000000-abcdef"), "error: no run 20991231-000000-abcdef in the graph"),
        (("--run", "yesterday"), "error: "),
        (("--run", "20991231-000000-abcdef", "--all-patients"), "exclude each other"),
    ],
)
def test_a_bad_run_is_one_error_line(
    two_runs: Runs, tmp_path: Path, args: tuple[str, ...], expected: str
) -> None:
    result = _kgverify(two_runs.settings, "derive", "qa", "-o", str(tmp_path / "qa"), *args)
    assert result.exit_code != 0 and "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], lines
    assert not (tmp_path / "qa").exists()


# -- ages (issue 34, point 2) -------------------------------------------------------------------
AGE_TEXT = re.compile(r"\b(?:aged|Age:)\s+(\d{1,3})(?:-(\d{1,3})|\+)?")
AGE_FIELD = re.compile(r'"age_band":\s*"(\d{1,3})(?:-(\d{1,3})|\+)"')


def ages_over_89(text: str) -> list[str]:
    """Every age written in ``text`` (item wording, prompts, band fields) above 89, where
    only "90+" (or an open band starting below 90, "85+") may stand."""
    found = []
    for pattern in (AGE_TEXT, AGE_FIELD):
        for m in pattern.finditer(text):
            low = int(m.group(1))
            high = int(m.group(2)) if m.group(2) else None
            open_ended = high is None and "+" in m.group(0)
            if (open_ended and low > 90) or (not open_ended and (high or low) > 89):
                found.append(m.group(0))
    return found


def test_no_output_shows_an_age_above_89(two_runs: Runs, tmp_path: Path) -> None:
    r = two_runs
    sample_out = r.settings.cache_dir / "sample"
    review = _kgverify(r.settings, "review", "export", "-o", str(tmp_path / "review"))
    assert review.exit_code == 0, review.output
    folders = (sample_out, r.out, tmp_path / "review")
    files = [p for folder in folders for p in folder.rglob("*") if p.is_file()]
    assert any(p.name == "sheets.jsonl" for p in files)
    leaks = {
        str(p): ages_over_89(p.read_text(errors="replace"))
        for p in files
        if p.suffix in {".jsonl", ".json", ".md", ".html", ".csv"}
    }
    assert {k: v for k, v in leaks.items() if v} == {}
    # The sample has patients past 89 at some visit: their bands are capped, not left out.
    sheets = (sample_out / "facts" / "sheets.jsonl").read_text()
    assert re.search(r'"age_band":\s*"\d+\+"', sheets)


def test_the_simulated_patient_is_as_old_as_the_item_says(two_runs: Runs) -> None:
    """The persona's age is the band at the item's visit, as the item states it (it was the
    band at the first encounter: "Age: 0-9" for a visit where the item said 78-87)."""
    sample_out = two_runs.settings.cache_dir / "sample"
    sheets = SheetFile(sample_out / "facts")
    compared = 0
    for path in (sample_out / "qa").glob("*/*.jsonl"):
        for line in path.read_text().splitlines():
            item = json.loads(line)
            said = re.search(r"\baged (\S+?)[ ,.]", item["question"])
            sheet = sheets.get(item["patient_id"])
            record = view(sheet, item["episode"]) if sheet and said else None
            if record is None or said is None:
                continue
            assert f"Age: {said.group(1)};" in persona(record, record.sheet), item["item_id"]
            compared += 1
    assert compared >= 10


# -- dates (issue 34, point 2) ------------------------------------------------------------------
def test_published_dates_are_shifted_per_patient_and_the_graph_keeps_the_recorded(
    two_runs: Runs, tmp_path: Path
) -> None:
    r = two_runs
    dates = r.settings.date_shift()
    assert dates.mode == "shifted"  # the default
    recorded = {
        x["id"]: x["start"]
        for x in rows(r.graph, "MATCH (f:Fact) RETURN f.id AS id, toString(f.start) AS start")
    }
    compared = 0
    for path in (r.out / "qa").glob("*/*.jsonl"):
        for line in path.read_text().splitlines():
            item = json.loads(line)
            days = dates.days(item["patient_id"])
            assert days != 0
            for fact in item["context"]:
                if fact["start"] and recorded.get(fact["fact_id"]):
                    assert fact["start"] == shift_text(recorded[fact["fact_id"]][:10], days)
                    compared += 1
            if item["episode"].startswith("day:"):
                # The same visit names the same encounter of the patient's fact sheet.
                sheet = SheetFile(r.out / "facts").get(item["patient_id"])
                assert sheet and view(sheet, item["episode"]) is not None
    assert compared > 10
    card = (r.out / "qa" / "README.md").read_text()
    assert "- Dates: shifted per patient" in card
    # Exact dates when asked for, and the same facts then show what the graph holds.
    shifted = _kgverify(r.settings, "derive", "facts", "-o", str(tmp_path / "shifted"))
    assert shifted.exit_code == 0, shifted.output
    exact = CliRunner().invoke(
        cli,
        ["derive", "facts", "-o", str(tmp_path / "exact2")],
        env={
            "KGVERIFY_NEO4J_HOME": str(r.settings.local_home),
            "KGVERIFY_BOLT_PORT": str(r.settings.bolt_port),
            "KGVERIFY_CACHE_DIR": str(r.settings.cache_dir),
            "KGVERIFY_DERIVE_DATES": "exact",
        },
    )
    assert exact.exit_code == 0, exact.output
    shifted_sheets = (tmp_path / "shifted" / "sheets.jsonl").read_text()
    exact_sheets = (tmp_path / "exact2" / "sheets.jsonl").read_text()
    starts = {v[:10] for v in recorded.values() if v}
    assert sum(d in exact_sheets for d in starts) > sum(d in shifted_sheets for d in starts)


def test_a_date_shift_moves_every_date_and_nothing_else() -> None:
    assert shift_text("day:1990-02-08, recorded 1972-10-27T10:00", 3) == (
        "day:1990-02-11, recorded 1972-10-30T10:00"
    )
    # Not dates: codes and ids that only look alike stay.
    for text in ("LNC:38265-5", "1990-13-45", "id 12345-12-123", "RXNORM@2025-01-06"):
        assert shift_text(text, 30) == text
    days = {shift_days("salt", f"patient-{n}") for n in range(500)}
    assert 0 not in days and min(days) >= -365 and max(days) <= 365 and len(days) > 200
    assert shift_days("salt", "p") == shift_days("salt", "p") != shift_days("other", "p")


def test_kgverify_run_prints_each_step_as_it_runs_and_ends_with_the_run(
    two_runs: Runs, tmp_path: Path
) -> None:
    r = two_runs
    config = tmp_path / "run.toml"
    config.write_text(
        f'source = "omop"\nsource_path = "{sub_extract(tmp_path / "extract", 3)}"\n'
        'out = "out"\ntasks = ["treatment"]\nfacts = false\n'
    )
    result = _kgverify(r.settings, "run", str(config))
    assert result.exit_code == 0, result.output
    said = result.stderr.splitlines()
    started = [line for line in said if line.endswith(" ...")]
    finished = [line for line in said if line.endswith(" s)")]
    assert started[0] == "[1] ingest and extract ..."
    assert finished[0].startswith("[1] ingest and extract: run ")
    assert len(started) == len(finished) >= 4  # ingest and extract, link, verify, derive qa
    assert any(line.startswith("[4] derive qa: ") for line in finished)
    # The summary at the end: the steps' table, the run record and where the graph is.
    record = json.loads((tmp_path / "out" / "run.json").read_text())
    assert f"Run {record['run']}" in result.stdout
    assert "Run record: " in result.stdout
    assert ("stop the server with" in result.stdout) == (not os.environ.get("NEO4J_URI"))
