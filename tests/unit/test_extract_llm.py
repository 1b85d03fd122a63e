"""The LLM extractor without a model: prompts, the answer schema, parsing, the rules for
retries and rejected relations, the cache and the counts, with a scripted in-process
backend; and ``VLLMBackend`` against stand-in ``vllm`` modules of both API generations.
The HTTP backend is tested against a local server in ``test_extract_protocol.py``."""

from __future__ import annotations

import hashlib
import json
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

import pytest

from kgverify.ehr.model import (
    Condition,
    DrugExposure,
    Encounter,
    Measurement,
    Note,
    Patient,
    Procedure,
    SourceRef,
    Trajectory,
)
from kgverify.errors import ConfigError
from kgverify.extract.backends import Completion, CompletionError, Progress, VLLMBackend
from kgverify.extract.cache import ResponseCache, cache_key
from kgverify.extract.llm import (
    FailureKind,
    LLMExtractor,
    LLMUnavailableError,
    UnusableAnswerError,
    extract_json,
    failure_kind,
    parse_answer,
)
from kgverify.extract.prompting import (
    RELATIONS_TEMPLATE,
    REPAIR_TEMPLATE,
    build_prompts,
    load_template,
    response_schema,
    template_version,
)
from kgverify.extract.relation import CandidateRelation, ExtractionFailure, Predicate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llm"
Result = CandidateRelation | ExtractionFailure
T = TypeVar("T")


def _ref(table: str, row: str, code: str) -> SourceRef:
    return SourceRef(table=table, row=row, code_system="x", code=code)


def sample_trajectory(patient_id: str = "p1") -> Trajectory:
    """Three encounters: e1 (diabetes, metformin, HbA1c, a note), e2 (CKD, eGFR, an
    ultrasound; diabetes as an earlier condition), e3 (no items: no prompt)."""
    e1 = Encounter(
        encounter_id="e1",
        start=date(2019, 1, 10),
        kind="outpatient",
        conditions=[
            Condition(
                item_id="cond-t2dm",
                source=_ref("condition_occurrence", "1", "201826"),
                display="Type 2 diabetes mellitus",
                code_system="SNOMEDCT",
                code="44054006",
                start=date(2019, 1, 10),
            )
        ],
        drug_exposures=[
            DrugExposure(
                item_id="drug-metformin",
                source=_ref("drug_exposure", "1", "1503297"),
                display="metformin 500 MG Oral Tablet",
                code_system="RXNORM",
                code="860975",
                dose="500",
                dose_unit="mg",
                route="oral",
                start=date(2019, 1, 10),
                end=date(2019, 7, 10),
            )
        ],
        measurements=[
            Measurement(
                item_id="lab-hba1c",
                source=_ref("measurement", "1", "3004410"),
                display="Hemoglobin A1c",
                code_system="LNC",
                code="4548-4",
                value=8.1,
                unit="%",
                ref_low=4,
                ref_high=5.6,
                start=date(2019, 1, 10),
            )
        ],
        notes=[
            Note(
                item_id="note-1",
                source=_ref("note", "1", "0"),
                title="Progress note",
                text="Poorly controlled diabetes. Started metformin.",
            )
        ],
    )
    e2 = Encounter(
        encounter_id="e2",
        start=date(2021, 3, 2),
        end=date(2021, 3, 6),
        kind="inpatient",
        conditions=[
            Condition(
                item_id="cond-ckd",
                source=_ref("condition_occurrence", "2", "443611"),
                display="Chronic kidney disease stage 3",
                code_system="SNOMEDCT",
                code="433144002",
            )
        ],
        measurements=[
            Measurement(
                item_id="lab-egfr",
                source=_ref("measurement", "2", "3049187"),
                display="eGFR",
                code_system="LNC",
                code="62238-1",
                value=38.0,
                unit="mL/min/1.73m2",
                ref_low=60,
            )
        ],
        procedures=[
            Procedure(
                item_id="proc-us",
                source=_ref("procedure_occurrence", "1", "4"),
                display="Ultrasound of kidney",
                code_system="SNOMEDCT",
                code="306005",
            )
        ],
    )
    e3 = Encounter(encounter_id="e3", start=date(2021, 5, 1), kind="emergency")
    return Trajectory(
        source="omop",
        patient=Patient(patient_id=patient_id, age_band="60-69", sex="F"),
        encounters=[e1, e2, e3],
    )


