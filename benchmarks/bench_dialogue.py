"""The dialogue checker on the planted set: precision and recall per verdict, and turns per
second. Needs the sample pipeline's graph and fact sheets (``make sample``, or any graph
where ``kgverify sample`` ran with the same settings); nothing is written to the graph.

    python -m benchmarks.bench_dialogue [--repeat 20] [--json docs/benchmarks/dialogue.json]

(Run it as a module from the repository root: pysbd installs a top-level ``benchmarks``.)

- The planted set is ``tests/fixtures/dialogue/planted.jsonl``, its patients resolved to
  this installation's pseudonyms; scored as ``kgverify.dialogue.sample.score`` does (a
  found mention agrees when its words overlap those a reader marked in the same turn and
  the verdicts are equal).
- Throughput: the planted dialogues ``--repeat`` times over (new ids), one
  ``check_dialogues`` run, after a first run that opened the linker index and filled the
  reach cache; ``turns/s`` counts patient turns.
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from pathlib import Path

from kgverify.api import check_dialogues
from kgverify.config import Settings
from kgverify.dialogue import Dialogue, read_verdicts, write_dialogues
from kgverify.dialogue.sample import read_sample, resolve, score
from kgverify.graph import Graph

ROOT = Path(__file__).resolve().parents[1]
PLANTED = ROOT / "tests" / "fixtures" / "dialogue" / "planted.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--facts", type=Path, help="default: <cache_dir>/sample/facts")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    settings = Settings()
    facts = args.facts or settings.cache_dir / "sample" / "facts"
    planted = read_sample(PLANTED)
    dialogues = list(resolve(planted, settings))
    with tempfile.TemporaryDirectory() as tmp, Graph.connect(settings) as graph:
        folder = Path(tmp)
        write_dialogues(dialogues, folder / "planted.jsonl")
        first = check_dialogues(
            folder / "planted.jsonl",
            folder / "v.jsonl",
            facts=facts,
            settings=settings,
            graph=graph,
            write=False,  # the checker's throughput; planted ids stay out of the user's graph
        )
        scores = score(planted, read_verdicts(folder / "v.jsonl"))
        many = [
            Dialogue(**{**d.model_dump(), "dialogue_id": f"{d.dialogue_id}-{n}"})
            for n in range(args.repeat)
            for d in dialogues
        ]
        write_dialogues(many, folder / "many.jsonl")
        started = time.perf_counter()
        repeated = check_dialogues(
            folder / "many.jsonl",
            folder / "m.jsonl",
            facts=facts,
            settings=settings,
            graph=graph,
            write=False,  # the checker's throughput; planted ids stay out of the user's graph
        )
        wall = time.perf_counter() - started
    result = {
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "dialogues": first.dialogues,
        "patient_turns": first.turns,
        "mentions": first.mentions,
        "scores": [s.model_dump() for s in scores],
        "first_run_turns_per_second": first.turns_per_second,
        "repeated": {
            "dialogues": repeated.dialogues,
            "turns": repeated.turns,
            "seconds_with_open": round(wall, 2),
            "turns_per_second": repeated.turns_per_second,
        },
    }
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"planted set: {first.dialogues} dialogues, {first.turns} patient turns\n")
    print("| verdict | marked | found | agreed | precision | recall |")
    print("|---|---:|---:|---:|---:|---:|")
    for s in scores:
        print(
            f"| {s.verdict} | {s.expected} | {s.predicted} | {s.agreed} | {s.precision} | "
            f"{s.recall} |"
        )
    print(
        f"\nthroughput: {repeated.turns} patient turns, {repeated.turns_per_second} turns/s "
        f"(first run, cold: {first.turns_per_second} turns/s)"
    )


if __name__ == "__main__":
    main()
