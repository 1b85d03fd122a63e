"""Protocol test of `kgverify extract --extractor openai` end to end on the shipped OMOP
sample: the real LLM server cannot run here, so the local fixture server of
test_extract_protocol answers (an empty answer for every prompt, or an error)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify.api import sample_path
from kgverify.cli import cli
from tests.unit.test_extract_protocol import FixtureServer

OMOP = str(sample_path("omop", "eunomia_sample"))


def _run(server: FixtureServer, out: Path) -> dict[str, object]:
    result = CliRunner().invoke(
        cli,
        [
            "extract",
            "--extractor",
            "openai",
            "omop",
            OMOP,
            "-o",
            str(out),
            "--model",
            "m",
            "--base-url",
            server.url,
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FixtureServer:
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(tmp_path / "cache"))
    return FixtureServer()


def test_answers_flow_to_jsonl_and_the_cache(server: FixtureServer, tmp_path: Path) -> None:
    fixture = tmp_path / "empty.json"
    fixture.write_text(
        json.dumps(
            {
                "exchanges": [
                    {
                        "match": [],
                        "response": {
                            "object": "chat.completion",
                            "model": "m",
                            "choices": [
                                {
                                    "index": 0,
                                    "finish_reason": "stop",
                                    "message": {
                                        "role": "assistant",
                                        "content": '{"relations": []}',
                                    },
                                }
                            ],
                        },
                    }
                ]
            }
        )
    )
    server.exchanges = json.loads(fixture.read_text())["exchanges"]
    try:
        first = _run(server, tmp_path / "a.jsonl")
        sent = len(server.requests)
        assert first["patients"] == 39 and first["relations"] == 0 and first["failures"] == 0
        llm = first["llm"]
        assert isinstance(llm, dict) and llm["model_calls"] == sent > 0
        again = _run(server, tmp_path / "b.jsonl")
        assert len(server.requests) == sent  # every answer came from the cache
        assert isinstance(again["llm"], dict) and again["llm"]["cached"] == sent
    finally:
        server.close()


def test_unusable_answers_become_recorded_failures(server: FixtureServer, tmp_path: Path) -> None:
    server.exchanges = []  # every request gets HTTP 400 "no fixture matches"
    try:
        result = _run(server, tmp_path / "r.jsonl")
    finally:
        server.close()
    assert result["relations"] == 0 and isinstance(result["failures"], int)
    failures = Path(str(result["failures_out"])).read_text().splitlines()
    assert len(failures) == result["failures"] > 0
    assert all(json.loads(line)["reason"] for line in failures)
