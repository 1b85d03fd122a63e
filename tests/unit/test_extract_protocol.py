"""Protocol tests of ``OpenAIBackend``: the HTTP exchange with an OpenAI-compatible server.

These are protocol tests, not model tests: a real LLM server (``vllm serve``) cannot run
here, so a small ``http.server`` on 127.0.0.1 (port 0, in a thread) answers
``/v1/chat/completions`` with the hand-written chat-completion bodies of
``tests/fixtures/llm/*.json`` (see its README), and records every request: body, headers,
and how many were in flight at once. They check the request (model, messages, temperature
0, ``response_format`` with the derived schema), the answer paths end to end (valid,
repaired, schema violations, rejected relations), the cache, the concurrency limit, and
what a faulty or missing server becomes.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast

import pytest

from kgverify.ehr.model import ItemLists
from kgverify.errors import ConfigError
from kgverify.extract.backends import CompletionError, OpenAIBackend
from kgverify.extract.cache import ResponseCache
from kgverify.extract.llm import LLMExtractor, LLMRequestError, LLMUnavailableError
from kgverify.extract.prompting import response_schema
from kgverify.extract.relation import CandidateRelation, ExtractionFailure
from tests.unit.test_extract_llm import FIXTURES, relation, sample_trajectory

Result = CandidateRelation | ExtractionFailure


class FixtureServer:
    """Serves a fixture file's exchanges; records requests and peak concurrency."""

    def __init__(self) -> None:
        self.exchanges: list[dict[str, Any]] = []
        self.delay_s = 0.0
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.active = 0
        self.max_active = 0
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.fixture = self  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def serve(self, name: str, delay_s: float = 0.0) -> FixtureServer:
        self.exchanges = json.loads((FIXTURES / name).read_text())["exchanges"]
        self.delay_s = delay_s
        return self

    def exchange(self, body: dict[str, Any]) -> dict[str, Any]:
        """The exchange that answers a request: by its prompt (a stand-in serving several
        models overrides this to answer by ``body["model"]`` too)."""
        return self.match(body["messages"][-1]["content"])

    def match(self, prompt: str) -> dict[str, Any]:
        for exchange in self.exchanges:
            if all(part in prompt for part in exchange["match"]):
                return exchange
        return {"status": 400, "response": {"object": "error", "message": "no fixture matches"}}

    def prompts(self) -> list[str]:
        return [str(r["messages"][-1]["content"]) for r in self.requests]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        fixture: FixtureServer = cast(Any, self.server).fixture
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with fixture.lock:
            fixture.requests.append(body)
            fixture.headers.append(dict(self.headers))
            fixture.active += 1
            fixture.max_active = max(fixture.max_active, fixture.active)
        try:
            exchange = fixture.exchange(body)
            time.sleep(fixture.delay_s + exchange.get("delay_s", 0.0))
        finally:
            # Before the answer is written: the client cannot send its next request
            # earlier, so max_active never overstates what the client had in flight.
            with fixture.lock:
                fixture.active -= 1
        payload = json.dumps(exchange["response"]).encode()
        try:
            self.send_response(exchange.get("status", 200))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except OSError:  # the client gave up (timeout test)
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    fixture = FixtureServer()
    yield fixture
    fixture.close()


def extract(backend: OpenAIBackend, **options: Any) -> tuple[list[Result], LLMExtractor]:
    extractor = LLMExtractor(backend, **{"cache": None, **options})
    results = list(extractor.extract([sample_trajectory()]))
    assert extractor.counts.reconciles, extractor.counts
    return results, extractor


def test_request_is_a_structured_chat_completion(server: FixtureServer) -> None:
    backend = OpenAIBackend(server.serve("valid.json").url, "qwen-test", api_key="sk-test")
    results, extractor = extract(backend)
    assert all(isinstance(r, CandidateRelation) for r in results) and len(results) == 4
    assert extractor.counts.model_calls == len(server.requests) == 2
    body = server.requests[0]
    assert body["model"] == "qwen-test"
    assert body["temperature"] == 0.0 and body["max_tokens"] == 2048
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "kgverify_relations", "schema": response_schema()},
    }
    assert server.headers[0]["Authorization"] == "Bearer sk-test"
    assert server.headers[0]["Content-Type"] == "application/json"