def fixture_answer(name: str, marker: str, *, repair: bool = False) -> str:
    """The message content a fixture file serves for the prompt that contains ``marker``."""
    data = json.loads((FIXTURES / name).read_text())
    for exchange in data["exchanges"]:
        match = exchange["match"]
        if marker in match and (("could not be used" in match) == repair):
            return str(exchange["response"]["choices"][0]["message"]["content"])
    raise LookupError((name, marker))


def relation(
    subject: str, predicate: str, obj: str, evidence: list[str], confidence: float = 0.9
) -> dict[str, Any]:
    return {
        "subject": {"text": subject},
        "predicate": predicate,
        "object": {"text": obj},
        "evidence": evidence,
        "confidence": confidence,
    }


def answer(*relations: dict[str, Any]) -> str:
    return json.dumps({"relations": list(relations)})


class ScriptedBackend:
    """Answers each prompt with ``script(prompt)``; records every call."""

    kind = "openai"

    def __init__(
        self, script: Callable[[str], Completion], model: str = "scripted", **params: Any
    ) -> None:
        self.script = script
        self.model = model
        self.params: dict[str, Any] = {"temperature": 0.0, **params}
        self.schema: dict[str, Any] = response_schema()
        self.calls: list[list[str]] = []

    def complete(
        self, prompts: Sequence[str], progress: Progress | None = None
    ) -> list[Completion]:
        self.calls.append(list(prompts))
        answers = []
        for done, prompt in enumerate(prompts, start=1):
            answers.append(self.script(prompt))
            if progress is not None:
                progress(done, len(prompts))
        return answers

    @property
    def prompts(self) -> list[str]:
        return [p for call in self.calls for p in call]


def by_encounter(e1: T, e2: T) -> Callable[[str], T]:
    """e1's answer for e1's prompt (and its repairs), e2's for any other."""
    return lambda prompt: e1 if "[lab-hba1c]" in prompt else e2


VALID_E1 = fixture_answer("valid.json", "[lab-hba1c]")
VALID_E2 = fixture_answer("valid.json", "[lab-egfr]")


def run(extractor: LLMExtractor, *trajectories: Trajectory) -> list[Result]:
    results = list(extractor.extract(trajectories or [sample_trajectory()]))
    assert extractor.counts.reconciles, extractor.counts
    return results


def relations_of(results: list[Result]) -> list[CandidateRelation]:
    return [r for r in results if isinstance(r, CandidateRelation)]


def failures_of(results: list[Result]) -> list[ExtractionFailure]:
    return [r for r in results if isinstance(r, ExtractionFailure)]


# --- prompts -------------------------------------------------------------------------------


def test_prompts_are_deterministic_byte_for_byte() -> None:
    trajectory = sample_trajectory()
    again = Trajectory.model_validate_json(trajectory.model_dump_json())
    first = [p.text for p in build_prompts(trajectory)]
    assert first == [p.text for p in build_prompts(again)]
    assert first[0] == (FIXTURES / "prompt_e1.txt").read_text(encoding="utf-8")


def test_prompt_lines_carry_item_ids_and_values() -> None:
    e1, e2 = build_prompts(sample_trajectory())  # e3 has no items: no prompt
    assert (e1.encounter_id, e2.encounter_id) == ("e1", "e2")
    assert e1.item_ids == {"cond-t2dm", "drug-metformin", "lab-hba1c", "note-1"}
    text = e1.text
    assert "Patient: age band 60-69, sex F" in text
    assert "Episode: outpatient encounter, 2019-01-10" in text
    assert "- [cond-t2dm] Type 2 diabetes mellitus (SNOMEDCT 44054006): on 2019-01-10" in text
    assert (
        "- [drug-metformin] metformin 500 MG Oral Tablet (RXNORM 860975): dose 500 mg, "
        "route oral, from 2019-01-10 to 2019-07-10"
    ) in text
    assert "- [lab-hba1c] Hemoglobin A1c (LNC 4548-4): 8.1 %, high, range 4-5.6" in text
    assert (
        "[note-1] Progress note\n<<<\nPoorly controlled diabetes. Started metformin.\n>>>" in text
    )
    assert "Procedures:\n(none)" in text
    assert text.endswith("latest first):\n(none)\n")
    # e2 shows e1's diabetes as an earlier condition, which leads_to may cite.
    assert "- [lab-egfr] eGFR (LNC 62238-1): 38 mL/min/1.73m2, low, range >= 60" in e2.text
    assert e2.text.endswith(
        "- [cond-t2dm] Type 2 diabetes mellitus (SNOMEDCT 44054006): on 2019-01-10\n"
    )
    assert e2.earlier_ids == {"cond-t2dm"}
    assert "Episode: inpatient encounter, 2021-03-02 to 2021-03-06" in e2.text


