"""GPU check of the offline vLLM backend: real structured outputs from a small instruct model.

    python benchmarks/vllm_gpu_check.py --model /models/Qwen2.5-0.5B-Instruct

Needs a CUDA GPU, vllm (``pip install 'kgverify[llm]'``) and the model's weights on the
machine: a local folder, or a Hugging Face name already in the local cache (set
``HF_HUB_OFFLINE=1`` on a machine without network). It builds a few synthetic trajectories
(no patient data), runs ``LLMExtractor`` with ``VLLMBackend`` twice on one fresh cache,
and prints the counts, the share of prompts whose first answer parsed, relations and
failures by kind, and the rates.

Exit status: 0 when the structured output parsed for at least one prompt (with
``--require-all``: for every prompt, on the first answer) and the second pass made no model
call; 1 when it failed to parse for every prompt (or the stricter checks failed); 2 when
vllm or the model could not be loaded.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

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
from kgverify.errors import KgverifyError
from kgverify.extract.backends import VLLMBackend
from kgverify.extract.cache import ResponseCache
from kgverify.extract.llm import ExtractionCounts, LLMExtractor
from kgverify.extract.relation import CandidateRelation


def _ref(table: str, row: int, code: str) -> SourceRef:
    return SourceRef(table=table, row=str(row), code_system="synthetic", code=code)


def _condition(row: int, name: str, code: str, day: date) -> Condition:
    ref = _ref("condition", row, code)
    return Condition(source=ref, display=name, code_system="SNOMEDCT", code=code, start=day)


def _drug(row: int, name: str, code: str, day: date, dose: str) -> DrugExposure:
    return DrugExposure(
        source=_ref("drug", row, code),
        display=name,
        code_system="RXNORM",
        code=code,
        start=day,
        dose=dose,
        dose_unit="mg",
        route="oral",
    )


def _lab(
    row: int, name: str, code: str, value: float, unit: str, low: float, high: float
) -> Measurement:
    return Measurement(
        source=_ref("measurement", row, code),
        display=name,
        code_system="LNC",
        code=code,
        value=value,
        unit=unit,
        ref_low=low,
        ref_high=high,
    )


def _note(row: int, text: str) -> Note:
    return Note(source=_ref("note", row, "0"), title="Progress note", text=text)


def trajectory(index: int) -> Trajectory:
    """One synthetic patient: four encounters over two years, values varied by ``index``."""
    first = date(2020, 1, 6) + timedelta(days=index)
    d1, d2, d3, d4 = (first + timedelta(days=n) for n in (0, 90, 400, 700))
    row = index * 100
    a1c = 7.2 + (index % 5) * 0.4
    encounters = [
        Encounter(
            encounter_id=f"enc-{index}-1",
            start=d1,
            kind="outpatient",
            conditions=[_condition(row + 1, "Type 2 diabetes mellitus", "44054006", d1)],
            drug_exposures=[_drug(row + 2, "metformin", "6809", d1, "500")],
            measurements=[_lab(row + 3, "Hemoglobin A1c", "4548-4", a1c, "%", 4.0, 5.6)],
            notes=[
                _note(row + 4, f"HbA1c {a1c:.1f}%. Diabetes not controlled; metformin started.")
            ],
        ),
        Encounter(
            encounter_id=f"enc-{index}-2",
            start=d2,
            kind="outpatient",
            conditions=[_condition(row + 5, "Essential hypertension", "59621000", d2)],
            drug_exposures=[_drug(row + 6, "lisinopril", "29046", d2, "10")],
            measurements=[
                _lab(
                    row + 7,
                    "Systolic blood pressure",
                    "8480-6",
                    150 + index % 20,
                    "mm[Hg]",
                    90,
                    130,
                )
            ],
        ),
        Encounter(
            encounter_id=f"enc-{index}-3",
            start=d3,
            kind="inpatient",
            conditions=[_condition(row + 8, "Community acquired pneumonia", "385093006", d3)],
            drug_exposures=[_drug(row + 9, "amoxicillin", "723", d3, "1000")],
            measurements=[
                _lab(row + 10, "Leukocytes", "6690-2", 14.5 + index % 4, "10*3/uL", 4, 11)
            ],
            procedures=[
                Procedure(
                    source=_ref("procedure", row + 11, "399208008"),
                    display="Plain chest X-ray",
                    code_system="SNOMEDCT",
                    code="399208008",
                )
            ],
            notes=[_note(row + 12, "Fever and cough, right lower lobe consolidation on X-ray.")],
        ),
        Encounter(
            encounter_id=f"enc-{index}-4",
            start=d4,
            kind="outpatient",
            conditions=[_condition(row + 13, "Chronic kidney disease stage 3", "433144002", d4)],
            measurements=[
                _lab(row + 14, "eGFR", "62238-1", 40 + index % 15, "mL/min/1.73m2", 60, 120)
            ],
            notes=[_note(row + 15, "Long-standing diabetes and hypertension; eGFR declining.")],
        ),
    ]
    return Trajectory(
        source="omop",
        patient=Patient(patient_id=f"synthetic-{index}", age_band="60-69", sex="F"),
        encounters=encounters,
    )


def _run(extractor: LLMExtractor, trajectories: list[Trajectory]) -> tuple[ExtractionCounts, float]:
    started = time.perf_counter()
    results = list(extractor.extract(trajectories))
    seconds = time.perf_counter() - started
    assert sum(isinstance(r, CandidateRelation) for r in results) == extractor.counts.relations
    return extractor.counts, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--model", required=True, help="local model folder or cached HF name")
    parser.add_argument(
        "--patients", type=int, default=8, help="synthetic patients (4 prompts each)"
    )
    parser.add_argument("--max-model-len", type=int, default=8192)
    parser.add_argument("--max-tokens", type=int, default=1024)
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.80)
    parser.add_argument("--require-all", action="store_true", help="every first answer must parse")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args(argv)

    trajectories = [trajectory(i) for i in range(args.patients)]
    started = time.perf_counter()
    try:
        backend = VLLMBackend(
            args.model,
            params={"max_tokens": args.max_tokens},
            max_model_len=args.max_model_len,
            gpu_memory_utilization=args.gpu_memory_utilization,
        )
    except KgverifyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    load_s = time.perf_counter() - started

    with tempfile.TemporaryDirectory() as folder, ResponseCache(Path(folder) / "c.sqlite") as cache:
        counts, seconds = _run(LLMExtractor(backend, cache=cache), trajectories)
        rerun, rerun_s = _run(LLMExtractor(backend, cache=cache), trajectories)

    parsed = counts.answered
    report: dict[str, Any] = {
        "model": args.model,
        "load_s": round(load_s, 1),
        "extract_s": round(seconds, 2),
        "counts": counts.as_dict(),
        "reconciles": counts.reconciles,
        "first_answer_parse_rate": round(counts.first_attempt_ok / max(counts.prompts, 1), 3),
        "prompts_per_s": round(counts.prompts / seconds, 2) if seconds else None,
        "relations_per_s": round(counts.relations / seconds, 2) if seconds else None,
        "rerun_model_calls": rerun.model_calls,
        "rerun_s": round(rerun_s, 3),
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")

    problems = []
    if parsed == 0:
        problems.append("the structured output failed to parse for every prompt")
    if args.require_all and counts.first_attempt_ok != counts.prompts:
        problems.append(f"{counts.prompts - counts.first_attempt_ok} first answers did not parse")
    if rerun.model_calls != 0 or not (counts.reconciles and rerun.reconciles):
        problems.append("the rerun was not served from the cache, or the counts do not reconcile")
    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    print(
        f"{counts.prompts} prompts, {parsed} parsed ({counts.first_attempt_ok} on the first "
        f"answer), {counts.relations} relations, failures {dict(counts.failures)}",
        file=sys.stderr,
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