def test_extra_params_go_into_the_body(server: FixtureServer) -> None:
    params = {"max_tokens": 512, "seed": 7, "repetition_penalty": 1.05}
    extract(OpenAIBackend(server.serve("valid.json").url, "m", params=params))
    body = server.requests[0]
    assert (body["max_tokens"], body["seed"], body["repetition_penalty"]) == (512, 7, 1.05)
    assert "Authorization" not in server.headers[0]


def test_invalid_json_then_valid_on_the_repair_prompt(server: FixtureServer) -> None:
    results, extractor = extract(OpenAIBackend(server.serve("repair.json").url, "m"))
    assert [type(r).__name__ for r in results] == ["CandidateRelation"] * 4
    prompts = server.prompts()
    assert len(prompts) == 3
    repairs = [p for p in prompts if "could not be used" in p]
    assert len(repairs) == 1 and "[lab-hba1c]" in repairs[0]
    assert "invalid_json: Expecting" in repairs[0]
    assert extractor.counts.repairs == 1


def test_schema_violation_is_retried_then_recorded(server: FixtureServer) -> None:
    results, _ = extract(OpenAIBackend(server.serve("schema_violation.json").url, "m"))
    failures = [r for r in results if isinstance(r, ExtractionFailure)]
    assert len(failures) == 1
    failure = failures[0]
    assert failure.reason.startswith("schema_violation: relations: Field required")
    assert failure.attempts == 3 and json.loads(failure.raw).keys() == {"facts"}
    assert len([p for p in server.prompts() if "[lab-hba1c]" in p]) == 3
    assert sum(isinstance(r, CandidateRelation) for r in results) == 2  # e2


def test_bad_relations_rejected_others_kept(server: FixtureServer) -> None:
    results, extractor = extract(OpenAIBackend(server.serve("mixed.json").url, "m"))
    reasons = [r.reason.split(":")[0] for r in results if isinstance(r, ExtractionFailure)]
    assert reasons == [
        "unknown_predicate",
        "evidence_not_in_encounter",
        "duplicate_relation",
        "evidence_not_in_encounter",
        "invalid_relation",
    ]
    assert extractor.counts.relations == 3
    assert len(server.requests) == 2  # a usable answer is not retried


def test_second_run_makes_zero_requests(server: FixtureServer, tmp_path: Path) -> None:
    backend = OpenAIBackend(server.serve("repair.json").url, "m")
    with ResponseCache(tmp_path / "llm-cache.sqlite") as cache:
        first, _ = extract(backend, cache=cache)
    sent = len(server.requests)
    assert sent == 3
    with ResponseCache(tmp_path / "llm-cache.sqlite") as cache:
        second, extractor = extract(backend, cache=cache)
    assert len(server.requests) == sent
    assert second == first
    assert (extractor.counts.model_calls, extractor.counts.cached) == (0, 3)


def test_concurrency_limit_is_respected(server: FixtureServer) -> None:
    server.serve("valid.json", delay_s=0.05)
    backend = OpenAIBackend(server.url, "m", concurrency=3)
    trajectories = [sample_trajectory(f"p{i}") for i in range(6)]  # 12 prompts
    extractor = LLMExtractor(backend, cache=None)
    results = list(extractor.extract(trajectories))
    assert len(results) == 24 and len(server.requests) == 12
    assert 2 <= server.max_active <= 3


def test_progress_reports_each_answer(server: FixtureServer) -> None:
    seen: list[tuple[int, int]] = []
    backend = OpenAIBackend(server.serve("valid.json").url, "m", concurrency=2)
    extract(backend, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 2), (2, 2)]


def test_server_errors_are_retried_then_recorded(server: FixtureServer) -> None:
    results, extractor = extract(OpenAIBackend(server.serve("errors.json").url, "m"))
    failure = results[0]
    assert isinstance(failure, ExtractionFailure)
    assert failure.reason == "backend_error: HTTP 500: EngineCore encountered an issue."
    assert failure.attempts == 3 and failure.raw == ""
    e1 = [p for p in server.prompts() if "[lab-hba1c]" in p]
    assert len(e1) == 3 and len(set(e1)) == 1  # resent unchanged, no repair prompt
    assert extractor.counts.failures == {"backend_error": 1}


