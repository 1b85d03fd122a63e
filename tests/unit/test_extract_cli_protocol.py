"""Protocol test of `kgverify extract --extractor openai` end to end on the shipped OMOP
sample: the real LLM server cannot run here, so the local fixture server of
test_extract_protocol answers (an empty answer for every prompt, or an error)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify.api import sample_path
from kgverify.cli import cli
from kgverify.ehr import Ledger, read_omop
from kgverify.ehr.episodes import episodes
from kgverify.rows import RejectSink
from tests.unit.test_extract_protocol import FixtureServer, chat_completion

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


def _sample_outside_items(tmp: Path) -> tuple[set[str], int]:
    """The item ids of the sample's dated facts outside encounters, and its episodes."""
    ledger = Ledger(RejectSink(tmp / "rejects.jsonl"))
    outside: set[str] = set()
    count = 0
    for trajectory in read_omop(Path(OMOP), ledger, salt="any"):
        outside |= {
            i.item_id for i in trajectory.items_outside_encounters.items() if i.start is not None
        }
        count += len(episodes(trajectory))
    return outside, count


def test_the_samples_facts_outside_encounters_reach_prompts(
    server: FixtureServer, tmp_path: Path
) -> None:
    """Nearly all of the sample's facts lie outside encounters: each is sent in the prompt
    of its day, and an answer citing them becomes a relation without an encounter."""
    outside, episode_count = _sample_outside_items(tmp_path)
    assert len(outside) > 4000
    cited = sorted(outside)[0]
    answer = {"subject": {"text": "a"}, "predicate": "treats", "object": {"text": "b"}}
    server.exchanges = [
        {
            "match": ["Episode: no encounter; items recorded on", f"[{cited}]"],
            "response": chat_completion(
                json.dumps({"relations": [{**answer, "evidence": [cited], "confidence": 0.5}]})
            ),
        },
        {"match": [], "response": chat_completion('{"relations": []}')},
    ]
    try:
        result = _run(server, tmp_path / "r.jsonl")
    finally:
        server.close()
    prompted = {i for p in server.prompts() for i in re.findall(r"^- \[([0-9a-f]{16})\]", p, re.M)}
    assert outside <= prompted
    llm = result["llm"]
    assert isinstance(llm, dict) and llm["episodes"] == result["episodes"] == episode_count
    assert llm["prompts"] == len(server.requests) > 1000
    (line,) = (tmp_path / "r.jsonl").read_text().splitlines()
    relation = json.loads(line)
    assert relation["encounter_id"] is None and relation["evidence"] == [cited]


def test_no_relations_still_has_a_headline(server: FixtureServer, tmp_path: Path) -> None:
    server.exchanges = [{"match": [], "response": chat_completion('{"relations": []}')}]
    args = ["extract", "--extractor", "openai", "omop", OMOP, "-o", str(tmp_path / "r.jsonl")]
    try:
        result = CliRunner().invoke(cli, [*args, "--model", "m", "--base-url", server.url])
    finally:
        server.close()
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert re.match(r"0 relations proposed from \d+ episodes of 39 patients -> ", first), first
    assert "(none)" in result.stdout  # the empty per-predicate table says so