def test_long_notes_are_cut_and_earlier_conditions_listed_once_per_code() -> None:
    base = sample_trajectory()
    e1 = base.encounters[0]
    long_note = e1.notes[0].model_copy(update={"text": "x" * 50})
    repeat = e1.model_copy(update={"encounter_id": "e0", "start": date(2018, 1, 1)})
    trajectory = base.model_copy(
        update={"encounters": [repeat, e1.model_copy(update={"notes": [long_note]})]}
    )
    _, second = build_prompts(trajectory, max_note_chars=10)
    assert "xxxxxxxxxx [... cut]\n>>>" in second.text
    assert second.text.count("[cond-t2dm]") == 2  # its own line and one earlier line


def test_template_names_every_predicate_and_versions_by_hash() -> None:
    template = load_template(RELATIONS_TEMPLATE)
    for predicate in Predicate:
        assert f"- {predicate.value}:" in template
    digest = hashlib.sha256()
    for name in (RELATIONS_TEMPLATE, REPAIR_TEMPLATE):
        digest.update(name.encode() + b"\0" + load_template(name).encode() + b"\0")
    assert template_version() == digest.hexdigest()[:16]


# --- the answer schema and parsing ----------------------------------------------------------


def test_response_schema_names_the_predicates_as_an_enum() -> None:
    schema = response_schema()
    relation_schema = schema["$defs"]["LLMRelation"]
    assert schema["required"] == ["relations"]
    assert schema["additionalProperties"] is False
    assert relation_schema["properties"]["predicate"] == {"$ref": "#/$defs/Predicate"}
    assert schema["$defs"]["Predicate"]["enum"] == [p.value for p in Predicate]
    assert set(relation_schema["required"]) == {
        "subject",
        "predicate",
        "object",
        "evidence",
        "confidence",
    }
    assert schema["$defs"]["Mention"]["required"] == ["text"]
    schema["required"] = []  # a fresh copy each time
    assert response_schema()["required"] == ["relations"]


@pytest.mark.parametrize(
    "text",
    [
        '{"relations": []}',
        'Sure, here it is:\n{"relations": []}\nAnything else?',
        '```json\n{"relations": []}\n```',
        'Answer:\n```\n{"relations": []}\n```\nDone.',
        '  {"relations": []} {"relations": [1]}',
    ],
)
def test_extract_json_reads_the_first_object(text: str) -> None:
    assert extract_json(text) == {"relations": []}


@pytest.mark.parametrize(
    ("text", "kind", "detail"),
    [
        ("no JSON here", FailureKind.INVALID_JSON, "no JSON object"),
        ('{"relations": [', FailureKind.INVALID_JSON, "line 1 column"),
        ('{"facts": []}', FailureKind.SCHEMA_VIOLATION, "relations: Field required"),
        ('{"relations": "none"}', FailureKind.SCHEMA_VIOLATION, "relations: Input should be"),
        ('{"relations": ["x"]}', FailureKind.SCHEMA_VIOLATION, "relations.0:"),
    ],
)
def test_unusable_answers(text: str, kind: FailureKind, detail: str) -> None:
    with pytest.raises(UnusableAnswerError) as caught:
        parse_answer(text)
    assert caught.value.kind is kind
    assert detail in caught.value.detail


# --- extraction rules -------------------------------------------------------------------------