def test_unknown_model_is_a_clear_error(server: FixtureServer) -> None:
    backend = OpenAIBackend(server.serve("unknown_model.json").url, "nope")
    with pytest.raises(LLMRequestError, match=r"answered HTTP 404: The model `nope` does not"):
        extract(backend)


def test_timeouts_are_per_prompt_failures(server: FixtureServer) -> None:
    server.serve("valid.json")
    server.exchanges[0]["delay_s"] = 1.0  # e1 only
    backend = OpenAIBackend(server.url, "m", timeout_s=0.2)
    results, _ = extract(backend, max_attempts=2)
    failure = results[0]
    assert isinstance(failure, ExtractionFailure) and failure.attempts == 2
    assert failure.reason == f"backend_error: no answer from {backend.url} within 0.2 s"
    assert sum(isinstance(r, CandidateRelation) for r in results) == 2


def test_server_down_is_a_clear_error() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    backend = OpenAIBackend(f"http://127.0.0.1:{port}/v1", "m")
    with pytest.raises(LLMUnavailableError, match=rf"cannot reach http://127.0.0.1:{port}/v1"):
        extract(backend)
    assert backend.complete([]) == []


def test_not_a_chat_completion_is_a_per_prompt_failure(server: FixtureServer) -> None:
    server.exchanges = [{"match": [], "response": {"choices": []}}]
    answers = OpenAIBackend(server.url, "m").complete(["a"])
    assert answers == [CompletionError("the server's answer is not a chat completion")]


def test_bad_backend_settings() -> None:
    with pytest.raises(ConfigError, match="http"):
        OpenAIBackend("file:///etc/passwd", "m")
    with pytest.raises(ConfigError, match="concurrency"):
        OpenAIBackend("http://127.0.0.1:1/v1", "m", concurrency=0)


def chat_completion(content: str) -> dict[str, Any]:
    return {
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
    }


def test_items_outside_encounters_reach_prompts_by_day(server: FixtureServer) -> None:
    """Facts recorded outside any encounter (most of an OMOP export's) are sent, one prompt
    per day, the same episodes the template extractor reads; undated ones are counted."""
    base = sample_trajectory()
    e1, e2, _ = base.encounters
    day = e1.conditions[0].model_copy(
        update={"item_id": "out-cond", "start": date(2020, 6, 1), "display": "Gout"}
    )
    drug = e1.drug_exposures[0].model_copy(
        update={"item_id": "out-drug", "start": date(2020, 6, 1), "end": None}
    )
    undated = e2.procedures[0].model_copy(update={"item_id": "out-undated", "start": None})
    outside = ItemLists(conditions=[day], drug_exposures=[drug], procedures=[undated])
    trajectory = base.model_copy(update={"items_outside_encounters": outside})
    server.exchanges = [
        {
            "match": ["Episode: no encounter; items recorded on 2020-06-01", "[out-cond]"],
            "response": chat_completion(
                json.dumps(
                    {
                        "relations": [
                            relation("metformin", "treats", "Gout", ["out-drug", "out-cond"])
                        ]
                    }
                )
            ),
        },
        {"match": [], "response": chat_completion('{"relations": []}')},
    ]
    extractor = LLMExtractor(OpenAIBackend(server.url, "m"), cache=None)
    results = list(extractor.extract([trajectory]))
    counts = extractor.counts
    assert counts.reconciles, counts
    assert (counts.episodes, counts.prompts, counts.undated) == (4, 3, 1)
    day_prompts = [p for p in server.prompts() if "no encounter" in p]
    assert len(day_prompts) == 1 and "[out-drug]" in day_prompts[0]
    assert "[out-undated]" not in "".join(server.prompts())
    # Time order: the 2020 day comes between e1 (2019) and e2 (2021), so e2's prompt lists
    # the day's condition among the earlier ones and e1's does not. (Prompts are sent
    # concurrently: the order they reach the server in says nothing.)
    earlier = [
        p.split("Earlier conditions")[1] for p in server.prompts() if "no encounter" not in p
    ]
    assert sum("[out-cond] Gout" in e for e in earlier) == 1, earlier
    (found,) = [r for r in results if isinstance(r, CandidateRelation)]
    assert found.encounter_id is None and found.evidence == ["out-drug", "out-cond"]
