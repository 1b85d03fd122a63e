"""Every registry (kgverify/registry.py) is what the CLI offers, what the API accepts and
what the docs list, name for name: adding an entry is one line in one place, and a page or
a choice left behind fails here."""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kgverify import api
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.derive.model import Task
from kgverify.derive.qa import TASKS
from kgverify.ehr.common import Ledger, SourceError
from kgverify.ehr.model import SourceName
from kgverify.ehr.sources import EHR_SOURCES
from kgverify.engines import ENGINES
from kgverify.extract.registry import EXTRACTORS
from kgverify.registry import Registry, UnknownNameError
from kgverify.rows import RejectSink
from kgverify.verify.rules import RULES
from loaders import LOADERS, get_loader

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
OMOP = api.sample_path("omop", "eunomia_sample")

REGISTRIES: dict[str, Registry[typing.Any]] = {
    "vocabulary": LOADERS,
    "EHR source": EHR_SOURCES,
    "extractor": EXTRACTORS,
    "task": TASKS,
    "engine": ENGINES,
}


def _command(*path: str) -> click.Command:
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


def _choices(param: str, *path: str) -> list[str]:
    (found,) = [p for p in _command(*path).params if p.name == param]
    assert isinstance(found.type, click.Choice)
    return list(found.type.choices)


def _table(page: str, heading: str) -> list[list[str]]:
    """The rows (cells, backticks dropped) of the first table under ``heading``."""
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    at = lines.index(heading)
    rows: list[list[str]] = []
    for line in lines[at + 1 :]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            rows.append([c.strip().strip("`") for c in line.strip("|").split("|")])
        elif rows:
            break
    return rows[2:]  # the header and its rule


def test_every_registry_is_nonempty_and_described() -> None:
    for what, registry in REGISTRIES.items():
        assert registry.what == what
        assert list(registry), what
        for name, description in registry.describe().items():
            assert re.fullmatch(r"[a-z][a-z0-9_-]*", name), name
            assert description and "\n" not in description, name


# -- the CLI offers exactly each registry's names, in its order -------------------------------


@pytest.mark.parametrize(
    ("registry", "param", "command"),
    [
        (LOADERS, "vocabulary", ("load",)),
        (EHR_SOURCES, "source", ("ingest",)),
        (EHR_SOURCES, "source", ("trajectories",)),
        (EHR_SOURCES, "source", ("extract",)),
        (EXTRACTORS, "extractor", ("extract",)),
        (TASKS, "tasks", ("derive", "qa")),
        (TASKS, "tasks", ("review", "export")),
        (TASKS, "tasks", ("calibrate",)),
        (ENGINES, "engine", ("link",)),
        (ENGINES, "engine", ("verify",)),
        (ENGINES, "engine", ("run",)),
    ],
)
def test_cli_choices_are_the_registry(
    registry: Registry[typing.Any], param: str, command: tuple[str, ...]
) -> None:
    assert _choices(param, *command) == list(registry)


def test_ingest_help_names_every_source_with_its_path() -> None:
    result = CliRunner().invoke(cli, ["ingest", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    for name, what in EHR_SOURCES.describe().items():
        assert f"{name} ({what})" in text
    assert "{sources}" not in text


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["load", "nope", "."], "umls"),
        (["ingest", "nope", "."], "omop"),
        (["extract", "--extractor", "nope", "omop", "."], "template"),
        (["derive", "qa", "--task", "nope", "-o", "out"], "diagnosis"),
        (["calibrate", "qa", "--model", "m", "--task", "nope"], "diagnosis"),
        (["run", "run.toml", "--engine", "nope"], "'local', 'ray'"),
    ],
)
def test_cli_refuses_an_unknown_name_in_one_line(args: list[str], what: str) -> None:
    result = CliRunner().invoke(cli, args, prog_name="kgverify")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "'nope'" in lines[0] and what in lines[0]


# -- the API accepts exactly each registry's names -------------------------------------------


def test_api_picks_loaders_from_the_registry() -> None:
    for name in LOADERS:
        assert get_loader(name).name == name
    with pytest.raises(UnknownNameError) as err:
        api.load_vocabulary("nope", ROOT)
    assert str(err.value) == "unknown vocabulary 'nope' (known: umls, snomed, rxnorm)"


def test_api_reads_the_registered_ehr_sources(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path)
    ledger = Ledger(RejectSink(tmp_path / "rejects.jsonl"))
    for name in EHR_SOURCES:  # accepted: the reader itself refuses an empty folder
        with pytest.raises(SourceError):
            list(api.read_trajectories(name, tmp_path / "empty", ledger, settings))
    with pytest.raises(UnknownNameError) as err:
        api.read_trajectories("nope", OMOP, ledger, settings)
    assert str(err.value) == "unknown EHR source 'nope' (known: omop, mimic, fhir, fhir-rest)"
    # The `source` every trajectory carries is what the registered sources give, and every
    # one of them is given (fhir-rest reads FHIR: its trajectories are "fhir").
    given = [entry.trajectories for entry in EHR_SOURCES.values()]
    assert set(typing.get_args(SourceName)) == set(given)


