"""Protocol tests of item calibration (``kgverify calibrate``, ``api.calibrate_items``).

These are protocol tests, not model tests: a real LLM server (``vllm serve``) cannot run
here, so the stand-in of test_extract_protocol (``FixtureServer``, an ``http.server`` on
127.0.0.1, port 0) answers ``/v1/chat/completions`` for a panel of made-up models, each
deterministically from the request: it finds which item's question is in the prompt and
answers as the model named in the body would:

* ``strong``: the correct label, in each accepted form in turn (``B``, ``B.``, ``(B)``,
  ``Answer: B``), except on the prognosis item, where it answers a wrong label;
* ``always-a``: ``A``;
* ``chatty``: a sentence around a label, or a label the item does not have: never read;
* ``broken``: HTTP 500 (vLLM's error body); any other model: HTTP 404, model unknown.

The QA folder is written from ``QAItem`` models (``kgverify.derive.model``). The tests
check the request (temperature 0, the seed, no structured output, the prompt), the per-model
accuracy per task and split, ``solved_by_all`` / ``solved_by_none``, unparsed and failed
counts, the cache, the file permissions, the ``--json`` shape and the error lines.
"""

from __future__ import annotations

import json
import socket
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kgverify.api import calibrate_items
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.derive.calibrate import (
    CalibrationReport,
    CalibrationRow,
    parse_label,
    prompt_version,
    render_prompt,
)
from kgverify.derive.model import DistractorWhy, Justification, Option, QAItem, Task
from kgverify.jsonl import read_models, write_models
from tests.unit.test_extract_llm import fake_vllm
from tests.unit.test_extract_protocol import FixtureServer, chat_completion

# (number, task, split, answer, options): 7 items over every task and split.
ITEMS = [
    (1, Task.DIAGNOSIS, "test", "A", 4),
    (2, Task.DIAGNOSIS, "test", "B", 4),
    (3, Task.DIAGNOSIS, "test", "C", 4),
    (4, Task.DIAGNOSIS, "train", "D", 4),
    (5, Task.TREATMENT, "test", "A", 4),
    (6, Task.TREATMENT, "test", "B", 4),
    (7, Task.PROGNOSIS, "validation", "C", 3),
]
FORMS = ("{}", "{}.", "({})", "Answer: {}")


def qa_item(number: int, task: Task, split: str, answer: str, options: int) -> QAItem:
    labels = "ABCDEFGHIJ"[:options]
    why = Justification(rule=f"{task.value}.elsewhere", version="v1", reason="a reason")
    return QAItem(
        item_id=f"item-{number:02d}",
        task=task,
        split=split,
        patient_id=f"patient-{number}",
        episode=f"enc-{number}",
        question=f"A female patient aged 40-49 is seen at case {number:02d}. Which one fits?",
        context=[],
        options=[
            Option(label=label, concept_id=f"C:{number}{label}", text=f"choice {number}{label}")
            for label in labels
        ],
        answer=answer,
        answer_concept=f"C:{number}{answer}",
        basis=[f"assertion-{number}"],
        rules=["rule@1"],
        template=f"{task.value}@000000000000",
        seed=13,
        topic=f"C:topic{number}",
        content_key=f"key-{number}",
        content_group=f"group-{number}",
        why_wrong=[
            DistractorWhy(
                label=label, concept_id=f"C:{number}{label}", text="x", justifications=[why]
            )
            for label in labels
            if label != answer
        ],
        releases=["UMLS@2025AA"],
        policy="stored",
    )


def write_qa(folder: Path, items: list[QAItem]) -> Path:
    """A derived folder's layout: <task>/<split>.jsonl."""
    groups: dict[tuple[str, str], list[QAItem]] = {}
    for item in items:
        groups.setdefault((item.task.value, item.split), []).append(item)
    for (task, split), group in groups.items():
        (folder / task).mkdir(parents=True, exist_ok=True)
        write_models(group, folder / task / f"{split}.jsonl")
    return folder


