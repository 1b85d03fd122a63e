"""The parameters of ``api.pipeline`` / ``pipeline_from_config`` are checked before anything
runs: a wrong key or value is one ``ConfigError`` line naming the key (no graph needed:
nothing connects before the check)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgverify.api import pipeline, pipeline_from_config, sample_path
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.pipeline import PipelineConfig, read_pipeline_config

SOURCE = sample_path("omop", "eunomia_sample")
GOOD = f'source = "omop"\nsource_path = "{SOURCE}"\nout = "run"\n'
# A port nothing listens on: a check that let a run start would fail to connect instead.
NOWHERE = Settings(neo4j_uri="bolt://127.0.0.1:1", neo4j_password="x")


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        pipeline_from_config(_config(tmp_path, text), settings=NOWHERE)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_good_file_reads_with_its_folder_as_the_base(tmp_path: Path) -> None:
    (tmp_path / "extra.jsonl").write_text("")
    text = GOOD + 'tasks = ["treatment"]\n[vocabularies]\numls = "."\n[[relations]]\n'
    text += 'path = "extra.jsonl"\n'
    config = read_pipeline_config(_config(tmp_path, text))
    assert config.out == tmp_path / "run"
    assert config.vocabularies == {"umls": tmp_path}
    assert [r.path for r in config.relations] == [tmp_path / "extra.jsonl"]
    assert [r.stem for r in config.relations] == ["extra"]
    assert config.engine == "local" and config.extractor == "template" and config.facts


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ('extractr = "template"\n', "unknown key 'extractr' (did you mean 'extractor'?)"),
        ('extractor = "gpt"\n', "extractor: unknown extractor 'gpt' (known: template, openai"),
        ('engine = "spark"\n', "engine: unknown engine 'spark' (known: local, ray)"),
        ("concurrency = 0\n", "concurrency: Input should be greater than or equal to 1"),
        ('tasks = "treatment"\n', "tasks: Input should be a valid list"),
        ('tasks = ["triage"]\n', "tasks: unknown task 'triage' (known: diagnosis"),
        ('facts = "maybe"\n', "facts: Input should be a valid boolean"),
        ('[vocabularies]\nicd = "."\n', "vocabularies: unknown vocabulary 'icd'"),
        ('[[relations]]\npth = "x"\n', "unknown key 'relations[0].pth' (did you mean 'path'?)"),
        ('[[relations]]\npath = "nope.jsonl"\n', "relations[0].path: no such file or folder"),
        ('dialogues = "nope.jsonl"\n', "dialogues: no such file or folder"),
    ],
)
def test_a_wrong_key_or_value_is_one_line_naming_it(
    tmp_path: Path, extra: str, expected: str
) -> None:
    message = _error(tmp_path, GOOD + extra)
    assert message.startswith(f"{tmp_path / 'run.toml'}: ")
    assert expected in message


def test_missing_keys_bad_toml_and_no_file(tmp_path: Path) -> None:
    assert "source_path: Field required" in _error(tmp_path, 'source = "omop"\nout = "run"\n')
    assert "not valid TOML" in _error(tmp_path, "source = \n")
    assert "source: unknown EHR source 'epic'" in _error(tmp_path, GOOD.replace('"omop"', '"epic"'))
    with pytest.raises(ConfigError, match="no such pipeline config"):
        pipeline_from_config(tmp_path / "absent.toml", settings=NOWHERE)


def test_dialogues_need_fact_sheets(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").write_text("")
    message = _error(tmp_path, GOOD + 'dialogues = "d.jsonl"\nfacts = false\n')
    assert "set facts = true" in message


def test_keyword_arguments_get_the_same_checks(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^pipeline: engine: unknown engine 'spark'"):
        pipeline(source="omop", source_path=SOURCE, out=tmp_path, engine="spark", settings=NOWHERE)
    with pytest.raises(ConfigError, match=r"^pipeline: relations: two files named 'a'"):
        (tmp_path / "a.jsonl").write_text("")
        (tmp_path / "sub").mkdir()
        (tmp_path / "sub" / "a.jsonl").write_text("")
        pipeline(
            source="omop",
            source_path=SOURCE,
            out=tmp_path,
            relations=[{"path": tmp_path / "a.jsonl"}, {"path": tmp_path / "sub" / "a.jsonl"}],
            settings=NOWHERE,
        )


def test_every_parameter_of_pipeline_is_a_config_key() -> None:
    import inspect

    run_only = {
        "settings",
        "graph",
        "progress",
        "on_step",
        "bars",
    }  # how and where it runs, not what
    parameters = set(inspect.signature(pipeline).parameters) - run_only
    assert parameters == set(PipelineConfig.model_fields)