def test_valid_answers_become_relations_with_evidence() -> None:
    backend = ScriptedBackend(by_encounter(VALID_E1, VALID_E2), model="m1")
    extractor = LLMExtractor(backend, cache=None)
    results = run(extractor)
    relations = relations_of(results)
    assert relations == results  # no failures
    assert len(backend.calls) == 1 and len(backend.calls[0]) == 2  # one batch, two encounters
    assert [(r.encounter_id, r.predicate, r.evidence) for r in relations] == [
        ("e1", Predicate.TREATS, ["drug-metformin", "cond-t2dm"]),
        ("e1", Predicate.INDICATES, ["lab-hba1c", "cond-t2dm"]),
        ("e2", Predicate.LEADS_TO, ["cond-t2dm", "cond-ckd"]),
        ("e2", Predicate.INDICATES, ["lab-egfr", "cond-ckd"]),
    ]
    first = relations[0]
    assert first.patient_id == "p1"
    assert first.subject.code == "860975" and first.object.code_system == "SNOMEDCT"
    assert first.confidence == 0.92
    assert first.extractor.model_dump() == {
        "name": "openai",
        "version": template_version(),
        "model": "m1",
    }
    counts = extractor.counts
    assert (counts.episodes, counts.skipped_empty, counts.prompts) == (3, 1, 2)
    assert (counts.answered, counts.first_attempt_ok, counts.relations) == (2, 2, 4)
    assert (counts.requests, counts.model_calls, counts.cached, counts.repairs) == (2, 2, 0, 0)


def test_invalid_json_is_repaired_with_the_error_in_the_prompt() -> None:
    broken = fixture_answer("repair.json", "[lab-hba1c]")
    repaired = fixture_answer("repair.json", "[lab-hba1c]", repair=True)
    backend = ScriptedBackend(
        lambda p: repaired if "could not be used" in p else by_encounter(broken, VALID_E2)(p)
    )
    extractor = LLMExtractor(backend, cache=None)
    results = run(extractor)
    assert not failures_of(results)
    assert [r.encounter_id for r in relations_of(results)] == ["e1", "e1", "e2", "e2"]
    assert [len(call) for call in backend.calls] == [2, 1]
    repair = backend.calls[1][0]
    assert repair.startswith("Your previous answer to the task below could not be used:")
    assert "invalid_json: " in repair and broken in repair
    assert repair.endswith(build_prompts(sample_trajectory())[0].text + "\n")
    counts = extractor.counts
    assert (counts.requests, counts.repairs, counts.first_attempt_ok) == (3, 1, 1)


def test_schema_violation_retried_then_recorded_with_the_raw_text() -> None:
    wrong = fixture_answer("schema_violation.json", "[lab-hba1c]")
    backend = ScriptedBackend(by_encounter(wrong, VALID_E2))
    extractor = LLMExtractor(backend, cache=None, max_attempts=3)
    results = run(extractor)
    [failure] = failures_of(results)
    assert failure.encounter_id == "e1" and failure.patient_id == "p1"
    assert (
        failure.reason
        == "schema_violation: relations: Field required; facts: Extra inputs are not permitted"
    )
    assert failure_kind(failure) is FailureKind.SCHEMA_VIOLATION
    assert failure.raw == wrong and failure.attempts == 3
    assert [len(call) for call in backend.calls] == [2, 1, 1]
    assert len(relations_of(results)) == 2  # e2 kept
    assert extractor.counts.failures == {"schema_violation": 1}
    assert (extractor.counts.failed, extractor.counts.repairs) == (1, 2)


def test_raw_text_is_cut_to_4000_characters() -> None:
    backend = ScriptedBackend(lambda p: "no json " * 1000)
    [failure, _] = failures_of(run(LLMExtractor(backend, cache=None, max_attempts=1)))
    assert len(failure.raw) == 4000
    assert failure.reason == "invalid_json: no JSON object in the answer"
    assert failure.attempts == 1