class PanelServer(FixtureServer):
    """The stand-in answering as each model of the panel would (module docstring)."""

    def __init__(self, items: list[QAItem]) -> None:
        self.items = items
        super().__init__()

    def exchange(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = str(body["messages"][-1]["content"])
        (item,) = [i for i in self.items if i.question in prompt]
        number = int(item.item_id.rsplit("-", 1)[1])
        model = body["model"]
        if model == "strong":
            label = item.answer if item.task is not Task.PROGNOSIS else "A"
            return {"response": chat_completion(FORMS[number % len(FORMS)].format(label))}
        if model == "always-a":
            return {"response": chat_completion("A")}
        if model == "chatty":
            text = f"I think it is {item.answer}." if number % 2 else "Z"
            return {"response": chat_completion(text)}
        if model == "broken":
            message = "EngineCore encountered an issue."
            return {"status": 500, "response": {"object": "error", "message": message}}
        message = f"The model `{model}` does not exist."
        return {"status": 404, "response": {"object": "error", "message": message}}


@pytest.fixture
def items() -> list[QAItem]:
    return [qa_item(*spec) for spec in ITEMS]


@pytest.fixture
def qa(tmp_path: Path, items: list[QAItem]) -> Path:
    return write_qa(tmp_path / "qa", items)


@pytest.fixture
def server(items: list[QAItem]) -> Iterator[PanelServer]:
    stand_in = PanelServer(items)
    yield stand_in
    stand_in.close()


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(tmp_path / "cache"))
    return Settings()


def run_cli(*args: str) -> Result:
    return CliRunner().invoke(
        cli, ["calibrate", *args], prog_name="kgverify", env={"COLUMNS": "80"}
    )


def scores(report: CalibrationReport) -> dict[tuple[str, str, str], tuple[int, int, float]]:
    return {(s.model, s.task, s.split): (s.items, s.correct, s.accuracy) for s in report.scores}


# -- the answer format -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("B", "B"),
        ("B.", "B"),
        ("(B)", "B"),
        ("Answer: B", "B"),
        ("answer: (B)", "B"),
        ("  Answer:B.\n", "B"),
        ("b", None),  # lower case: not the label format asked for
        ("E", None),  # not a label of the item
        ("B)", None),
        ("**B**", None),
        ("The answer is B", None),
        ("B. metformin", None),
        ("A or B", None),
        ("", None),
    ],
)
def test_only_the_strict_forms_are_read(answer: str, label: str | None) -> None:
    assert parse_label(answer, ["A", "B", "C", "D"]) == label


def test_the_prompt_shows_question_and_options_and_asks_for_the_letter(
    items: list[QAItem],
) -> None:
    prompt = render_prompt(items[6])  # three options
    assert items[6].question in prompt
    assert "\nA. choice 7A\nB. choice 7B\nC. choice 7C\n" in prompt
    assert "Answer with the letter only: one of A, B or C, and nothing else." in prompt
    assert prompt_version().startswith("calibrate@") and len(prompt_version()) == 22


# -- against the stand-in server ---------------------------------------------------------------


def test_request_is_free_text_at_temperature_0_with_the_seed(
    server: PanelServer, qa: Path, settings: Settings, tmp_path: Path
) -> None:
    calibrate_items(
        qa,
        models=["always-a"],
        base_url=server.url,
        out=tmp_path / "cal",
        seed=7,
        api_key="sk-test",
        settings=settings,
    )
    assert len(server.requests) == len(ITEMS)
    body = server.requests[0]
    assert body["model"] == "always-a"
    assert (body["temperature"], body["seed"], body["max_tokens"]) == (0.0, 7, 16)
    assert "response_format" not in body  # asked, not forced
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert sorted(server.prompts()) == sorted(render_prompt(qa_item(*s)) for s in ITEMS)
    assert server.headers[0]["Authorization"] == "Bearer sk-test"


