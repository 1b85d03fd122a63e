"""The FHIR REST pieces that need no FHIR server: URL sources, the loader's resources read
back by the FHIR file reader, and (a protocol test, against a tiny local HTTP server that
answers 429 first) the client's retries. The real HAPI server is in tests/e2e/test_fhir.py."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgverify import api
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.ehr import Ledger
from kgverify.ehr.common import SourceError
from kgverify.ehr.fhir_http import FhirClient, FhirHttpError
from kgverify.ehr.fhir_rest import RestSource
from kgverify.ehr.fhir_write import iter_resources, patient_resource
from kgverify.ehr.model import Trajectory
from kgverify.ehr.sources import source_descriptor
from kgverify.errors import ConfigError
from kgverify.rows import RejectSink

OMOP = api.sample_path("omop", "eunomia_sample")


def fact_content(trajectories: list[Trajectory]) -> Counter[tuple[Any, ...]]:
    """What a trajectory says, without the ids and source references a format gives it."""
    out: Counter[tuple[Any, ...]] = Counter()
    for t in trajectories:
        who = (t.patient.age_band, t.patient.sex)
        visits = tuple(sorted((str(e.start), str(e.end), e.kind) for e in t.encounters))
        out[("patient", who, visits)] += 1
        for item in t.items():
            fields = item.model_dump(exclude={"item_id", "source", "mapped"})
            out[
                (type(item).__name__, who, tuple(sorted((k, str(v)) for k, v in fields.items())))
            ] += 1
    return out


def _read(source: str, where: Path | str, tmp: Path, settings: Settings) -> list[Trajectory]:
    ledger = Ledger(RejectSink(tmp / f"{source}-rejects.jsonl"))
    return list(api.read_trajectories(source, where, ledger, settings))


def test_loader_resources_read_back_by_the_fhir_reader_are_the_same_facts(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path)
    omop = _read("omop", OMOP, tmp_path, settings)
    bundle = {
        "resourceType": "Bundle",
        "type": "collection",
        "entry": [{"resource": r} for r in iter_resources(omop)],
    }
    (tmp_path / "bundle.json").write_text(json.dumps(bundle))
    back = _read("fhir", tmp_path / "bundle.json", tmp_path, settings)
    assert len(back) == len(omop) > 0
    assert fact_content(back) == fact_content(omop)


def test_patient_resource_has_a_birth_year_only_and_90_plus_stays_90_plus(tmp_path: Path) -> None:
    omop = _read("omop", OMOP, tmp_path, Settings(cache_dir=tmp_path))
    for trajectory in omop:
        patient = patient_resource(trajectory)
        assert set(patient) <= {"resourceType", "id", "meta", "identifier", "gender", "birthDate"}
        assert len(patient.get("birthDate", "0000")) == 4  # a year, never a day
    old = omop[0].model_copy(
        update={"patient": omop[0].patient.model_copy(update={"age_band": "90+"})}
    )
    first = min(e.start for e in old.encounters) if old.encounters else None
    if first is not None:
        assert int(patient_resource(old)["birthDate"]) == first.year - 90


def test_sources_take_paths_or_urls_as_registered(tmp_path: Path) -> None:
    assert source_descriptor("omop", OMOP) == OMOP
    assert source_descriptor("fhir-rest", "http://127.0.0.1:1/fhir") == "http://127.0.0.1:1/fhir"
    with pytest.raises(SourceError, match="not a URL"):
        source_descriptor("omop", "http://127.0.0.1:1/fhir")
    with pytest.raises(SourceError, match="reads a server's URL"):
        source_descriptor("fhir-rest", str(OMOP))
    with pytest.raises(SourceError, match="does not exist"):
        source_descriptor("fhir", tmp_path / "nothing")


def test_rest_source_reads_count_and_last_updated_from_the_url() -> None:
    rest = RestSource.parse(
        "http://h:8080/fhir/?_count=7&_lastUpdated=gt2026-01-01&gender=female", 50
    )
    assert (rest.base, rest.count, rest.since) == ("http://h:8080/fhir", 7, "gt2026-01-01")
    assert rest.patient_params == (("gender", "female"),)
    for bad in ("http://h/fhir?_count=0", "http://h/fhir?_lastUpdated=2026", "ftp://h/fhir"):
        with pytest.raises(SourceError):
            RestSource.parse(bad, 50)


def test_cli_refuses_a_url_for_a_file_source_in_one_line() -> None:
    result = CliRunner().invoke(cli, ["ingest", "omop", "http://127.0.0.1:1/fhir"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "fhir-rest" in lines[0]


# -- protocol test: a stand-in HTTP server (not FHIR) answering 429, then 200 ----------------


class _Busy(BaseHTTPRequestHandler):
    busy_first = 1  # how many requests get 429 before the answer
    seen: list[str] = []  # noqa: RUF012 (the class is the stand-in server's state)

    def do_GET(self) -> None:
        type(self).seen.append(self.headers.get("Authorization") or "")
        if len(type(self).seen) <= type(self).busy_first:
            self.send_response(429)
            self.send_header("Retry-After", "0")
            self.end_headers()
            return
        body = json.dumps({"resourceType": "CapabilityStatement"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/fhir+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def busy_server() -> Iterator[tuple[str, type[_Busy]]]:
    handler = type("Busy", (_Busy,), {"seen": [], "busy_first": 1})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/fhir", handler
    finally:
        server.shutdown()
        server.server_close()


def test_protocol_429_is_retried_and_the_token_is_sent_not_shown(
    busy_server: tuple[str, type[_Busy]],
) -> None:
    url, handler = busy_server
    waits: list[float] = []
    client = FhirClient(url, retries=2, token="s3cret-token", sleep=waits.append)
    assert client.get("metadata")["resourceType"] == "CapabilityStatement"
    assert (client.requests, client.retried, waits) == (2, 1, [0.0])
    assert handler.seen == ["Bearer s3cret-token"] * 2
    assert "s3cret" not in repr(client)


def test_protocol_429_past_the_retries_is_one_error_line(
    busy_server: tuple[str, type[_Busy]],
) -> None:
    url, handler = busy_server
    handler.busy_first = 10
    client = FhirClient(url, retries=2, backoff_s=0.0, token="s3cret-token", sleep=lambda _: None)
    with pytest.raises(FhirHttpError) as err:
        client.get("metadata")
    message = str(err.value)
    assert "429" in message and "after 3 tries" in message and "\n" not in message
    assert "s3cret" not in message
    assert len(handler.seen) == 3


def test_a_server_that_is_down_is_one_error_line() -> None:
    from tests.conftest import free_port

    client = FhirClient(f"http://127.0.0.1:{free_port()}/fhir", retries=1, sleep=lambda _: None)
    with pytest.raises(FhirHttpError, match=r"cannot reach the server.*after 2 tries"):
        client.get("metadata")


def test_token_file_must_be_owner_only(tmp_path: Path) -> None:
    from kgverify.ehr.fhir_http import read_token
    from kgverify.errors import ConfigError

    token = tmp_path / "token"
    token.write_text("abc\n")
    token.chmod(0o644)
    with pytest.raises(ConfigError, match="readable by others"):
        read_token(Settings(fhir_token_file=token))
    token.chmod(0o600)
    assert read_token(Settings(fhir_token_file=token)) == "abc"


def test_a_run_config_checks_its_source_path_as_the_source_reads_it(tmp_path: Path) -> None:
    from kgverify.pipeline import read_pipeline_config

    def config(source: str, where: object) -> Path:
        path = tmp_path / "run.toml"
        path.write_text(f'source = "{source}"\nsource_path = "{where}"\nout = "run"\n')
        return path

    url = "http://127.0.0.1:1/fhir?_count=5"
    assert read_pipeline_config(config("fhir-rest", url)).source_path == url
    assert read_pipeline_config(config("omop", OMOP)).source_path == OMOP
    for source, where in (("fhir-rest", OMOP), ("omop", url)):
        with pytest.raises(ConfigError) as err:
            read_pipeline_config(config(source, where))
        assert "source_path" in str(err.value) and "\n" not in str(err.value)


def test_fhir_load_without_a_server_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.conftest import free_port

    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KGVERIFY_FHIR_RETRIES", "0")
    runs = [
        ["fhir", "load", "omop", str(OMOP), "--url", f"http://127.0.0.1:{free_port()}/fhir"],
        ["fhir", "load", "omop", str(OMOP)],  # no local server started, no fhir_url
        ["fhir", "load", "fhir-rest", "http://127.0.0.1:1/fhir"],
    ]
    for args in runs:
        result = CliRunner().invoke(cli, args)
        assert result.exit_code != 0
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert not (tmp_path / "rejects").exists() or not any((tmp_path / "rejects").iterdir())


def test_fhir_start_without_java_or_maven_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # neither java nor mvn on it
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(tmp_path))
    result = CliRunner().invoke(cli, ["fhir", "start"])
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: `mvn` is not on PATH; the local FHIR server needs Java 17")
