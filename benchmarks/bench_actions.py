"""``kgverify check-actions``: actions per second. Needs a graph holding the sample
vocabularies and the sample EHR (``make sample``, or ``kgverify load`` of the three sample
releases and ``kgverify ingest omop kgverify/sample/omop/eunomia_sample``).

    python -m benchmarks.bench_actions [--repeat 50] [--json docs/benchmarks/actions.json]

(Run it as a module from the repository root: pysbd installs a top-level ``benchmarks``.)

- ``planted``: the shipped sample's planted actions (``kgverify/sample/actions``) ``--repeat``
  times over with new ids, one ``check_actions`` run with their task files: the same few
  (drug, condition) triples again and again, so mostly the verifier's kept evidence.
- ``grid``: every sample patient ordering every drug of the sample EHR (its distinct RxNorm
  drug codes) on the patient's last recorded day: many distinct triples, records and
  reaches, each read from the graph once per run.
- Each with ``write=False`` (judging only) and ``write=True`` (the ``(:AgentAction)`` nodes
  stored too; the benchmark's own ids, removed afterwards).
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import tempfile
import time
from pathlib import Path

from kgverify.actions.model import ActionRecord
from kgverify.api import check_actions, sample_actions, sample_path
from kgverify.config import Settings
from kgverify.ehr.privacy import pseudonym
from kgverify.graph import Graph
from kgverify.jsonl import read_models, write_models

RX = "http://www.nlm.nih.gov/research/umls/rxnorm"


def grid(settings: Settings) -> list[ActionRecord]:
    """Every sample person ordering every RxNorm drug code of the sample EHR."""
    folder = sample_path("omop", "eunomia_sample")
    with (folder / "concept.csv").open(encoding="utf-8") as handle:
        rxnorm = {
            row["CONCEPT_ID"]: row["CONCEPT_CODE"]
            for row in csv.DictReader(handle)
            if row["VOCABULARY_ID"] == "RxNorm" and row["DOMAIN_ID"] == "Drug"
        }
    last: dict[str, str] = {}
    codes: set[str] = set()
    with (folder / "drug_exposure.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            person, day = row["PERSON_ID"], row["DRUG_EXPOSURE_START_DATE"]
            last[person] = max(last.get(person, day), day)
            if row["DRUG_CONCEPT_ID"] in rxnorm:
                codes.add(rxnorm[row["DRUG_CONCEPT_ID"]])
    salt = settings.salt()
    return [
        ActionRecord(
            action_id=f"bench-{person}-{code}",
            task_id="bench",
            patient_id=pseudonym(salt, "omop:patient", person),
            at=day,
            resource={
                "resourceType": "MedicationRequest",
                "medicationCodeableConcept": {"coding": [{"system": RX, "code": code}]},
            },
        )
        for person, day in sorted(last.items())
        for code in sorted(codes)
    ]


def timed(
    records: list[ActionRecord],
    folder: Path,
    name: str,
    settings: Settings,
    graph: Graph,
    tasks: Path | None,
    write: bool,
) -> dict[str, object]:
    path = folder / f"{name}.jsonl"
    write_models(records, path)
    started = time.perf_counter()
    report = check_actions(
        path,
        folder / f"{name}.verdicts.jsonl",
        tasks=tasks,
        settings=settings,
        graph=graph,
        write=write,
    )
    wall = time.perf_counter() - started
    return {
        "actions": report.actions,
        "write": write,
        "seconds": round(wall, 2),
        "actions_per_second": round(report.actions / wall, 1),
        "verdicts": report.verdicts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    settings = Settings()
    runs = []
    with tempfile.TemporaryDirectory() as tmp, Graph.connect(settings) as graph:
        folder = Path(tmp)
        tasks, actions = sample_actions(folder / "sample", settings=settings)
        planted = list(read_models(actions, ActionRecord))
        many = [
            r.model_copy(update={"action_id": f"bench-{n}-{r.action_id}"})
            for n in range(args.repeat)
            for r in planted
        ]
        cases = {"planted": (many, tasks), "grid": (grid(settings), None)}
        try:
            for name, (records, task_files) in cases.items():
                for write in (False, True):
                    runs.append(
                        {
                            "set": name,
                            **timed(records, folder, name, settings, graph, task_files, write),
                        }
                    )
        finally:
            graph.run_adhoc(
                "MATCH (a:AgentAction) WHERE a.id STARTS WITH 'bench-' DETACH DELETE a",
                {},
                write=True,
            )
    if not runs or "indicated" not in runs[0]["verdicts"]:  # type: ignore[operator]
        raise SystemExit(
            "the planted actions found no patient: ingest the sample EHR with these settings "
            "(its pseudonyms depend on the salt under the cache folder)"
        )
    result = {"machine": f"{platform.machine()}, {platform.python_version()}", "runs": runs}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    print("| set | actions | stored | seconds | actions/s |")
    print("|---|---:|---|---:|---:|")
    for r in runs:
        print(
            f"| {r['set']} | {r['actions']} | {'yes' if r['write'] else 'no'} | {r['seconds']} | "
            f"{r['actions_per_second']} |"
        )


if __name__ == "__main__":
    main()
