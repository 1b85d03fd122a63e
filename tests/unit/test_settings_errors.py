"""A bad NEO4J_URI or KGVERIFY_* value is one ConfigError naming the variable and what it
expects, for library users and on the command line (one `error:` line, exit 2); list
settings take the comma form as well as JSON."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kgverify.config import VERDICT_KINDS, Settings
from kgverify.errors import ConfigError


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("KGVERIFY_", "NEO4J_")):
            monkeypatch.delenv(name)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("KGVERIFY_BATCH_SIZE", "abc", "KGVERIFY_BATCH_SIZE='abc': expected an integer"),
        ("KGVERIFY_BATCH_SIZE", "0", "KGVERIFY_BATCH_SIZE='0': expected a value >= 1"),
        ("KGVERIFY_VERIFY_MIN_SCORE", "abc", "KGVERIFY_VERIFY_MIN_SCORE='abc': expected a number"),
        (
            "KGVERIFY_VERIFY_ACCEPT",
            "supported,maybe",
            "KGVERIFY_VERIFY_ACCEPT='supported,maybe': unknown verdict 'maybe'; expected some of "
            "supported, contradicted, unsupported, ambiguous, unlinked, type_mismatch",
        ),
        (
            "KGVERIFY_VERIFY_ACCEPT",
            '["supported"',
            'KGVERIFY_VERIFY_ACCEPT=\'["supported"\': expected a JSON list like ["a", "b"] or a,b',
        ),
        ("KGVERIFY_NEO4J_HEAP", "lots", "KGVERIFY_NEO4J_HEAP='lots': expected a size such as"),
        ("KGVERIFY_DERIVE_SPLITS", "{train", "KGVERIFY_DERIVE_SPLITS='{train': expected JSON"),
        ("NEO4J_URI", "htp://x", "NEO4J_URI='htp://x': expected bolt|bolt+s|bolt+ssc|neo4j|"),
        ("NEO4J_URI", "bolt://localhost:notaport", "NEO4J_URI='bolt://localhost:notaport'"),
        ("NEO4J_URI", "bolt://h:70000", "NEO4J_URI='bolt://h:70000': expected"),
        ("NEO4J_URI", "neo4j://", "NEO4J_URI='neo4j://': expected"),
    ],
)
def test_a_bad_value_is_one_config_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as raised:
        Settings()
    text = str(raised.value)
    assert text.startswith(message)
    assert "\n" not in text


def test_keyword_values_are_checked_the_same_way() -> None:
    with pytest.raises(ConfigError, match=r"^KGVERIFY_BATCH_SIZE=-5: expected a value >= 1$"):
        Settings(batch_size=-5)


@pytest.mark.parametrize(
    "uri",
    ["bolt://127.0.0.1:7687", "neo4j+s://abc.databases.neo4j.io", "bolt+ssc://h", "neo4j://h:1"],
)
def test_good_uris_pass(monkeypatch: pytest.MonkeyPatch, uri: str) -> None:
    monkeypatch.setenv("NEO4J_URI", uri)
    assert Settings().neo4j_uri == uri


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("supported", ["supported"]),
        ("supported, ambiguous", ["supported", "ambiguous"]),
        ('["supported", "unsupported"]', ["supported", "unsupported"]),
    ],
)
def test_list_settings_take_the_comma_form_and_json(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: list[str]
) -> None:
    monkeypatch.setenv("KGVERIFY_VERIFY_ACCEPT", value)
    monkeypatch.setenv("KGVERIFY_VERIFY_HUB_IDS", "UMLS:C1,UMLS:C2")
    monkeypatch.setenv("KGVERIFY_FACTS_ALLERGY_ROOTS", "SNOMEDCT:1")
    settings = Settings()
    assert settings.verify_accept == expected
    assert settings.verify_hub_ids == ["UMLS:C1", "UMLS:C2"]
    assert settings.facts_allergy_roots == ["SNOMEDCT:1"]


def test_verdict_kinds_match_the_model() -> None:
    from kgverify.verify.model import VerdictKind

    assert set(VERDICT_KINDS) == {kind.value for kind in VerdictKind}


@pytest.mark.parametrize(
    ("name", "value", "line"),
    [
        ("KGVERIFY_BATCH_SIZE", "abc", "error: KGVERIFY_BATCH_SIZE='abc': expected an integer\n"),
        ("KGVERIFY_VERIFY_MIN_SCORE", "abc", "error: KGVERIFY_VERIFY_MIN_SCORE='abc': expected"),
        ("KGVERIFY_VERIFY_ACCEPT", "supported,bogus", "error: KGVERIFY_VERIFY_ACCEPT="),
        ("NEO4J_URI", "htp://x", "error: NEO4J_URI='htp://x': expected"),
        ("NEO4J_URI", "bolt://localhost:notaport", "error: NEO4J_URI='bolt://localhost:notaport'"),
    ],
)
def test_cli_prints_one_line_and_exits_2(name: str, value: str, line: str) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", name: value}
    done = subprocess.run(
        [sys.executable, "-m", "kgverify", "summary"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(line)
    assert done.stderr.count("\n") == 1
    assert done.stdout == ""
