"""The filter policy as an input (issue 17, part 4): `--accept`, `--min-score`,
`--min-confidence` on `verify` and `derive qa`, checked as the settings are (one `error:`
line naming the option, exit 2); a TOML config file (`--config FILE`, `./kgverify.toml`)
for every setting, below options and the environment; unknown keys named. No server needed:
every failure here happens before a connection. `kgverify check` refuses an unknown
predicate the same way, listing the allowed ones."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify.cli import cli
from kgverify.config import Settings, use_config_file, with_options
from kgverify.errors import ConfigError


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith(("KGVERIFY_", "NEO4J_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no kgverify.toml but the test's own
    use_config_file(None)


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


@pytest.fixture
def relations(tmp_path: Path) -> Path:
    path = tmp_path / "relations.jsonl"
    path.write_text("{}\n")
    return path


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("--min-score", "abc"), "error: --min-score='abc': expected a number"),
        (("--min-score", "1.5"), "error: --min-score='1.5': expected a value <= 1.0"),
        (("--min-confidence", "-1"), "error: --min-confidence='-1': expected a value >= 0.0"),
        (
            ("--accept", "supported,hallucinated"),
            "error: --accept='supported,hallucinated': unknown verdict 'hallucinated'; expected "
            "some of supported, contradicted, unsupported, ambiguous, unlinked, type_mismatch",
        ),
    ],
)
def test_bad_policy_options_are_one_error_line(
    relations: Path, tmp_path: Path, args: tuple[str, ...], line: str
) -> None:
    for command in (
        ("verify", str(relations), "-o", str(tmp_path / "v.jsonl")),
        ("derive", "qa", "-o", str(tmp_path / "qa")),
    ):
        code, output = run(*command, *args)
        assert (code, output) == (2, line + "\n"), command


def test_policy_options_are_checked_and_override_like_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KGVERIFY_VERIFY_MIN_SCORE", "0.7")
    settings = with_options(
        Settings(),
        verify_accept=("--accept", "supported, ambiguous"),
        verify_min_confidence=("--min-confidence", None),  # not given: left alone
    )
    assert settings.verify_accept == ["supported", "ambiguous"]
    assert settings.verify_min_score == 0.7  # from the environment
    assert settings.verify_min_confidence == 0.0
    assert settings.policy_given
    assert Settings().model_copy(update={"verify_min_score": 0.5}).policy_given
    monkeypatch.delenv("KGVERIFY_VERIFY_MIN_SCORE")
    assert not Settings().policy_given  # defaults only: derivation uses the stored flags


def test_precedence_option_then_environment_then_file_then_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "kgverify.toml").write_text(
        'verify_min_score = 0.9\nverify_min_confidence = 0.4\nverify_accept = ["ambiguous"]\n'
        "derive_splits = { train = 0.5, test = 0.5 }\n"
    )
    monkeypatch.setenv("KGVERIFY_VERIFY_MIN_CONFIDENCE", "0.2")
    settings = with_options(Settings(), verify_accept=("--accept", "supported"))
    assert settings.verify_accept == ["supported"]  # option over file
    assert settings.verify_min_confidence == 0.2  # environment over file
    assert settings.verify_min_score == 0.9  # file over default
    assert settings.derive_splits == {"train": 0.5, "test": 0.5}
    assert settings.verify_max_depth == 3  # default
    assert Settings(verify_min_score=0.1).verify_min_score == 0.1  # passed in over file


def test_config_option_names_another_file(tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text("verify_min_score = 0.95\n")
    use_config_file(other)
    assert Settings().verify_min_score == 0.95
    use_config_file(None)
    assert Settings().verify_min_score == 0.5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "verify_min_scor = 0.9\n",
            "kgverify.toml: unknown setting 'verify_min_scor' (did you mean 'verify_min_score'?)",
        ),
        ("verify_min_score = 'abc'\n", "kgverify.toml: verify_min_score='abc': expected a number"),
        ("verify_min_score = \n", "kgverify.toml: not valid TOML"),
        ("[kgverify]\nbatch_size = 5\n", "kgverify.toml: unknown setting 'kgverify'"),
    ],
)
def test_config_file_errors_are_one_line(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "kgverify.toml").write_text(text)
    with pytest.raises(ConfigError) as raised:
        Settings()
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)
    code, output = run("summary")
    assert code == 2 and output.startswith(f"error: {message}") and output.count("\n") == 1


def test_a_missing_config_file_is_an_error(tmp_path: Path) -> None:
    code, output = run("--config", str(tmp_path / "nope.toml"), "summary")
    assert (code, output) == (2, f"error: no such config file: {tmp_path / 'nope.toml'}\n")


def test_check_refuses_an_unknown_predicate_listing_the_allowed_ones() -> None:
    code, output = run("check", "metformin", "cures", "type 2 diabetes")
    assert (code, output) == (
        2,
        "error: unknown predicate 'cures'; allowed: indicates, treats, leads_to, "
        "contraindicated_for\n",
    )