def test_bad_relations_are_rejected_one_by_one_and_the_others_kept() -> None:
    mixed = by_encounter(
        fixture_answer("mixed.json", "[lab-hba1c]"), fixture_answer("mixed.json", "[lab-egfr]")
    )
    extractor = LLMExtractor(ScriptedBackend(mixed), cache=None)
    results = run(extractor)
    first_id = relations_of(results)[0].relation_id
    summary = [
        (r.encounter_id, r.predicate.value)
        if isinstance(r, CandidateRelation)
        else (r.encounter_id, r.reason)
        for r in results
    ]
    assert summary == [
        ("e1", "treats"),
        (
            "e1",
            "unknown_predicate: relation 1: 'causes' is not one of "
            "indicates, treats, leads_to, contraindicated_for",
        ),
        ("e1", "evidence_not_in_encounter: relation 2: 'lab-egfr' not items of this episode"),
        ("e1", "indicates"),
        ("e1", f"duplicate_relation: relation 4: repeats relation {first_id}"),
        ("e2", "leads_to"),
        # Earlier conditions are evidence for leads_to only.
        ("e2", "evidence_not_in_encounter: relation 1: 'cond-t2dm' not items of this episode"),
        ("e2", "invalid_relation: relation 2: confidence: Input should be less than or equal to 1"),
    ]
    rejected = failures_of(results)
    assert json.loads(rejected[0].raw)["predicate"] == "causes"
    assert all(f.attempts == 1 for f in rejected)
    counts = extractor.counts
    assert (counts.relations, counts.rejected, counts.failed, counts.answered) == (3, 5, 0, 2)
    assert counts.failures == {
        "unknown_predicate": 1,
        "evidence_not_in_encounter": 2,
        "duplicate_relation": 1,
        "invalid_relation": 1,
    }


def test_leads_to_needs_evidence_from_its_own_encounter() -> None:
    only_earlier = answer(relation("T2DM", "leads_to", "CKD", ["cond-t2dm"]))
    backend = ScriptedBackend(by_encounter(answer(), only_earlier))
    [failure] = failures_of(run(LLMExtractor(backend, cache=None)))
    assert failure.reason == "evidence_not_in_encounter: relation 0: no evidence from this episode"


def test_relations_of_another_patient_keep_their_own_ids() -> None:
    backend = ScriptedBackend(by_encounter(VALID_E1, answer()))
    extractor = LLMExtractor(backend, cache=None)
    relations = relations_of(run(extractor, sample_trajectory("p1"), sample_trajectory("p2")))
    assert [r.patient_id for r in relations] == ["p1", "p1", "p2", "p2"]
    assert relations[0].relation_id != relations[2].relation_id
    assert len(backend.calls[0]) == 4  # batched across patients


def test_backend_errors_are_resent_unchanged_then_recorded() -> None:
    attempts: list[str] = []

    def flaky(prompt: str) -> Completion:
        attempts.append(prompt)
        if "[lab-hba1c]" in prompt and len(attempts) < 4:
            return CompletionError("HTTP 503: busy")
        return by_encounter(VALID_E1, VALID_E2)(prompt)

    results = run(LLMExtractor(ScriptedBackend(flaky), cache=None))
    assert len(relations_of(results)) == 4  # e1 answered on its third try
    e1 = [p for p in attempts if "[lab-hba1c]" in p]
    assert len(e1) == 3 and len(set(e1)) == 1  # the same prompt, not a repair

    down = ScriptedBackend(lambda p: CompletionError("HTTP 503: busy"))
    extractor = LLMExtractor(down, cache=None, max_attempts=2)
    failures = failures_of(run(extractor))
    assert [(f.reason, f.attempts, f.raw) for f in failures] == [
        ("backend_error: HTTP 503: busy", 2, ""),
        ("backend_error: HTTP 503: busy", 2, ""),
    ]
    assert extractor.counts.failures == {"backend_error": 2}


def test_batches_and_progress() -> None:
    seen: list[tuple[int, int]] = []
    backend = ScriptedBackend(by_encounter(VALID_E1, VALID_E2))
    extractor = LLMExtractor(
        backend, cache=None, batch_size=1, progress=lambda done, total: seen.append((done, total))
    )
    run(extractor, sample_trajectory("p1"), sample_trajectory("p2"))
    assert [len(call) for call in backend.calls] == [2, 2]  # one batch per trajectory
    assert seen == [(1, 2), (2, 2), (3, 4), (4, 4)]


def test_bad_settings_are_config_errors() -> None:
    backend = ScriptedBackend(lambda p: answer())
    with pytest.raises(ConfigError, match="max_attempts"):
        LLMExtractor(backend, cache=None, max_attempts=0)
    with pytest.raises(ConfigError, match="batch_size"):
        LLMExtractor(backend, cache=None, batch_size=0)


