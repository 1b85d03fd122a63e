"""The FHIR leg, timed in one run on its own local FHIR server (fresh store, free port):

1. the server's first start (schema creation) and a second start on the same store;
2. ``kgverify fhir load`` of N patients (the synthetic OMOP CDM, ``synth_ehr``);
3. reading the same patients as trajectories: from the OMOP files, from a FHIR bundle file
   of the resources that were loaded, and from the server through ``fhir-rest``
   (``Patient`` pages + ``Patient/$everything`` per patient). Reads only: an ingest adds
   the same Neo4j writes to each.

    python -m benchmarks.bench_fhir --patients 39
"""

from __future__ import annotations

import argparse
import json
import socket
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.synth_ehr import write_omop
from kgverify import api
from kgverify.config import Settings
from kgverify.ehr import Ledger
from kgverify.ehr.fhir_write import iter_resources
from kgverify.rows import RejectSink
from kgverify.server.fhir import LocalFhirServer


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _timed(run: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = run()
    return result, time.perf_counter() - started


def _read(source: str, where: Path | str, settings: Settings, tmp: Path) -> int:
    ledger = Ledger(RejectSink(tmp / f"rejects-{source}.jsonl"))
    return sum(1 for _ in api.read_trajectories(source, where, ledger, settings))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patients", type=int, default=39)
    parser.add_argument("--heap", default="1g")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-fhir-") as folder:
        tmp = Path(folder)
        settings = Settings(
            fhir_home=tmp / "fhir",
            fhir_port=_free_port(),
            fhir_heap=args.heap,
            cache_dir=Settings().cache_dir,  # the launcher build is shared
            pseudonym_salt="bench-fhir",
        )
        omop = tmp / "omop"
        write_omop(omop, 0, args.patients)
        server = LocalFhirServer(settings)
        result: dict[str, Any] = {"patients": args.patients}
        try:
            _, result["first_start_s"] = _timed(server.start)
            server.stop()
            _, result["second_start_s"] = _timed(server.start)
            report, took = _timed(lambda: api.load_fhir("omop", omop, settings=settings))
            result["load_s"] = took
            result["resources"] = sum(report.resources.values())
            result["load_patients_per_s"] = report.patients / took
            ledger = Ledger(RejectSink(tmp / "rejects-bundle.jsonl"))
            trajectories = api.read_trajectories("omop", omop, ledger, settings)
            bundle = {
                "resourceType": "Bundle",
                "type": "collection",
                "entry": [{"resource": r} for r in iter_resources(trajectories)],
            }
            (tmp / "bundle.json").write_text(json.dumps(bundle))
            url = f"http://127.0.0.1:{settings.fhir_port}/fhir"
            sources: list[tuple[str, str, Path | str]] = [
                ("omop_files", "omop", omop),
                ("fhir_file", "fhir", tmp / "bundle.json"),
                ("fhir_rest", "fhir-rest", url),
            ]
            for name, source, where in sources:
                started = time.perf_counter()
                count = _read(source, where, settings, tmp)
                took = time.perf_counter() - started
                assert count == args.patients, (name, count)
                result[f"{name}_s"] = took
                result[f"{name}_patients_per_s"] = count / took
        finally:
            server.stop()
    print(json.dumps({k: round(v, 2) if isinstance(v, float) else v for k, v in result.items()}))


if __name__ == "__main__":
    main()
