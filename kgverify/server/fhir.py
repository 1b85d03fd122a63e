"""The local FHIR server: HAPI FHIR's JPA server (R4) in a JVM, H2 on disk, HTTP on 127.0.0.1.

Started like the local Neo4j (``server/local.py``): the Java launcher in
``docker/hapi-local`` (a Maven project over HAPI's Maven Central jars) is built once per
source hash into ``<cache_dir>/hapi-local/<hash>``, and the server's store, log and state
files live under ``Settings.fhir_local_home``. It is ready when ``GET /fhir/metadata``
answers 200. The server has no authentication: it listens on 127.0.0.1 only.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from kgverify.config import Settings
from kgverify.errors import ServerError
from kgverify.outputs import make_dirs
from kgverify.server.local import build_launcher, launcher_project, require_tool

MAIN_CLASS = "org.kgverify.hapilocal.LocalFhirServer"
# As in local.py: the server outlives the call that started it.
_STARTED: list[subprocess.Popen[bytes]] = []
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FhirServerStatus:
    """What ``kgverify fhir status`` reports."""

    running: bool
    pid: int | None
    url: str | None
    home: str
    starting: bool = False

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def launcher_source() -> Path:
    """The Maven project of the FHIR launcher."""
    return launcher_project("hapi-local", "FHIR server")


def ensure_built(settings: Settings) -> Path:
    """Build the launcher once per source version (the first build downloads about 330 MB
    of HAPI FHIR's jars from Maven Central); return the build folder."""
    return build_launcher(
        launcher_source(), settings.cache_dir / "hapi-local", "hapi-local", "the local FHIR server"
    )


def metadata_ok(url: str, timeout_s: float = 10.0) -> bool:
    """Whether ``url``/metadata answers 200 (the server's CapabilityStatement)."""
    try:
        with urllib.request.urlopen(f"{url}/metadata", timeout=timeout_s) as answer:  # noqa: S310
            return bool(answer.status == 200)
    except (OSError, urllib.error.URLError):
        return False


class LocalFhirServer:
    """Start, stop and inspect the local FHIR server of ``settings``.

    >>> server = LocalFhirServer(Settings())            # doctest: +SKIP
    >>> server.start().url                               # doctest: +SKIP
    'http://127.0.0.1:8080/fhir'
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.home = settings.fhir_local_home
        self.state_file = self.home / "server.json"
        self.ready_file = self.home / "ready"
        self.log_file = self.home / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.settings.fhir_port}/fhir"

    def _state(self) -> dict[str, object] | None:
        try:
            state = json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return None
        return state if isinstance(state, dict) else None

    def _alive(self, pid: int) -> bool:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False
        return MAIN_CLASS.encode() in cmdline

    def status(self) -> FhirServerStatus:
        state = self._state() or {}
        pid = state.get("pid")
        if not isinstance(pid, int) or not self._alive(pid):
            return FhirServerStatus(False, None, None, str(self.home))
        url = str(state.get("url") or self.url)
        if self.ready_file.is_file():
            return FhirServerStatus(True, pid, url, str(self.home))
        return FhirServerStatus(False, pid, url, str(self.home), starting=True)

    def start(self) -> FhirServerStatus:
        """Start the server and wait until ``/metadata`` answers; a no-op when it runs."""
        current = self.status()
        if current.running:
            return current
        if current.starting and current.pid is not None:
            return self._wait(current.pid, None)
        proc = self._launch()
        return self._wait(proc.pid, proc)

    def _launch(self) -> subprocess.Popen[bytes]:
        build = ensure_built(self.settings)
        java = require_tool("java", "the local FHIR server")
        make_dirs(self.home)  # owner-only: the store holds (pseudonymized) patient records
        self.ready_file.unlink(missing_ok=True)
        cmd = [
            java,
            f"-Xmx{self.settings.fhir_heap}",
            "-XX:+UseG1GC",
            "-cp",
            os.pathsep.join([str(build / "hapi-local.jar"), str(build / "lib" / "*")]),
            MAIN_CLASS,
            "--home",
            str(self.home / "data"),
            "--port",
            str(self.settings.fhir_port),
            "--ready-file",
            str(self.ready_file),
            "--max-page",
            str(max(self.settings.fhir_count, 500)),
        ]
        offset = self.log_file.stat().st_size if self.log_file.is_file() else 0
        with self.log_file.open("ab") as out:
            proc = subprocess.Popen(
                cmd,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        _STARTED.append(proc)
        state = {"pid": proc.pid, "url": self.url, "out_offset": offset}
        self.state_file.write_text(json.dumps(state))
        return proc

    def _wait(self, pid: int, proc: subprocess.Popen[bytes] | None) -> FhirServerStatus:
        deadline = time.monotonic() + self.settings.fhir_start_timeout_s
        while time.monotonic() < deadline:
            exited = proc.poll() is not None if proc is not None else not self._alive(pid)
            if exited:
                self.state_file.unlink(missing_ok=True)
                raise ServerError(f"the FHIR server did not start: {self._last_error()}")
            if self.ready_file.is_file() and metadata_ok(self.status().url or self.url, 30.0):
                return self.status()
            time.sleep(0.5)
        self._terminate(pid)
        self.state_file.unlink(missing_ok=True)
        raise ServerError(
            f"the FHIR server did not answer within {self.settings.fhir_start_timeout_s:g}s "
            f"and was stopped (log: {self.log_file}); to wait longer raise "
            "KGVERIFY_FHIR_START_TIMEOUT_S"
        )

    def _last_error(self) -> str:
        """The launcher's last ``error:`` line of this run (the log is appended across runs)."""
        state = self._state() or {}
        offset = state.get("out_offset")
        try:
            with self.log_file.open("rb") as f:
                f.seek(offset if isinstance(offset, int) else 0)
                lines = f.read().decode(errors="replace").splitlines()
        except OSError:
            return "no log was written"
        errors = [line for line in lines if line.startswith("error:")]
        if errors:
            return errors[-1].removeprefix("error:").strip()
        return f"see {self.log_file}"

    def _terminate(self, pid: int, timeout_s: float = 60.0) -> None:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self._alive(pid):
                return
            time.sleep(0.2)
        os.kill(pid, signal.SIGKILL)

    def stop(self) -> bool:
        """Shut the server down (SIGTERM: the store is closed cleanly); False if none ran."""
        state = self._state() or {}
        pid = state.get("pid")
        running = isinstance(pid, int) and self._alive(pid)
        if running and isinstance(pid, int):
            self._terminate(pid)
        self.state_file.unlink(missing_ok=True)
        self.ready_file.unlink(missing_ok=True)
        return running


def local_url(settings: Settings) -> str:
    """The base URL ``fhir load`` writes to: ``fhir_url``, else the running local server's."""
    if settings.fhir_url:
        return settings.fhir_url.rstrip("/")
    status = LocalFhirServer(settings).status()
    if not status.running or status.url is None:
        raise ServerError(
            "no FHIR server: start the local one with `kgverify fhir start`, or set "
            "KGVERIFY_FHIR_URL"
        )
    return status.url
