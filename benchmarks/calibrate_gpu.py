"""GPU check of item calibration: `kgverify calibrate` against a real `vllm serve`.

    python -m benchmarks.calibrate_gpu --model /models/Qwen2.5-0.5B-Instruct --qa qa/ \
        --split test --limit 200 --json calibrate-gpu.json
    python -m benchmarks.calibrate_gpu --model /models/Qwen2.5-0.5B-Instruct --synthetic

For a lent machine with a CUDA GPU, vllm (``pip install 'kgverify[llm]'``) and the model's
weights on it (a local folder, or a Hugging Face name already in the local cache: set
``HF_HUB_OFFLINE=1`` on a machine without network). Not part of the test suite (pytest
collects ``tests/`` only). It starts ``vllm serve MODEL`` on 127.0.0.1 (its log in
``OUT/vllm.log``), waits until ``/v1/models`` answers, then runs ``kgverify calibrate``
three times on the QA folder (``--qa``: a ``kgverify derive qa`` folder; ``--synthetic``:
a few general-knowledge items written here as ``QAItem`` models, no patient data):

1. fresh cache: the figures (accuracy per task and split, unparsed and failed answers,
   answers per second);
2. same cache: must make no model call;
3. ``--no-cache``: the same labels again? (temperature 0 and the seed; vLLM's batching may
   still change a token now and then: reported, not required).

The figures go to ``--json`` (and stdout). Exit status: 0 when the server answered, at most
``--max-unparsed`` of the answers were unparsed and the cached rerun made no model call; 1
when a check failed; 2 when vllm or the model could not be started.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks.common import run_meta
from kgverify.derive.model import DistractorWhy, Justification, Option, QAItem, Task
from kgverify.jsonl import write_models

# (task, question, options, index of the answer): textbook facts any instruct model knows
# more or less, enough to see a model read the prompt and answer with a letter.
SYNTHETIC: list[tuple[Task, str, list[str], int]] = [
    (
        Task.TREATMENT,
        "A male patient aged 50-59 is diagnosed with type 2 diabetes mellitus. "
        "Which medication is appropriate for type 2 diabetes mellitus?",
        ["Metformin", "Amoxicillin", "Levothyroxine", "Salbutamol"],
        0,
    ),
    (
        Task.TREATMENT,
        "A female patient aged 20-29 is diagnosed with streptococcal pharyngitis. "
        "Which medication is appropriate for streptococcal pharyngitis?",
        ["Insulin glargine", "Penicillin V", "Warfarin", "Omeprazole"],
        1,
    ),
    (
        Task.TREATMENT,
        "A female patient aged 30-39 is diagnosed with hypothyroidism. "
        "Which medication is appropriate for hypothyroidism?",
        ["Metformin", "Lisinopril", "Levothyroxine", "Ciprofloxacin"],
        2,
    ),
    (
        Task.TREATMENT,
        "A male patient aged 10-19 is diagnosed with an acute asthma attack. "
        "Which medication is appropriate for an acute asthma attack?",
        ["Atorvastatin", "Allopurinol", "Sertraline", "Salbutamol"],
        3,
    ),
    (
        Task.DIAGNOSIS,
        "A female patient aged 60-69 is seen at an outpatient visit.\n"
        "Findings: polyuria; polydipsia.\nTests done: Hemoglobin A1c 9.1 %.\n"
        "What is the most likely diagnosis?",
        ["Diabetes mellitus", "Migraine", "Gout", "Otitis media"],
        0,
    ),
    (
        Task.DIAGNOSIS,
        "A male patient aged 70-79 is seen at an inpatient visit.\n"
        "Findings: fever; productive cough; crackles at the right lung base.\n"
        "Tests done: Plain chest X-ray.\nWhat is the most likely diagnosis?",
        ["Hypothyroidism", "Pneumonia", "Psoriasis", "Cataract"],
        1,
    ),
    (
        Task.DIAGNOSIS,
        "A female patient aged 40-49 is seen at an outpatient visit.\n"
        "Findings: fatigue; pallor.\nTests done: Hemoglobin 8.9 g/dL; Ferritin 5 ng/mL.\n"
        "What is the most likely diagnosis?",
        ["Hyperkalemia", "Gout", "Iron deficiency anemia", "Glaucoma"],
        2,
    ),
    (
        Task.PROGNOSIS,
        "A male patient aged 60-69 is seen at an outpatient visit with long-standing "
        "uncontrolled diabetes mellitus.\n"
        "Which condition is this patient most likely to develop at a later encounter?",
        ["Appendicitis", "Chronic kidney disease", "Otitis externa", "Scabies"],
        1,
    ),
]


def synthetic_qa(folder: Path) -> Path:
    """The ``SYNTHETIC`` items as a derived folder (``<task>/test.jsonl``)."""
    by_task: dict[Task, list[QAItem]] = {}
    for number, (task, question, texts, answer) in enumerate(SYNTHETIC, start=1):
        labels = "ABCD"[: len(texts)]
        options = [
            Option(label=label, concept_id=f"SYNTH:{number}{label}", text=text)
            for label, text in zip(labels, texts, strict=True)
        ]
        why = Justification(rule="synthetic", version="0", reason="a textbook fact")
        item = QAItem(
            item_id=f"synthetic-{number:02d}",
            task=task,
            split="test",
            patient_id=f"synthetic-{number}",
            episode="day:2020-01-01",
            question=question,
            context=[],
            options=options,
            answer=labels[answer],
            answer_concept=options[answer].concept_id,
            basis=[],
            rules=[],
            template=f"{task.value}@synthetic",
            seed=0,
            topic=options[answer].concept_id,
            content_key=f"synthetic-{number}",
            content_group=f"synthetic-{number}",
            why_wrong=[
                DistractorWhy(
                    label=o.label, concept_id=o.concept_id, text=o.text, justifications=[why]
                )
                for o in options
                if o.label != labels[answer]
            ],
            releases=[],
            policy="stored",
        )
        by_task.setdefault(task, []).append(item)
    for task, items in by_task.items():
        (folder / task.value).mkdir(parents=True, exist_ok=True)
        write_models(items, folder / task.value / "test.jsonl")
    return folder


def start_server(args: argparse.Namespace, log: Path) -> subprocess.Popen[bytes]:
    """``vllm serve`` in its own process group, bound to 127.0.0.1."""
    vllm = shutil.which("vllm")
    if vllm is None:
        raise RuntimeError("no `vllm` command on PATH: pip install 'kgverify[llm]'")
    command = [
        vllm,
        "serve",
        args.model,
        "--host",
        "127.0.0.1",
        "--port",
        str(args.port),
        "--max-model-len",
        str(args.max_model_len),
        "--gpu-memory-utilization",
        str(args.gpu_memory_utilization),
        "--seed",
        "0",
    ]
    with log.open("wb") as sink:
        return subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
        )


def wait_ready(server: subprocess.Popen[bytes], url: str, timeout_s: float, log: Path) -> float:
    """Seconds until ``/v1/models`` answers; RuntimeError when the server exits first."""
    start = time.monotonic()
    while time.monotonic() - start < timeout_s:
        if server.poll() is not None:
            tail = log.read_text(errors="replace").splitlines()[-15:]
            raise RuntimeError(f"vllm serve exited ({server.returncode}):\n" + "\n".join(tail))
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=5) as response:  # noqa: S310
                if response.status == 200:
                    return round(time.monotonic() - start, 1)
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(2)
    raise RuntimeError(f"vllm serve did not answer within {timeout_s:g} s (log: {log})")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the server's own process group (started here), SIGKILL after 60 s."""
    if server.poll() is not None:
        return
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def calibrate(
    args: argparse.Namespace, qa: Path, out: Path, url: str, env: dict[str, str], *extra: str
) -> tuple[dict[str, Any], float]:
    """One ``kgverify calibrate --json`` run: its report and its seconds."""
    command = [sys.executable, "-m", "kgverify", "calibrate", str(qa), "--model", args.model]
    command += ["--base-url", url, "-o", str(out), "--json", "--concurrency", str(args.concurrency)]
    for split in args.split or ():
        command += ["--split", split]
    if args.limit is not None:
        command += ["--limit", str(args.limit)]
    start = time.monotonic()
    done = subprocess.run([*command, *extra], capture_output=True, text=True, env=env, check=False)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        raise RuntimeError(f"kgverify calibrate failed: {done.stderr.strip()[-2000:]}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--model", required=True, help="local model folder or cached HF name")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--qa", type=Path, help="a `kgverify derive qa` folder")
    source.add_argument("--synthetic", action="store_true", help="the script's own few items")
    parser.add_argument("--split", action="append", choices=["train", "validation", "test"])
    parser.add_argument("--limit", type=int, help="at most N items of each task")
    parser.add_argument("--out", type=Path, help="work folder (default: a temporary one)")
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--max-model-len", type=int, default=4096)
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.80)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--startup-timeout", type=float, default=900.0)
    parser.add_argument("--max-unparsed", type=float, default=0.2, help="share of answers")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)

    work = args.out or Path(tempfile.mkdtemp(prefix="kgverify-calibrate-"))
    work.mkdir(parents=True, exist_ok=True)
    qa = args.qa if args.qa is not None else synthetic_qa(work / "qa")
    url = f"http://127.0.0.1:{args.port}/v1"
    env = {**os.environ, "KGVERIFY_CACHE_DIR": str(work / "cache")}
    log = work / "vllm.log"
    try:
        server = start_server(args, log)
    except (RuntimeError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        try:
            startup_s = wait_ready(server, url, args.startup_timeout, log)
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        first, first_s = calibrate(args, qa, work / "fresh", url, env)
        cached, cached_s = calibrate(args, qa, work / "cached", url, env)
        again, _ = calibrate(args, qa, work / "again", url, env, "--no-cache")
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        stop_server(server)

    answers = sum(t["items"] for t in first["totals"])
    unparsed = sum(first["unparsed"].values())
    same = (work / "fresh" / "calibration.jsonl").read_bytes() == (
        work / "again" / "calibration.jsonl"
    ).read_bytes()
    figures = {
        "meta": run_meta(model=args.model, qa=str(qa), synthetic=args.synthetic),
        "server_start_s": startup_s,
        "items": first["items"],
        "prompt": first["prompt"],
        "params": first["params"],
        "totals": first["totals"],
        "scores": first["scores"],
        "solved_by_all": len(first["solved_by_all"]),
        "solved_by_none": len(first["solved_by_none"]),
        "unparsed_share": round(unparsed / answers, 4) if answers else None,
        "failed": sum(first["failed"].values()),
        "seconds": first["seconds"],
        "answers_per_second": round(answers / first["seconds"], 2) if first["seconds"] else None,
        "command_seconds": round(first_s, 1),
        "cached_rerun_model_calls": cached["model_calls"],
        "cached_rerun_seconds": cached["seconds"],
        "cached_rerun_command_seconds": round(cached_s, 1),
        "uncached_rerun_same_labels": same,
        "uncached_rerun_accuracy": [t["accuracy"] for t in again["totals"]],
    }
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")
    ok = (
        answers > 0
        and figures["failed"] == 0
        and unparsed <= args.max_unparsed * answers
        and cached["model_calls"] == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