# --- cache -----------------------------------------------------------------------------------


def test_second_run_answers_from_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "llm-cache.sqlite"
    broken = fixture_answer("repair.json", "[lab-hba1c]")
    backend = ScriptedBackend(
        lambda p: VALID_E1 if "could not be used" in p else by_encounter(broken, VALID_E2)(p)
    )
    with ResponseCache(path) as cache:
        first = run(LLMExtractor(backend, cache=cache))
        assert len(cache) == 3  # both prompts and the repair prompt
    calls = len(backend.prompts)
    with ResponseCache(path) as cache:
        extractor = LLMExtractor(backend, cache=cache)
        second = run(extractor)
    assert len(backend.prompts) == calls  # zero model calls
    assert second == first
    counts = extractor.counts
    assert (counts.model_calls, counts.cached, counts.requests) == (0, 3, 3)


def test_cache_key_covers_model_params_schema_and_prompt(tmp_path: Path) -> None:
    key = cache_key("openai", "m", {"temperature": 0.0}, {"type": "object"}, "p")
    assert key == cache_key("openai", "m", {"temperature": 0.0}, {"type": "object"}, "p")
    assert len(key) == 64
    others = {
        cache_key("vllm", "m", {"temperature": 0.0}, {"type": "object"}, "p"),
        cache_key("openai", "m2", {"temperature": 0.0}, {"type": "object"}, "p"),
        cache_key("openai", "m", {"temperature": 0.5}, {"type": "object"}, "p"),
        cache_key("openai", "m", {"temperature": 0.0}, {"type": "array"}, "p"),
        cache_key("openai", "m", {"temperature": 0.0}, {"type": "object"}, "q"),
    }
    assert len(others) == 5 and key not in others

    backend = ScriptedBackend(by_encounter(VALID_E1, VALID_E2))
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        run(LLMExtractor(backend, cache=cache))
        run(LLMExtractor(ScriptedBackend(backend.script, model="other"), cache=cache))
        hotter = ScriptedBackend(backend.script, temperature=0.7)
        run(LLMExtractor(hotter, cache=cache))
        assert len(cache) == 6
        assert len(hotter.prompts) == 2


def test_backend_errors_are_not_cached(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        run(LLMExtractor(ScriptedBackend(lambda p: CompletionError("down")), cache=cache))
        assert len(cache) == 0


def test_default_cache_file_is_under_the_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(tmp_path / "cache"))
    with ResponseCache() as cache:
        assert cache.path == tmp_path / "cache" / "llm-cache.sqlite"
        assert cache.path.is_file()


# --- vLLM offline backend, with stand-in modules ------------------------------------------


class _Output:
    def __init__(self, text: str) -> None:
        self.outputs = [types.SimpleNamespace(text=text)]


def fake_vllm(
    monkeypatch: pytest.MonkeyPatch, *, new_api: bool, answer_for: Callable[[str], str]
) -> dict[str, Any]:
    """Install stand-in ``vllm`` / ``vllm.sampling_params`` modules; returns what they saw."""
    seen: dict[str, Any] = {"chat": [], "generate": []}

    class Params:
        def __init__(self, **kwargs: Any) -> None:
            self.kwargs = kwargs

    class LLM:
        def __init__(self, **kwargs: Any) -> None:
            seen["engine"] = kwargs

        def chat(
            self, conversations: list[list[dict[str, str]]], *, sampling_params: Any, use_tqdm: bool
        ) -> list[_Output]:
            seen["chat"].append((conversations, use_tqdm))
            seen["sampling"] = sampling_params
            return [_Output(answer_for(c[-1]["content"])) for c in conversations]

        def generate(
            self, prompts: list[str], *, sampling_params: Any, use_tqdm: bool
        ) -> list[_Output]:
            seen["generate"].append(prompts)
            return [_Output(answer_for(p)) for p in prompts]

    vllm = types.ModuleType("vllm")
    sampling = types.ModuleType("vllm.sampling_params")
    vllm.LLM = LLM  # type: ignore[attr-defined]
    vllm.SamplingParams = Params  # type: ignore[attr-defined]
    if new_api:
        sampling.StructuredOutputsParams = Params  # type: ignore[attr-defined]
    else:
        sampling.GuidedDecodingParams = Params  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", vllm)
    monkeypatch.setitem(sys.modules, "vllm.sampling_params", sampling)
    return seen