def test_accuracy_solved_by_all_and_none(
    server: PanelServer, qa: Path, settings: Settings, tmp_path: Path
) -> None:
    seen: list[tuple[int, int]] = []
    report = calibrate_items(
        qa,
        models=["strong", "always-a"],
        base_url=server.url,
        out=tmp_path / "cal",
        settings=settings,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert report.models == ["strong", "always-a"]
    assert report.items == {
        "diagnosis": {"test": 3, "train": 1},
        "treatment": {"test": 2},
        "prognosis": {"validation": 1},
    }
    assert scores(report) == {
        ("strong", "diagnosis", "train"): (1, 1, 1.0),
        ("strong", "diagnosis", "test"): (3, 3, 1.0),
        ("strong", "treatment", "test"): (2, 2, 1.0),
        ("strong", "prognosis", "validation"): (1, 0, 0.0),
        ("always-a", "diagnosis", "train"): (1, 0, 0.0),
        ("always-a", "diagnosis", "test"): (3, 1, 0.3333),
        ("always-a", "treatment", "test"): (2, 1, 0.5),
        ("always-a", "prognosis", "validation"): (1, 0, 0.0),
    }
    assert [(t.model, t.items, t.correct, t.accuracy) for t in report.totals] == [
        ("strong", 7, 6, 0.8571),
        ("always-a", 7, 2, 0.2857),
    ]
    assert report.solved_by_all == ["item-01", "item-05"]  # flagged as too easy
    assert report.solved_by_none == ["item-07"]
    assert report.unparsed == {"strong": 0, "always-a": 0}
    assert report.failed == {"strong": 0, "always-a": 0}
    assert (report.model_calls, report.cached) == (14, 0)
    assert seen[-1] == (14, 14) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    rows = list(read_models(Path(report.rows), CalibrationRow))
    assert len(rows) == 14
    strong = {r.item_id: r for r in rows if r.model == "strong"}
    assert strong["item-02"].chosen == "B" and strong["item-02"].correct
    assert strong["item-07"].outcome == "wrong" and strong["item-07"].chosen == "A"
    assert {r.answer_chars for r in rows if r.model == "always-a"} == {1}
    assert all(r.prompt == report.prompt == prompt_version() for r in rows)


def test_unparsed_answers_are_recorded_never_guessed(
    server: PanelServer, qa: Path, settings: Settings, tmp_path: Path
) -> None:
    report = calibrate_items(
        qa,
        models=["strong", "always-a", "chatty"],
        base_url=server.url,
        out=tmp_path / "cal",
        settings=settings,
    )
    assert report.unparsed == {"strong": 0, "always-a": 0, "chatty": 7}
    assert report.totals[2].accuracy == 0.0 and report.totals[2].unparsed == 7
    assert report.solved_by_all == []  # chatty solves nothing
    assert report.solved_by_none == ["item-07"]
    rows = [r for r in read_models(Path(report.rows), CalibrationRow) if r.model == "chatty"]
    assert {(r.chosen, r.correct, r.outcome) for r in rows} == {(None, False, "unparsed")}
    # "I think it is B." names the right label, but not in the form asked for.
    assert {r.answer_chars for r in rows} == {len("I think it is A."), len("Z")}


def test_backend_errors_are_retried_then_counted_failed(
    server: PanelServer, qa: Path, settings: Settings, tmp_path: Path
) -> None:
    report = calibrate_items(
        qa, models=["broken"], base_url=server.url, out=tmp_path / "cal", settings=settings
    )
    assert report.failed == {"broken": 7} and report.unparsed == {"broken": 0}
    assert len(server.requests) == 3 * 7  # three attempts each
    rows = list(read_models(Path(report.rows), CalibrationRow))
    assert {(r.outcome, r.answer_chars) for r in rows} == {("failed", None)}


def test_a_rerun_is_answered_from_the_cache(
    server: PanelServer, qa: Path, settings: Settings, tmp_path: Path
) -> None:
    options: dict[str, Any] = {"base_url": server.url, "settings": settings}
    first = calibrate_items(qa, models=["strong", "chatty"], out=tmp_path / "a", **options)
    sent = len(server.requests)
    second = calibrate_items(qa, models=["strong", "chatty"], out=tmp_path / "b", **options)
    assert len(server.requests) == sent == 14
    assert (second.model_calls, second.cached) == (0, 14)
    assert (tmp_path / "a" / "calibration.jsonl").read_bytes() == (
        tmp_path / "b" / "calibration.jsonl"
    ).read_bytes()
    assert second.scores == first.scores
    other_seed = calibrate_items(qa, models=["strong"], out=tmp_path / "c", seed=1, **options)
    assert other_seed.model_calls == 7  # the seed is part of the key
    no_cache = calibrate_items(qa, models=["strong"], out=tmp_path / "d", cache=False, **options)
    assert (no_cache.model_calls, no_cache.cached) == (7, 0)


def test_cli_json_shape_files_and_permissions(
    server: PanelServer, qa: Path, settings: Settings, tmp_path: Path
) -> None:
    out = tmp_path / "new" / "cal"
    result = run_cli(
        str(qa),
        "--model",
        "strong",
        "--model",
        "always-a",
        "--model",
        "chatty",
        "--base-url",
        server.url,
        "-o",
        str(out),
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == set(CalibrationReport.model_fields)
    assert data["models"] == ["strong", "always-a", "chatty"]
    assert data["solved_by_all"] == [] and data["solved_by_none"] == ["item-07"]
    assert data["unparsed"] == {"strong": 0, "always-a": 0, "chatty": 7}
    assert {t["model"]: t["accuracy"] for t in data["totals"]} == {
        "strong": 0.8571,
        "always-a": 0.2857,
        "chatty": 0.0,
    }
    assert set(data["scores"][0]) == {
        "model",
        "task",
        "split",
        "items",
        "correct",
        "wrong",
        "unparsed",
        "failed",
        "accuracy",
    }
    assert data["params"] == {"temperature": 0.0, "max_tokens": 16, "seed": 0}
    assert sorted(p.name for p in out.iterdir()) == ["calibration.jsonl", "report.json"]
    assert json.loads((out / "report.json").read_text()) == data
    for path in (out / "calibration.jsonl", out / "report.json"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    rows = (out / "calibration.jsonl").read_text()
    assert len(rows.splitlines()) == 21
    assert "case 0" not in rows and "choice" not in rows and "I think" not in rows  # no text


def test_cli_table_default_and_filters(
    server: PanelServer, qa: Path, settings: Settings, tmp_path: Path
) -> None:
    result = run_cli(
        str(qa),
        "--model",
        "strong",
        "--model",
        "always-a",
        "--base-url",
        server.url,
        "--task",
        "diagnosis",
        "--split",
        "test",
        "--limit",
        "2",
    )
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("2 items x 2 models (openai, calibrate@")
    assert "Accuracy per task and split" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    table = [line.split() for line in text.splitlines() if "diagnosis/test" in line]
    assert table == [
        ["│", "diagnosis/test", "│", "2", "│", "2", "│", "0", "│", "0", "│", "1.000", "│"],
        ["│", "diagnosis/test", "│", "2", "│", "1", "│", "0", "│", "0", "│", "0.500", "│"],
    ]
    assert "1 items solved by every model (too easy): item-01" in text
    assert "0 items solved by no model" in text
    default_out = qa.with_name("qa-calibration")
    assert (default_out / "calibration.jsonl").is_file()
    assert len(server.requests) == 4


# -- the offline engine (a stand-in vllm module, as in test_extract_llm) -----------------------


def test_vllm_backend_asks_free_text_one_model_after_another(
    monkeypatch: pytest.MonkeyPatch, qa: Path, settings: Settings, tmp_path: Path
) -> None:
    seen = fake_vllm(monkeypatch, new_api=True, answer_for=lambda prompt: "(A)")
    report = calibrate_items(
        qa,
        models=["m1", "m2"],
        backend="vllm",
        out=tmp_path / "cal",
        seed=3,
        engine_kwargs={"max_model_len": 2048},
        settings=settings,
    )
    assert seen["engine"] == {"model": "m2", "max_model_len": 2048}  # the last one loaded
    assert seen["sampling"].kwargs == {"temperature": 0.0, "max_tokens": 16, "seed": 3}
    assert [len(conversations) for conversations, _ in seen["chat"]] == [7, 7]
    assert report.backend == "vllm"
    assert [(t.model, t.correct) for t in report.totals] == [("m1", 2), ("m2", 2)]
    assert report.solved_by_all == ["item-01", "item-05"]


@pytest.mark.usefixtures("settings")
def test_vllm_missing_is_one_error_line(monkeypatch: pytest.MonkeyPatch, qa: Path) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # import vllm -> ImportError
    line = _error_line(run_cli(str(qa), "--model", "m", "--backend", "vllm", "--json"))
    assert line.startswith("error: the vllm backend needs vllm (")


# -- errors: one line, non-zero exit, nothing left behind --------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _error_line(result: Result) -> str:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and "Traceback" not in result.output
    return line


@pytest.mark.usefixtures("settings")
def test_server_down_is_one_error_line(qa: Path, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    out = tmp_path / "cal"
    line = _error_line(
        run_cli(str(qa), "--model", "m", "--base-url", url, "-o", str(out), "--json")
    )
    assert line.startswith(f"error: cannot reach {url}/chat/completions"), line
    assert not (out / "calibration.jsonl").exists()
    assert not (out / "calibration.partial.jsonl").exists()


@pytest.mark.usefixtures("settings")
@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        ("ftp://127.0.0.1/v1", "error: LLM server URL must be http(s)://...: 'ftp://127.0.0.1/v1'"),
        (None, "error: --backend openai needs --base-url (e.g. http://127.0.0.1:8000/v1)"),
    ],
)
def test_bad_or_missing_url_is_one_error_line(
    qa: Path, base_url: str | None, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    url = ["--base-url", base_url] if base_url else []
    assert _error_line(run_cli(str(qa), "--model", "m", *url, "--json")) == expected


@pytest.mark.usefixtures("settings")
def test_unknown_model_is_one_error_line(server: PanelServer, qa: Path) -> None:
    line = _error_line(run_cli(str(qa), "--model", "nope", "--base-url", server.url))
    assert "answered HTTP 404: The model `nope` does not exist." in line


@pytest.mark.usefixtures("settings")
def test_bad_qa_dir_is_one_error_line(server: PanelServer, tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    line = _error_line(run_cli(str(missing), "--model", "m", "--base-url", server.url))
    assert line == f"error: no QA folder at {missing} (run `kgverify derive qa -o {missing}` first)"
    empty = tmp_path / "empty"
    empty.mkdir()
    line = _error_line(run_cli(str(empty), "--model", "m", "--base-url", server.url, "--json"))
    assert line.startswith(f"error: no QA items in {empty}: no <task>/<split>.jsonl files")
    bad = tmp_path / "bad"
    (bad / "treatment").mkdir(parents=True)
    (bad / "treatment" / "test.jsonl").write_text('{"item_id": "x"}\n')
    line = _error_line(run_cli(str(bad), "--model", "m", "--base-url", server.url))
    assert line.startswith(f"error: {bad}/treatment/test.jsonl: line 1: not a QA item (")
    assert server.requests == []


@pytest.mark.usefixtures("settings")
def test_filters_that_leave_nothing_are_one_error_line(server: PanelServer, qa: Path) -> None:
    args = ("--model", "m", "--base-url", server.url, "--task", "treatment", "--split", "train")
    line = _error_line(run_cli(str(qa), *args))
    assert line == f"error: no QA items in {qa} for treatment, train"
