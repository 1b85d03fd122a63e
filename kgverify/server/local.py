"""The local Neo4j: Neo4j Community 5.26 with APOC, embedded in a JVM, Bolt on 127.0.0.1.

With ``http_port`` (default 7474) the launcher also opens Neo4j's HTTP connector on 127.0.0.1
and serves Neo4j Browser under ``/browser/`` (its files come from the ``neo4j-browser`` jar on
the classpath); the HTTP API asks for the same password as Bolt. A taken HTTP port does not
stop the server: the status says the Browser is off and why.

The Java launcher lives in ``docker/neo4j-local`` (GPLv3, apart from this package) and is
built with Maven into ``<cache_dir>/neo4j-local/<source hash>``, so a changed launcher is
rebuilt and an unchanged one never is. The server's data, log, pid and password files live
under ``Settings.local_home`` (outside the repository). The password is generated on first
start and kept in an owner-only file; nothing ships a default password.

A server killed mid-write (SIGKILL, power loss) replays its transaction log on the next
start, which can take minutes. ``start`` reads Neo4j's ``debug.log`` while it waits, says how
far the recovery got, and counts ``start_timeout_s`` from the last recovery step, so a long
recovery that keeps moving is never cut off; one that stalls is left running, never killed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path

from kgverify.config import Settings
from kgverify.errors import ServerError
from kgverify.graph.connection import LocalServerFiles
from kgverify.graph.driver import Graph

READY_MARK = "KGVERIFY_NEO4J_READY"
# kgverify's Browser style and audit guide, served from the launcher jar (kgverify.audit.browser).
STYLE_PATH = "/browser/kgverify/style.grass"
GUIDE_PATH = "/browser/kgverify/audit.html"
FAVORITES_PATH = "/browser/kgverify/audit-favorites.zip"
MAIN_CLASS = "org.kgverify.neo4jlocal.LocalServer"
IMPORT_CLASS = "org.kgverify.neo4jlocal.BulkImport"
# The server outlives the call that started it; holding its Popen here keeps Python from
# warning that a child it forgot about is still running.
_STARTED: list[subprocess.Popen[bytes]] = []
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerStatus:
    """What ``kgverify neo4j status`` reports."""

    running: bool
    pid: int | None
    uri: str | None
    home: str
    apoc: str | None = None
    password_file: str | None = None
    # A JVM that runs but does not answer yet (e.g. replaying its transaction log).
    starting: bool = False
    recovery: str | None = None
    # Neo4j Browser's address, or None (HTTP off, or its port was taken: see ``http``).
    browser: str | None = None
    http: str | None = None  # "http://127.0.0.1:PORT", "off" or "busy:PORT"
    # kgverify's style and audit guide for the Browser (`:style URL`, `:play URL`), or None.
    style: str | None = None
    guide: str | None = None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def launcher_project(name: str, what: str) -> Path:
    """The Maven project ``name`` of a launcher: the copy packaged in the wheel
    (``kgverify/server/<name>``) first, then the checkout's ``docker/<name>``."""
    packaged = resources.files("kgverify").joinpath("server").joinpath(name)
    if packaged.is_dir():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parents[2] / "docker" / name
    if (checkout / "pom.xml").is_file():
        return checkout
    raise ServerError(f"the {what} launcher sources are missing from this installation")


def launcher_source() -> Path:
    """The Maven project of the Neo4j launcher."""
    return launcher_project("neo4j-local", "Neo4j")


