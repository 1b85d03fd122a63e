"""The FHIR leg, timed in one run on its own local FHIR server (fresh store, free port):

1. the server's first start (schema creation) and a second start on the same store;
2. ``kgverify fhir load`` of N patients (the synthetic OMOP CDM, ``synth_ehr``);
3. reading the same patients as trajectories: from the OMOP files, from a FHIR bundle file
   of the resources that were loaded, and from the server through ``fhir-rest``
   (``Patient`` pages + ``Patient/$everything`` per patient). Reads only: an ingest adds
   the same Neo4j writes to each;
4. the ``fhir-rest`` read again under four settings, alternating, ``--repeats`` times each
   (medians): the earlier defaults (50 resources a page, one patient at a time), each of
   the two changes alone, and today's defaults (``fhir_count`` 200, ``fhir_read_workers``
   4); every variant must give the same trajectories in the same order.

    python -m benchmarks.bench_fhir --patients 39 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
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


VARIANTS: dict[str, dict[str, int]] = {
    "count50_workers1": {"fhir_count": 50, "fhir_read_workers": 1},  # the earlier defaults
    "count200_workers1": {"fhir_count": 200, "fhir_read_workers": 1},
    "count50_workers4": {"fhir_count": 50, "fhir_read_workers": 4},
    "count200_workers4": {"fhir_count": 200, "fhir_read_workers": 4},  # the defaults
}


def _rest_variants(url: str, settings: Settings, tmp: Path, repeats: int) -> dict[str, Any]:
    """Each variant's fhir-rest read, alternating, ``repeats`` times; the same output."""
    seconds: dict[str, list[float]] = {name: [] for name in VARIANTS}
    outputs: dict[str, str] = {}
    for _ in range(repeats):
        for name, update in VARIANTS.items():
            variant = settings.model_copy(update=update)
            ledger = Ledger(RejectSink(tmp / f"rejects-{name}.jsonl"))
            started = time.perf_counter()
            read = list(api.read_trajectories("fhir-rest", url, ledger, variant))
            seconds[name].append(time.perf_counter() - started)
            outputs[name] = json.dumps([t.model_dump(mode="json") for t in read])
    assert len(set(outputs.values())) == 1, "the variants read different trajectories"
    base = statistics.median(seconds["count50_workers1"])
    return {
        name: {
            "seconds": [round(x, 2) for x in runs],
            "median_s": round(statistics.median(runs), 2),
            "speedup_vs_earlier_defaults": round(base / statistics.median(runs), 2),
        }
        for name, runs in seconds.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patients", type=int, default=39)
    parser.add_argument("--heap", default="1g")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each fhir-rest variant")
    parser.add_argument("--json", type=Path, help="also write the result here")
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
            result["fhir_rest_variants"] = _rest_variants(url, settings, tmp, args.repeats)
        finally:
            server.stop()
    text = json.dumps(
        {k: round(v, 2) if isinstance(v, float) else v for k, v in result.items()}, indent=1
    )
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
