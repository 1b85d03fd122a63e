"""The local Neo4j: Neo4j Community 5.26 with APOC, embedded in a JVM, Bolt on 127.0.0.1.

The Java launcher lives in ``docker/neo4j-local`` (GPLv3, apart from this package) and is
built with Maven into ``<cache_dir>/neo4j-local/<source hash>``, so a changed launcher is
rebuilt and an unchanged one never is. The server's data, log, pid and password files live
under ``Settings.local_home`` (outside the repository). The password is generated on first
start and kept in an owner-only file; nothing ships a default password.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path

from kgverify.config import Settings
from kgverify.errors import ConfigError, GraphUnavailableError, ServerError
from kgverify.secrets import secret_file

READY_MARK = "KGVERIFY_NEO4J_READY"
MAIN_CLASS = "org.kgverify.neo4jlocal.LocalServer"
IMPORT_CLASS = "org.kgverify.neo4jlocal.BulkImport"
# The server outlives the call that started it; holding its Popen here keeps Python from
# warning that a child it forgot about is still running.
_STARTED: list[subprocess.Popen[bytes]] = []


@dataclass(frozen=True)
class ServerStatus:
    """What ``kgverify neo4j status`` reports."""

    running: bool
    pid: int | None
    uri: str | None
    home: str
    apoc: str | None = None
    password_file: str | None = None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def launcher_source() -> Path:
    """The Maven project of the launcher (packaged copy first, then the source checkout)."""
    packaged = resources.files("kgverify").joinpath("server").joinpath("neo4j-local")
    if packaged.is_dir():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parents[2] / "docker" / "neo4j-local"
    if (checkout / "pom.xml").is_file():
        return checkout
    raise ServerError("the Neo4j launcher sources are missing from this installation")


def _source_hash(src: Path) -> str:
    digest = hashlib.sha256()
    files = [src / "pom.xml", *sorted((src / "src").rglob("*.java"))]
    for path in files:
        digest.update(str(path.relative_to(src)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _require(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        raise ServerError(f"`{tool}` is not on PATH; the local Neo4j needs Java 17 and Maven")
    return found


def ensure_built(settings: Settings) -> Path:
    """Build the launcher once per source version; return the build folder."""
    src = launcher_source()
    build = settings.cache_dir / "neo4j-local" / _source_hash(src)
    if (build / "neo4j-local.jar").is_file() and (build / "lib").is_dir():
        return build
    mvn = _require("mvn")
    build.parent.mkdir(parents=True, exist_ok=True)
    log = build.parent / "build.log"
    with log.open("w") as out:
        done = subprocess.run(
            [
                mvn,
                "-B",
                "-q",
                "-f",
                str(src / "pom.xml"),
                f"-Dkgverify.buildDir={build}",
                "package",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
        )
    if done.returncode != 0 or not (build / "neo4j-local.jar").is_file():
        tail = log.read_text(errors="replace").strip().splitlines()[-5:]
        raise ServerError(f"building the Neo4j launcher failed (see {log}): {' | '.join(tail)}")
    return build


def classpath(build: Path) -> str:
    # APOC must be both on the classpath and in the plugin folder of an embedded server.
    parts = [build / "neo4j-local.jar", build / "lib" / "*", build / "plugins" / "*"]
    return os.pathsep.join(str(p) for p in parts)


class LocalServer:
    """Start, stop and inspect the local Neo4j described by ``settings``.

    >>> server = LocalServer(Settings())                    # doctest: +SKIP
    >>> server.start().uri                                  # doctest: +SKIP
    'bolt://127.0.0.1:7687'
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.home = settings.local_home
        self.password_file = self.home / "password"
        self.state_file = self.home / "server.json"
        self.log_file = self.home / "server.log"
        self.ready_file = self.home / "ready"
        self.data_home = self.home / "dbms"

    # -- password -------------------------------------------------------------------------
    def password(self, *, create: bool = False) -> str:
        """The server's password; generated (owner-only file) on first use when ``create``."""
        value = secret_file(self.password_file, create=create)
        if value is None:
            raise GraphUnavailableError(
                f"no local Neo4j has been started under {self.home} "
                "(run `kgverify neo4j start`, or set NEO4J_URI and NEO4J_PASSWORD)"
            )
        return value

    # -- state ----------------------------------------------------------------------------
    def _state(self) -> dict[str, object] | None:
        try:
            state: dict[str, object] = json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return None
        return state

    def _alive(self, pid: int) -> bool:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False
        return MAIN_CLASS.encode() in cmdline

    def status(self) -> ServerStatus:
        state = self._state()
        pid = int(str(state["pid"])) if state and "pid" in state else None
        if pid is not None and self._alive(pid) and self.ready_file.is_file():
            ready = self.ready_file.read_text().split()
            apoc = next((w.split("=", 1)[1] for w in ready if w.startswith("apoc=")), None)
            return ServerStatus(
                True, pid, str(state["uri"]) if state else None, str(self.home), apoc
            )
        return ServerStatus(False, None, None, str(self.home))

    @property
    def uri(self) -> str:
        state = self._state()
        if state and "uri" in state:
            return str(state["uri"])
        return f"bolt://127.0.0.1:{self.settings.bolt_port}"

    def has_store(self) -> bool:
        """Whether the ``neo4j`` database of this server has ever been created."""
        return (self.data_home / "data" / "databases" / "neo4j").is_dir()

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> ServerStatus:
        """Start the server and wait until Bolt answers; a no-op when it already runs."""
        current = self.status()
        if current.running:
            return current
        build = ensure_built(self.settings)
        java = _require("java")
        self.password(create=True)
        self.home.mkdir(parents=True, exist_ok=True)
        self.ready_file.unlink(missing_ok=True)
        port = self.settings.bolt_port
        cmd = [
            java,
            f"-Xmx{self.settings.neo4j_heap}",
            "-XX:+UseG1GC",
            "-cp",
            classpath(build),
            MAIN_CLASS,
            "--home",
            str(self.data_home),
            "--bolt-port",
            str(port),
            "--password-file",
            str(self.password_file),
            "--plugins",
            str(build / "plugins"),
            "--pagecache",
            self.settings.neo4j_pagecache,
            "--ready-file",
            str(self.ready_file),
        ]
        with self.log_file.open("ab") as log:
            proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        _STARTED.append(proc)
        uri = f"bolt://127.0.0.1:{port}"
        self.state_file.write_text(json.dumps({"pid": proc.pid, "uri": uri}))
        deadline = time.monotonic() + self.settings.start_timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.state_file.unlink(missing_ok=True)
                raise ServerError(f"Neo4j did not start: {self._last_error()}")
            if self.ready_file.is_file():
                self._check_bolt(uri)
                return self.status()
            time.sleep(0.25)
        self._terminate(proc.pid)
        raise ServerError(
            f"Neo4j did not answer within {self.settings.start_timeout_s:.0f}s "
            f"(log: {self.log_file})"
        )

    def _check_bolt(self, uri: str) -> None:
        """The launcher says ready; make sure Bolt answers with our password, too."""
        from kgverify.graph.driver import Graph

        graph = Graph(uri, "neo4j", self.password(), "neo4j")
        try:
            graph.verify()
        finally:
            graph.close()

    def _last_error(self) -> str:
        try:
            lines = self.log_file.read_text(errors="replace").splitlines()
        except OSError:
            return "no log was written"
        errors = [line for line in lines if line.startswith("error:")]
        if errors:
            return errors[-1].removeprefix("error:").strip()
        return f"see {self.log_file}"

    def _terminate(self, pid: int, timeout_s: float = 90.0) -> None:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self._alive(pid):
                return
            time.sleep(0.2)
        os.kill(pid, signal.SIGKILL)  # the store recovers from its transaction log on start

    def stop(self) -> bool:
        """Shut the server down cleanly (SIGTERM, store flushed); False if none was running."""
        state = self._state()
        pid = int(str(state["pid"])) if state and "pid" in state else None
        running = pid is not None and self._alive(pid)
        if running and pid is not None:
            self._terminate(pid)
        self.state_file.unlink(missing_ok=True)
        self.ready_file.unlink(missing_ok=True)
        return running

    def bulk_import(self, nodes: list[Path], relationships: list[Path], report: Path) -> list[str]:
        """Run ``neo4j-admin database import full`` into the (stopped) server's ``neo4j``
        database, replacing it. Returns the import's bad-entry lines (dangling edges)."""
        if self.status().running:
            raise ServerError("stop the local Neo4j before a bulk import")
        build = ensure_built(self.settings)
        cmd = [
            _require("java"),
            f"-Xmx{self.settings.neo4j_heap}",
            "-cp",
            classpath(build),
            IMPORT_CLASS,
            "--home",
            str(self.data_home),
            "--",
            *(f"--nodes={p}" for p in nodes),
            *(f"--relationships={p}" for p in relationships),
            "--overwrite-destination=true",
            "--skip-duplicate-nodes=true",
            "--skip-bad-relationships=true",
            "--bad-tolerance=1000000000",
            f"--report-file={report}",
            "--array-delimiter=|",
            "--ignore-empty-strings=true",
        ]  # no database name: the default `neo4j` (a trailing name would read as a file)
        log = report.with_suffix(".log")
        with log.open("w") as out:
            done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=False)
        if done.returncode != 0:
            tail = log.read_text(errors="replace").strip().splitlines()[-3:]
            raise ServerError(f"neo4j-admin import failed (see {log}): {' | '.join(tail)}")
        if not report.is_file():
            return []
        return [line for line in report.read_text(errors="replace").splitlines() if line.strip()]


def resolve_connection(settings: Settings) -> tuple[str, str, str]:
    """URI, user and password: explicit settings, or the local server's."""
    if settings.neo4j_uri:
        if settings.neo4j_password is None:
            raise ConfigError("NEO4J_URI is set but NEO4J_PASSWORD is not")
        return settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password.get_secret_value()
    server = LocalServer(settings)
    password = (
        settings.neo4j_password.get_secret_value()
        if settings.neo4j_password is not None
        else server.password()
    )
    return server.uri, settings.neo4j_user, password