@pytest.mark.parametrize("new_api", [True, False], ids=["vllm>=0.11", "vllm-0.10"])
def test_vllm_backend_batches_with_structured_outputs(
    monkeypatch: pytest.MonkeyPatch, new_api: bool
) -> None:
    seen = fake_vllm(monkeypatch, new_api=new_api, answer_for=by_encounter(VALID_E1, VALID_E2))
    backend = VLLMBackend(
        "Qwen/Qwen2.5-0.5B-Instruct", max_model_len=4096, params={"max_tokens": 512}
    )
    assert seen["engine"] == {"model": "Qwen/Qwen2.5-0.5B-Instruct", "max_model_len": 4096}
    extractor = LLMExtractor(backend, cache=None)
    relations = run(extractor)
    assert [r.extractor.name for r in relations] == ["vllm"] * 4
    [(conversations, use_tqdm)] = seen["chat"]
    assert len(conversations) == 2 and not use_tqdm
    assert conversations[0][0]["role"] == "user"
    kwargs = seen["sampling"].kwargs
    constraint = kwargs.pop("structured_outputs" if new_api else "guided_decoding")
    assert kwargs == {"temperature": 0.0, "max_tokens": 512}
    assert constraint.kwargs == {"json": response_schema()}
    assert backend.params == {"temperature": 0.0, "max_tokens": 512, "chat": True}


def test_vllm_backend_without_chat_template_and_one_bad_prompt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def answer_for(prompt: str) -> str:
        if prompt == "too long":
            raise ValueError(
                "The decoder prompt (length 9000) is longer than the maximum model length"
            )
        return answer()

    seen = fake_vllm(monkeypatch, new_api=True, answer_for=answer_for)
    backend = VLLMBackend("m", chat=False)
    answers = backend.complete(["a", "too long", "b"])
    assert answers[0] == answers[2] == answer()
    assert isinstance(answers[1], CompletionError)
    assert answers[1].reason.startswith("vllm: ValueError: The decoder prompt (length 9000)")
    assert seen["generate"][0] == ["a", "too long", "b"]  # then one by one
    assert len(seen["generate"]) == 4


def test_vllm_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # import vllm -> ImportError
    with pytest.raises(LLMUnavailableError, match=r"pip install 'kgverify\[llm\]'"):
        VLLMBackend("m")


@pytest.fixture(autouse=True)
def _no_info_logging_of_patient_text(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level("DEBUG", logger="kgverify")
    yield
    for record in caplog.records:
        message = record.getMessage()
        assert "Poorly controlled" not in message and "metformin" not in message, message


def test_a_repair_prompt_that_meets_a_backend_error_is_sent_again() -> None:
    sent: list[str] = []

    def script(prompt: str) -> Completion:
        sent.append(prompt)
        if "[lab-hba1c]" not in prompt:
            return answer()
        if len(sent) <= 2:
            return "not json"
        if len(sent) == 3:
            return CompletionError("HTTP 503: busy")
        return VALID_E1

    extractor = LLMExtractor(ScriptedBackend(script), cache=None, max_attempts=3)
    assert len(relations_of(run(extractor))) == 2
    e1 = [p for p in sent if "[lab-hba1c]" in p]
    assert [p.startswith("Your previous answer") for p in e1] == [False, True, True]
    assert e1[1] == e1[2]


@pytest.mark.parametrize(("reply", "status"), [(answer(), 0), ("no JSON at all", 1)])
def test_gpu_check_script_exit_status(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    reply: str,
    status: int,
) -> None:
    from benchmarks import vllm_gpu_check

    fake_vllm(monkeypatch, new_api=True, answer_for=lambda prompt: reply)
    report = tmp_path / "report.json"
    assert vllm_gpu_check.main(["--model", "m", "--patients", "2", "--json", str(report)]) == status
    data = json.loads(report.read_text())
    assert data["counts"]["prompts"] == 8 and data["rerun_model_calls"] == 0
    assert data["reconciles"] is True
    if status:
        assert "failed to parse for every prompt" in capsys.readouterr().err