def _source_hash(src: Path) -> str:
    digest = hashlib.sha256()
    # The launcher's classes and its resources (the Browser style and guide it serves).
    files = [
        src / "pom.xml",
        *sorted(p for p in (src / "src").rglob("*") if p.is_file() and p.suffix != ".pyc"),
    ]
    for path in files:
        digest.update(str(path.relative_to(src)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def require_tool(tool: str, what: str = "the local Neo4j") -> str:
    """The path of ``java`` or ``mvn``; one error line when it is not installed."""
    found = shutil.which(tool)
    if found is None:
        raise ServerError(f"`{tool}` is not on PATH; {what} needs Java 17 and Maven")
    return found


def ensure_built(settings: Settings) -> Path:
    """Build the launcher once per source version; return the build folder."""
    return build_launcher(launcher_source(), settings.cache_dir / "neo4j-local", "neo4j-local")


def build_launcher(src: Path, builds: Path, name: str, what: str = "the local Neo4j") -> Path:
    """Build the Maven project ``src`` into ``builds/<source hash>`` unless that folder
    already holds ``<name>.jar`` and ``lib/``; return the folder."""
    build = builds / _source_hash(src)
    if (build / f"{name}.jar").is_file() and (build / "lib").is_dir():
        return build
    mvn = require_tool("mvn", what)
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
    if done.returncode != 0 or not (build / f"{name}.jar").is_file():
        tail = log.read_text(errors="replace").strip().splitlines()[-5:]
        raise ServerError(f"building the launcher of {what} failed (see {log}): {' | '.join(tail)}")
    return build


def classpath(build: Path) -> str:
    # APOC must be both on the classpath and in the plugin folder of an embedded server.
    parts = [build / "neo4j-local.jar", build / "lib" / "*", build / "plugins" / "*"]
    return os.pathsep.join(str(p) for p in parts)


# -- recovery, as Neo4j 5.26 writes it to debug.log ----------------------------------------------
# e.g. "... INFO  [o.n.k.d.Database] [neo4j/4e97d140] Recovery required from position ...",
#      "... INFO  [o.n.k.r.Recovery] [neo4j/4e97d140]  40% completed",
#      "... INFO  [o.n.k.d.Database] [neo4j/4e97d140] Recovery in 'full' mode completed. ..."
_DATABASE = r"\[(?P<db>[^\s/\]]+)/[0-9a-f]+\] "
_RECOVERY_REQUIRED = re.compile(
    _DATABASE + r"(?:Recovery required from position|Transaction logs recovery is required)"
)
_RECOVERY_PERCENT = re.compile(_DATABASE + r"\s*(?P<pct>\d{1,3})% completed\s*$")
# Not the checkpoint line that quotes it ('Checkpoint triggered by "Recovery completed."').
_RECOVERY_DONE = re.compile(
    _DATABASE + r"Recovery (?:in '[^']*' mode |with missing logs )?completed\."
)


@dataclass
class RecoveryLog:
    """What the debug log has said about recovery since the launch, per database.

    >>> r = RecoveryLog()
    >>> r.feed("2026-01-01 INFO  [o.n.k.r.Recovery] [neo4j/4e97d140]  40% completed")
    True
    >>> r.active, r.describe()
    (True, 'neo4j 40% replayed')
    """

    percent: dict[str, int] = field(default_factory=dict)  # database -> share replayed
    done: set[str] = field(default_factory=set)

    def feed(self, line: str) -> bool:
        """Take one log line; True when it shows recovery moving on (new information)."""
        if (m := _RECOVERY_DONE.search(line)) is not None:
            new = m["db"] not in self.done
            self.done.add(m["db"])
            self.percent[m["db"]] = 100
            return new
        if (m := _RECOVERY_PERCENT.search(line)) is not None:
            pct = min(int(m["pct"]), 100)
            if pct <= self.percent.get(m["db"], -1):
                return False
            self.percent[m["db"]] = pct
            return True
        if (m := _RECOVERY_REQUIRED.search(line)) is not None:
            new = m["db"] not in self.percent
            self.percent.setdefault(m["db"], 0)
            return new
        return False

    @property
    def seen(self) -> bool:
        return bool(self.percent)

    @property
    def active(self) -> bool:
        """Some database is still replaying its transaction log."""
        return any(db not in self.done for db in self.percent)

    def describe(self) -> str:
        return ", ".join(
            f"{db} done" if db in self.done else f"{db} {pct}% replayed"
            for db, pct in self.percent.items()
        )


class StartWatch:
    """The start deadline: ``timeout_s`` from the launch, and again from each recovery step
    the log shows, so the timeout bounds silence, not a long recovery that keeps moving."""

    def __init__(self, timeout_s: float, now: float) -> None:
        self.timeout_s = timeout_s
        self.deadline = now + timeout_s
        self.recovery = RecoveryLog()

    def observe(self, lines: Iterable[str], now: float) -> str | None:
        """Read new log lines; a message for the user when recovery moved on, else None."""
        moved = [self.recovery.feed(line) for line in lines]
        if not any(moved):
            return None
        self.deadline = now + self.timeout_s
        if self.recovery.active:
            return f"database recovery in progress ({self.recovery.describe()}); waiting"
        return f"database recovery completed ({self.recovery.describe()}); finishing start"

    def expired(self, now: float) -> bool:
        return now >= self.deadline


class _LogTail:
    """Complete lines appended to a file since ``offset`` (a rotated file is read anew)."""

    def __init__(self, path: Path, offset: int) -> None:
        self.path = path
        self.offset = offset

    def lines(self) -> list[str]:
        try:
            with self.path.open("rb") as f:
                if f.seek(0, os.SEEK_END) < self.offset:
                    self.offset = 0
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return []
        end = data.rfind(b"\n") + 1  # a half-written last line waits for the next read
        self.offset += end
        return data[:end].decode(errors="replace").splitlines()


def _server_env() -> dict[str, str]:
    """This environment less what could turn APOC's file access back on: APOC reads its
    settings from the environment before the launcher's (``APOC_IMPORT_FILE_ENABLED``,
    ``apoc.export.file.enabled``) and looks for an ``apoc.conf`` under ``NEO4J_CONF``."""
    return {
        key: value
        for key, value in os.environ.items()
        if not key.lower().startswith("apoc") and key != "NEO4J_CONF"
    }


def _port_of(address: str | None) -> str | None:
    """The port at the end of ``bolt://127.0.0.1:7687``, ``http://...:7474``, ``busy:7474``."""
    return address.rpartition(":")[2] if address else None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


class LocalServer(LocalServerFiles):
    """Start, stop and inspect the local Neo4j described by ``settings`` (where it listens
    and its password: :class:`~kgverify.graph.connection.LocalServerFiles`).

    >>> server = LocalServer(Settings())                    # doctest: +SKIP
    >>> server.start().uri                                  # doctest: +SKIP
    'bolt://127.0.0.1:7687'
    """

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.log_file = self.home / "server.log"
        self.ready_file = self.home / "ready"
        self.data_home = self.home / "dbms"

    # -- state ----------------------------------------------------------------------------
    @property
    def debug_log(self) -> Path:
        """Neo4j's own log (the embedded default place under its home): recovery shows here."""
        return self.data_home / "logs" / "debug.log"

    def _state_int(self, key: str) -> int | None:
        state = self._state()
        try:
            return int(str(state[key])) if state and key in state else None
        except ValueError:
            return None

    def _alive(self, pid: int) -> bool:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False
        return MAIN_CLASS.encode() in cmdline

    def _password_file(self) -> str | None:
        return str(self.password_file) if self.password_file.is_file() else None

    def status(self) -> ServerStatus:
        state = self._state()
        pid = self._state_int("pid")
        if pid is None or not self._alive(pid):
            return ServerStatus(False, None, None, str(self.home), None, self._password_file())
        uri = str(state["uri"]) if state and "uri" in state else None
        if self.ready_file.is_file():
            ready = self.ready_file.read_text().split()
            apoc = next((w.split("=", 1)[1] for w in ready if w.startswith("apoc=")), None)
            http = next((w.split("=", 1)[1] for w in ready if w.startswith("http=")), None)
            served = http if http and http.startswith("http://") else None
            return ServerStatus(
                True,
                pid,
                uri,
                str(self.home),
                apoc,
                self._password_file(),
                browser=f"{served}/browser/" if served else None,
                http=http,
                style=served + STYLE_PATH if served else None,
                guide=served + GUIDE_PATH if served else None,
            )
        # Launched but not answering yet: say how far a recovery got since the launch.
        recovery = RecoveryLog()
        for line in _LogTail(self.debug_log, self._state_int("log_offset") or 0).lines():
            recovery.feed(line)
        return ServerStatus(
            False,
            pid,
            uri,
            str(self.home),
            None,
            self._password_file(),
            starting=True,
            recovery=recovery.describe() if recovery.seen else None,
        )

    def has_store(self) -> bool:
        """Whether the ``neo4j`` database of this server has ever been created."""
        return (self.data_home / "data" / "databases" / "neo4j").is_dir()

    # -- lifecycle ------------------------------------------------------------------------
    def start(self, on_progress: Callable[[str], None] | None = None) -> ServerStatus:
        """Start the server and wait until Bolt answers; a no-op when it already runs.

        A JVM that an earlier start left running (still recovering) is waited for, not
        launched again. ``on_progress`` gets one line per recovery step (default: logged).
        """
        current = self.status()
        if current.running:
            # Already running: ports set now that are not its own would be ignored.
            self.check_port("bolt_port", "KGVERIFY_BOLT_PORT", _port_of(current.uri))
            http = "0" if current.http == "off" else _port_of(current.http)
            self.check_port("http_port", "KGVERIFY_HTTP_PORT", http)
            return current
        if current.starting and current.pid is not None:
            return self._wait(current.pid, None, on_progress)
        proc = self._launch()
        return self._wait(proc.pid, proc, on_progress)

    def _launch(self) -> subprocess.Popen[bytes]:
        """Start the JVM and record it; returns at once (``start`` waits for it)."""
        build = ensure_built(self.settings)
        java = require_tool("java")
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
            "--http-port",
            str(self.settings.http_port),
            "--pagecache",
            self.settings.neo4j_pagecache,
            "--ready-file",
            str(self.ready_file),
        ]
        if self.settings.neo4j_transaction_memory:
            cmd += ["--transaction-memory", self.settings.neo4j_transaction_memory]
        # Both logs are appended across runs; only what this run writes counts.
        offsets = {"log_offset": _size(self.debug_log), "out_offset": _size(self.log_file)}
        with self.log_file.open("ab") as out:
            proc = subprocess.Popen(
                cmd,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env=_server_env(),
            )
        _STARTED.append(proc)
        uri = f"bolt://127.0.0.1:{port}"
        self.state_file.write_text(json.dumps({"pid": proc.pid, "uri": uri, **offsets}))
        return proc

    def _wait(
        self,
        pid: int,
        proc: subprocess.Popen[bytes] | None,
        on_progress: Callable[[str], None] | None,
    ) -> ServerStatus:
        """Wait for the ready file and Bolt while the JVM lives and the watch allows."""
        notify = on_progress or log.warning
        offset = self._state_int("log_offset")
        tail = _LogTail(self.debug_log, _size(self.debug_log) if offset is None else offset)
        watch = StartWatch(self.settings.start_timeout_s, time.monotonic())
        while True:
            now = time.monotonic()
            # The log first, so a recovery that ends just before readiness is still told.
            message = watch.observe(tail.lines(), now)
            if message is not None:
                notify(message)
            exited = proc.poll() is not None if proc is not None else not self._alive(pid)
            if exited:
                reason = self._last_error()
                self.state_file.unlink(missing_ok=True)
                raise ServerError(f"Neo4j did not start: {reason}")
            if self.ready_file.is_file():
                self._check_bolt(self.uri)
                return self.status()
            if watch.expired(now):
                break
            time.sleep(0.25)
        hint = (
            f"KGVERIFY_START_TIMEOUT_S (seconds without progress, now "
            f"{self.settings.start_timeout_s:g})"
        )
        if watch.recovery.active:
            # Killing it would throw the replay away; the next start picks it up again.
            raise ServerError(
                f"Neo4j is still recovering its database after an unclean stop "
                f"({watch.recovery.describe()}; no progress for "
                f"{self.settings.start_timeout_s:g}s; log: {self.debug_log}); left running "
                f"(pid {pid}): run `kgverify neo4j start` again to keep waiting, or raise {hint}"
            )
        self._terminate(pid)
        self.state_file.unlink(missing_ok=True)
        raise ServerError(
            f"Neo4j did not answer within {self.settings.start_timeout_s:g}s and was stopped "
            f"(logs: {self.log_file}, {self.debug_log}); to wait longer raise {hint}"
        )

    def _check_bolt(self, uri: str) -> None:
        """The launcher says ready; make sure Bolt answers with our password, too."""
        graph = Graph(uri, "neo4j", self.password(), "neo4j")
        try:
            graph.verify()
        finally:
            graph.close()

    def _last_error(self) -> str:
        """The launcher's last ``error:`` line of this run (the log is appended across runs)."""
        lines = _LogTail(self.log_file, self._state_int("out_offset") or 0).lines()
        if not lines and not self.log_file.is_file():
            return "no log was written"
        errors = [line for line in lines if line.startswith("error:")]
        if errors:
            return errors[-1].removeprefix("error:").strip()
        return f"see {self.log_file} and {self.debug_log}"

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

    def holds_nodes(self) -> bool:
        """Whether this server's database holds any node (an import would replace it);
        started to look where a store exists, False where none was ever created."""
        if not self.has_store():
            return False
        self.start()
        with Graph.connect(self.settings) as graph:
            return bool(graph.read("admin/holds_nodes")[0]["holds"])

    def bulk_import(
        self,
        nodes: list[Path],
        relationships: list[Path],
        report: Path,
        *,
        multiline: bool = False,
    ) -> list[str]:
        """Run ``neo4j-admin database import full`` into the (stopped) server's ``neo4j``
        database, replacing it. Returns the import's bad-entry lines (dangling edges).
        ``multiline``: quoted fields may hold line breaks (free text such as a patient
        fact's display; slower parsing, so only where needed)."""
        if self.status().running:
            raise ServerError("stop the local Neo4j before a bulk import")
        build = ensure_built(self.settings)
        cmd = [
            require_tool("java"),
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
            f"--multiline-fields={'true' if multiline else 'false'}",
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