def test_api_refuses_an_unknown_extractor(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path)
    with pytest.raises(UnknownNameError) as err:
        api.extract_relations(
            "omop", OMOP, tmp_path / "out.jsonl", settings=settings, extractor="nope"
        )
    assert str(err.value) == "unknown extractor 'nope' (known: template, openai, vllm)"
    assert not (tmp_path / "out.jsonl").exists()


def test_api_tasks_are_the_registry(tmp_path: Path) -> None:
    # Every task is a Task (the items' schema) and every Task has its candidates.
    assert list(TASKS) == [t.value for t in Task]
    for name, kind in TASKS.items():
        assert kind.task.value == name
    calls: list[Callable[[], object]] = [
        lambda: api.derive_qa(tmp_path / "qa", tasks=["diagnosis", "nope"]),
        lambda: api.review_export(tmp_path / "review", tasks=["nope"]),
    ]
    for call in calls:
        with pytest.raises(UnknownNameError) as err:
            call()
        assert str(err.value) == "unknown task 'nope' (known: diagnosis, treatment, prognosis)"


def test_api_refuses_an_unknown_engine(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path)
    calls: list[Callable[[], object]] = [
        lambda: api.link_relations_file(tmp_path / "r.jsonl", tmp_path / "l.jsonl", engine="nope"),
        lambda: api.verify_relations_file(
            tmp_path / "r.jsonl", tmp_path / "v.jsonl", engine="nope"
        ),
        lambda: api.pipeline_from_config(tmp_path / "run.toml", settings=settings, engine="nope"),
    ]
    (tmp_path / "run.toml").write_text(f'source = "omop"\nsource_path = "{OMOP}"\nout = "o"\n')
    for call in calls:
        with pytest.raises(UnknownNameError) as err:
            call()
        assert str(err.value) == "unknown engine 'nope' (known: local, ray)"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.toml"]  # nothing written


def test_rules_are_named_once_and_have_their_query() -> None:
    names = [rule.name for rule in RULES]
    assert len(set(names)) == len(names)
    assert sorted(rule.order for rule in RULES) == [rule.order for rule in RULES]
    for name in names:
        assert (ROOT / "queries" / "verify" / f"{name}.cypher").is_file(), name


# -- the docs list exactly each registry's names ---------------------------------------------


def test_docs_list_the_loaders() -> None:
    text = (DOCS / "loaders.md").read_text(encoding="utf-8")
    first_block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    assert re.findall(r"^kgverify load (\w+)", first_block, re.M) == list(LOADERS)


def test_docs_list_the_ehr_sources() -> None:
    (row,) = [r for r in _table("trajectories.md", "### Trajectory") if r[0] == "source"]
    given = list(dict.fromkeys(entry.trajectories for entry in EHR_SOURCES.values()))
    assert re.findall(r'"(\w+)"', " ".join(row[1:])) == given


def test_docs_list_the_extractors() -> None:
    rows = _table("extraction.md", "## Extractors")
    assert {r[0]: r[1] for r in rows} == EXTRACTORS.describe()


def test_docs_list_the_tasks() -> None:
    assert [r[0] for r in _table("derivation.md", "## QA items")] == list(TASKS)


def test_docs_list_the_rules() -> None:
    rows = _table("verification.md", "## Rules")
    assert [(r[0], r[1]) for r in rows] == [(x.name, f"{x.name}.cypher") for x in RULES]


def test_docs_list_the_engines() -> None:
    rows = _table("scale.md", "## Engines")
    assert {r[0]: r[1] for r in rows} == ENGINES.describe()


def test_the_features_page_names_each_registry_in_full() -> None:
    text = (ROOT / "docs" / "features.md").read_text(encoding="utf-8")
    named: dict[str, tuple[str, Registry[typing.Any]]] = {
        "load": (r"kgverify load ([\w|]+) PATH", LOADERS),
        "ingest": (r"kgverify ingest ([\w|-]+) SOURCE", EHR_SOURCES),
        "trajectories": (r"kgverify trajectories ([\w|-]+) SOURCE", EHR_SOURCES),
        "extract": (r"--extractor ([\w|]+)\]", EXTRACTORS),
    }
    for what, (pattern, registry) in named.items():
        found = re.findall(pattern, text)
        assert found, what
        for names in found:
            assert names.split("|") == list(registry), what
