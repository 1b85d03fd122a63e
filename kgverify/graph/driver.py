"""The only code that talks to Neo4j: a thin wrapper over the official driver.

Every statement is a named query (see :mod:`kgverify.graph.queries`) run in a managed
transaction (``execute_read`` / ``execute_write``), so retries on transient errors and
cluster routing come from the driver, and the same code runs against a local server, a
cluster or Aura. Every transaction carries the ``neo4j_tx_timeout_s`` timeout, so the server
ends one that runs (or waits on a lock) too long. Driver errors that users can cause (wrong
password, server down, missing database, a timeout, a server out of memory) become one-line
:class:`~kgverify.errors.KgverifyError` subclasses; "cannot reach" is said only of a server
that never answered this process, not of one that stopped answering mid-run. The one
exception to named queries is :meth:`Graph.run_adhoc`, the statement a user types into
``kgverify cypher``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from types import TracebackType
from typing import Any, Self, TypeVar

import neo4j
from neo4j import exceptions as neo4j_errors

from kgverify.config import Settings
from kgverify.errors import (
    GraphAuthError,
    GraphUnavailableError,
    KgverifyError,
    QueryError,
    TransactionError,
    TransactionMemoryError,
    TransactionTimeoutError,
)
from kgverify.graph.adhoc import file_access
from kgverify.graph.connection import resolve_connection
from kgverify.graph.queries import get_query

Row = dict[str, Any]

logger = logging.getLogger(__name__)

# The server's answers when a statement outgrows its transaction memory (the total of all
# transactions, or one transaction's own limit), or the JVM its heap. Retrying the same
# statement, as the driver does with transient errors, only fails again (and keeps a starved
# server busy): the caller splits the work or reports.
_MEMORY_CODES = frozenset(
    {
        "Neo.TransientError.General.MemoryPoolOutOfMemoryError",
        "Neo.TransientError.General.TransactionMemoryLimit",
        "Neo.TransientError.General.OutOfMemoryError",
    }
)

# A transaction the server ended: these codes say why only in their message.
_TERMINATED_CODES = frozenset(
    {
        "Neo.ClientError.Transaction.Terminated",
        "Neo.ClientError.Transaction.LockClientStopped",
    }
)

# How long the driver waits for a connection of its pool (opening one included, itself
# bounded by the 10 s connection timeout); the driver's default, set here so it stays bounded.
ACQUISITION_TIMEOUT_S = 60.0
# How long the driver retries a transaction that failed transiently (a deadlock, a leader
# switch) before giving up.
RETRY_TIME_S = 15.0

_MEMORY_HINT = (
    "give the server more heap: KGVERIFY_NEO4J_HEAP for the local server, "
    "server.memory.heap.max_size otherwise; a per-transaction limit below the heap, "
    "KGVERIFY_NEO4J_TRANSACTION_MEMORY (db.memory.transaction.max), makes a batch too large "
    "fail alone and be split instead"
)
_TIMEOUT_SETTING = "KGVERIFY_NEO4J_TX_TIMEOUT_S"


# A class the server could not initialize fails on every later use: after an exhausted
# heap (a starved server refused every batch so, which read as thousands of bad rows) or a
# missing library. The server's fault, never a row's.
_SERVER_FAULTS = ("Could not initialize class", "ExceptionInInitializerError", "NoClassDefFound")


def is_memory_error(exc: neo4j_errors.Neo4jError) -> bool:
    """The server ran out of transaction memory or heap running the statement."""
    code = exc.code or ""
    if code in _MEMORY_CODES:
        return True
    # A JVM out of heap that surfaces without a memory code of its own.
    return code.startswith("Neo.DatabaseError.") and "OutOfMemoryError" in (exc.message or "")


def is_timeout(exc: neo4j_errors.Neo4jError) -> bool:
    """The server ended the transaction because it ran past its timeout."""
    code = exc.code or ""
    if "TransactionTimedOut" in code:
        return True
    if code in _TERMINATED_CODES:
        text = (exc.message or "").lower()
        return "timed out" in text or "timeout" in text
    return False


class _OutOfMemoryError(Exception):
    """Raised inside a transaction function so that the driver does not retry it."""

    def __init__(self, error: neo4j_errors.Neo4jError) -> None:
        super().__init__(error.message or error.code)
        self.error = error


T = TypeVar("T")


def batched(rows: Iterable[T], size: int) -> Iterator[list[T]]:
    """Split an iterable into lists of at most ``size`` items, lazily."""
    iterator = iter(rows)
    while batch := list(islice(iterator, size)):
        yield batch


def _server_line(exc: neo4j_errors.Neo4jError) -> str:
    """The server's message, first line (``str()`` of a server error holds its GQL status too)."""
    lines = [line.strip() for line in (exc.message or "").splitlines() if line.strip()]
    return lines[0] if lines else (exc.code or type(exc).__name__)


def translate_error(
    exc: BaseException,
    *,
    uri: str,
    user: str,
    database: str,
    what: str = "",
    reached: bool = False,
    tx_timeout_s: float | None = None,
) -> KgverifyError | None:
    """The one-line kgverify error for a failure of the driver, or None to let it go on.

    ``what`` names the work for the message (``running verify/enrich``); ``reached``: the
    server answered this graph before, so a lost connection is the server stopping mid-run
    (its cause is the server's, e.g. its heap), never "cannot reach". Errors of a running
    transaction keep their own cause: out of memory, timed out, terminated.
    """
    during = f" {what}" if what else ""
    if isinstance(exc, _OutOfMemoryError):
        exc = exc.error
    if isinstance(exc, neo4j_errors.Neo4jError):
        code = exc.code or ""
        if is_memory_error(exc):
            return TransactionMemoryError(
                f"Neo4j ran out of memory{during}: {_server_line(exc)} ({_MEMORY_HINT})"
            )
        if is_timeout(exc):
            limit = f"{tx_timeout_s:g} s" if tx_timeout_s else "its timeout"
            return TransactionTimeoutError(
                f"Neo4j ended a transaction{during} that ran longer than {limit} "
                f"({_TIMEOUT_SETTING}; raise it for larger work, or see what holds locks with "
                "`SHOW TRANSACTIONS`)"
            )
        if code in _TERMINATED_CODES:
            return TransactionError(f"Neo4j terminated a transaction{during}: {_server_line(exc)}")
        if code.startswith("Neo.DatabaseError.") and any(
            sign in (exc.message or "") for sign in _SERVER_FAULTS
        ):
            return TransactionError(
                f"Neo4j failed{during}: {_server_line(exc)} (the server's own error, not the "
                "data: a class it could not load, after running out of heap or for a missing "
                "library; see the server's log, and KGVERIFY_NEO4J_HEAP for a starved one)"
            )
        if isinstance(exc, neo4j_errors.AuthError):
            return GraphAuthError(
                f"Neo4j at {uri} rejected the credentials for user {user!r} "
                "(check NEO4J_USER / NEO4J_PASSWORD)"
            )
        if isinstance(exc, neo4j_errors.DatabaseUnavailable):
            return GraphUnavailableError(f"database {database!r} at {uri} is not available")
        if isinstance(exc, neo4j_errors.TransientError):
            # The driver retried it (a deadlock, a leader switch) until its retry time ran out.
            return TransactionError(
                f"Neo4j kept failing a transaction{during} for {RETRY_TIME_S:g} s of retries: "
                f"{_server_line(exc)} ({code})"
            )
        # After three wrong passwords the server refuses every login of that user, the right
        # one included, for about 5 s; the driver raises this as a plain ClientError.
        if code == "Neo.ClientError.Security.AuthenticationRateLimit":
            return GraphAuthError(
                f"Neo4j at {uri} is refusing logins for user {user!r} after repeated wrong "
                "passwords; check NEO4J_PASSWORD and retry in a few seconds"
            )
        if code == "Neo.ClientError.Database.DatabaseNotFound":
            return GraphUnavailableError(f"database {database!r} does not exist at {uri}")
        return None  # about the statement or a row: the caller decides
    if isinstance(exc, neo4j_errors.ConnectionAcquisitionTimeoutError):
        return GraphUnavailableError(
            f"no connection to Neo4j at {uri} came free within {ACQUISITION_TIMEOUT_S:g} s"
            f"{during} ({_first_line(exc)})"
        )
    if isinstance(exc, (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired, OSError)):
        if reached:
            # It answered before: the server stopped, or stopped answering, mid-run. A
            # server out of heap does this, so the hint is the heap, not "start it".
            return GraphUnavailableError(
                f"Neo4j at {uri} stopped answering{during}: {_first_line(exc)} (it answered "
                "earlier in this run: see `kgverify neo4j status` and the server's log; a "
                "server out of memory does this, KGVERIFY_NEO4J_HEAP gives it more)"
            )
        return GraphUnavailableError(
            f"cannot reach Neo4j at {uri}: {_first_line(exc)} "
            "(start the local server with `kgverify neo4j start`, or set NEO4J_URI)"
        )
    return None


@contextmanager
def _translated(
    uri: str,
    user: str,
    database: str,
    *,
    what: str = "",
    reached: bool = False,
    tx_timeout_s: float | None = None,
) -> Iterator[None]:
    """Turn the driver's expected failures into one-line kgverify errors."""
    try:
        yield
    except (_OutOfMemoryError, neo4j_errors.Neo4jError, neo4j_errors.DriverError, OSError) as exc:
        error = translate_error(
            exc,
            uri=uri,
            user=user,
            database=database,
            what=what,
            reached=reached,
            tx_timeout_s=tx_timeout_s,
        )
        if error is None:
            raise
        raise error from (exc.error if isinstance(exc, _OutOfMemoryError) else exc)


@dataclass(frozen=True)
class AdhocResult:
    """What an ad-hoc statement returned.

    Its columns and rows, whether rows were left out (``max_rows``), and the update
    counters that are not 0 (e.g. ``{"nodes_created": 2}``).
    """

    columns: list[str]
    rows: list[Row]
    truncated: bool = False
    counters: dict[str, int] = field(default_factory=dict)


_ENTITIES = (neo4j.graph.Node, neo4j.graph.Relationship, neo4j.graph.Path)


def plain_rows(name: str, records: Iterable[neo4j.Record], strict: bool = False) -> list[Row]:
    """A named query's records as dicts, as the driver decoded them.

    Named queries return values (ids, properties, maps and lists of them), never nodes,
    relationships or paths, so a record is its row as it is: ``Record.data()`` would copy
    every nested list and map again to turn entities into dicts, which on a derivation page
    costs about as long as fetching it. ``strict`` checks the rule on every value (the test
    suite runs with it, so every named query it reaches is held to it).
    """
    rows = [dict(record) for record in records]
    if strict:
        for row in rows:
            for key, value in row.items():
                if _holds_entity(value):
                    raise QueryError(
                        f"{name} returned a node, relationship or path in {key!r}: named "
                        "queries return values (ids, properties, maps of them)"
                    )
    return rows


def _holds_entity(value: Any) -> bool:
    if isinstance(value, _ENTITIES):
        return True
    if isinstance(value, list):
        return any(_holds_entity(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_entity(v) for v in value.values())
    return False


def _not_row_caused(exc: neo4j_errors.Neo4jError) -> bool:
    """Errors no single row causes: security, a database, a statement, a server class."""
    code = exc.code or ""
    message = exc.message or ""
    return (
        code.startswith(("Neo.ClientError.Security.", "Neo.ClientError.Database."))
        or code == "Neo.ClientError.Statement.SyntaxError"
        or (code.startswith("Neo.DatabaseError.") and any(s in message for s in _SERVER_FAULTS))
    )


def _first_line(exc: BaseException) -> str:
    """The message's first line, with the next one when the first ends in a colon.

    The driver puts the reason for "Couldn't connect to ...:" on a line of its own.
    """
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    if lines[0].endswith(":") and len(lines) > 1:
        return f"{lines[0]} {lines[1]}"
    return lines[0]


class Graph:
    """A connection to one Neo4j database; use as a context manager or call :meth:`close`.

    Every method that reaches the server turns what users can cause into one line:
    :class:`~kgverify.errors.GraphUnavailableError` (server down, database missing),
    :class:`~kgverify.errors.GraphAuthError` (credentials), and
    :class:`~kgverify.errors.QueryError` (a statement or its parameters refused).

    >>> from kgverify.graph import Graph
    >>> with Graph.connect() as graph:                      # doctest: +SKIP
    ...     graph.read("summary/count_concepts_by_vocab")
    """

    def __init__(
        self,
        uri: str,
        user: str,
        password: str,
        database: str = "neo4j",
        *,
        strict_rows: bool = False,
        tx_timeout_s: float = 600.0,
    ) -> None:
        """Open a driver for ``uri``; nothing is sent until the first call (see :meth:`connect`).

        With ``strict_rows`` (setting ``strict_rows``; the test suite turns it on), every row
        of a named query is checked to hold values only (see :func:`plain_rows`). Every
        transaction may run ``tx_timeout_s`` seconds (setting ``neo4j_tx_timeout_s``), waits
        on locks included; then the server ends it and
        :class:`~kgverify.errors.TransactionTimeoutError` says so.
        """
        self.uri = uri
        self.user = user
        self.database = database
        self.strict_rows = strict_rows
        self.tx_timeout_s = tx_timeout_s
        # Whether the server has answered this graph: a connection lost after that is the
        # server stopping mid-run, not a server that cannot be reached.
        self._reached = False
        self._driver = neo4j.GraphDatabase.driver(
            uri,
            auth=(user, password),
            connection_timeout=10.0,
            connection_acquisition_timeout=ACQUISITION_TIMEOUT_S,
            max_transaction_retry_time=RETRY_TIME_S,
            # Schema-less reads on a fresh graph warn about unknown labels; not our users' news.
            notifications_min_severity="OFF",
        )

    @classmethod
    def connect(cls, settings: Settings | None = None, *, verify: bool = True) -> Graph:
        """Connect using settings (the local server's URI and password file when unset).

        Args:
            settings: where and as whom; ``Settings()`` when None.
            verify: check at once that the server answers and the database exists
                (:meth:`verify`), closing the connection again when it does not.

        Raises:
            GraphUnavailableError: no server answers at the URI, or the database is missing.
            GraphAuthError: the server rejects the credentials.
        """
        settings = settings or Settings()
        uri, user, password = resolve_connection(settings)
        graph = cls(
            uri,
            user,
            password,
            settings.neo4j_database,
            strict_rows=settings.strict_rows,
            tx_timeout_s=settings.neo4j_tx_timeout_s,
        )
        if verify:
            try:
                graph.verify()
            except KgverifyError:
                graph.close()
                raise
        return graph

    def verify(self) -> None:
        """Check that the server answers and accepts the credentials, and the database exists."""
        with self._errors():
            self._driver.verify_connectivity()
            with self._driver.session(database=self.database) as session:
                session.run(neo4j.Query("RETURN 1", timeout=self.tx_timeout_s)).consume()

    @contextmanager
    def _errors(self, what: str = "") -> Iterator[None]:
        with _translated(
            self.uri,
            self.user,
            self.database,
            what=what,
            reached=self._reached,
            tx_timeout_s=self.tx_timeout_s,
        ):
            yield
        self._reached = True

    def _bounded(self, work: Callable[[neo4j.ManagedTransaction], T]) -> Callable[..., T]:
        """``work`` as a transaction function with the timeout, and not retried out of memory.

        The driver retries transient errors for up to 15 s; a statement out of memory only
        fails again (and keeps a starved server busy), so it leaves the retry loop at once.
        """

        @neo4j.unit_of_work(timeout=self.tx_timeout_s)
        def bounded(tx: neo4j.ManagedTransaction) -> T:
            try:
                return work(tx)
            except neo4j_errors.Neo4jError as exc:
                if is_memory_error(exc):
                    raise _OutOfMemoryError(exc) from exc
                raise

        return bounded

    def _run(self, access: str, name: str, params: dict[str, Any]) -> list[Row]:
        query = get_query(name)
        query.check_params(params)

        def work(tx: neo4j.ManagedTransaction) -> list[Row]:
            return plain_rows(name, tx.run(query.text, params), self.strict_rows)

        with (
            self._errors(f"running {name}"),
            self._driver.session(database=self.database) as session,
        ):
            runner: Callable[..., list[Row]] = (
                session.execute_read if access == "read" else session.execute_write
            )
            return runner(self._bounded(work))

    def read(self, name: str, **params: Any) -> list[Row]:
        """Run a named query in a managed read transaction and return its rows."""
        return self._run("read", name, params)

    def read_rows(self, name: str, rows: list[Row], **params: Any) -> list[Row]:
        """Run a named read over ``rows`` (the query's ``$rows``), split when too large.

        When the database runs out of transaction memory on the batch, each half is read
        in a transaction of its own, down to one row; only a single row that does not fit
        raises :class:`~kgverify.errors.TransactionMemoryError`. The rows returned are
        those of the halves, in order.
        """
        try:
            return self.read(name, rows=rows, **params)
        except TransactionMemoryError:
            if len(rows) <= 1:
                raise
            logger.info("%s ran out of transaction memory on %d rows: halves", name, len(rows))
        middle = len(rows) // 2
        return self.read_rows(name, rows[:middle], **params) + self.read_rows(
            name, rows[middle:], **params
        )

    def write(self, name: str, **params: Any) -> list[Row]:
        """Run a named query in a managed write transaction and return its rows."""
        return self._run("write", name, params)

    def write_rows(
        self,
        name: str,
        rows: list[Row],
        refused: Callable[[Row, str], None],
        **params: Any,
    ) -> list[list[Row]]:
        """Write ``rows`` (the query's ``$rows``) in one managed transaction, row-safely.

        When the database refuses the batch for what a row holds (a non-transient client or
        database error, e.g. a value too large to index), the batch is split in halves and
        each retried, so every valid row is still written and each refused row is handed to
        ``refused`` with the database's one-line reason. A batch that outgrows the server's
        transaction memory is split the same way (only a single row that does not fit
        raises). Returns the results of the
        transactions that committed (one list of rows each).
        """
        try:
            return [self.write(name, rows=rows, **params)]
        except TransactionMemoryError:
            # Too large for the server's transaction memory: halves, each committed alone.
            if len(rows) <= 1:
                raise
            logger.info("%s ran out of transaction memory on %d rows: halves", name, len(rows))
        except (neo4j_errors.ClientError, neo4j_errors.DatabaseError) as exc:
            if isinstance(exc, neo4j_errors.TransientError) or _not_row_caused(exc):
                raise
            if len(rows) == 1:
                refused(rows[0], f"refused by the database: {exc.message or _first_line(exc)}")
                return []
        middle = len(rows) // 2
        return self.write_rows(name, rows[:middle], refused, **params) + self.write_rows(
            name, rows[middle:], refused, **params
        )

    def run_adhoc(
        self, text: str, params: dict[str, Any], *, write: bool = False, max_rows: int = 0
    ) -> AdhocResult:
        """Run one ad-hoc statement in a managed read transaction, or a write one.

        This is what ``kgverify cypher`` runs; the engine's own statements are all named
        queries.

        Args:
            text: the Cypher statement.
            params: its ``$parameters``.
            write: run it in a write transaction; otherwise a write is refused, and so
                is a statement that reads files or URLs (``LOAD CSV``, ``apoc.load.*``:
                :mod:`kgverify.graph.adhoc`), before it is sent.
            max_rows: keep at most this many rows when not 0 (the statement still runs to
                its end).

        Returns:
            Columns, rows, whether rows were left out, and the non-zero update counters.

        Raises:
            QueryError: Neo4j refused the statement (syntax, a write in a read
                transaction, a missing parameter), or it reads files or URLs without
                ``write``; one line.
        """
        if not write and (reads := file_access(text)) is not None:
            raise QueryError(
                f"the statement reads files or URLs ({reads}): refused without --write "
                "(the local server reads no host files in any case)"
            )

        def work(tx: neo4j.ManagedTransaction) -> AdhocResult:
            result = tx.run(text, params)
            columns = list(result.keys())
            rows: list[Row] = []
            truncated = False
            for record in result:
                if max_rows and len(rows) == max_rows:
                    truncated = True
                    break
                rows.append(record.data())
            counters = {
                k: v
                for k, v in vars(result.consume().counters).items()
                if not k.startswith("_") and isinstance(v, int) and not isinstance(v, bool) and v
            }
            return AdhocResult(columns, rows, truncated, counters)

        try:
            with (
                self._errors("running the statement"),
                self._driver.session(database=self.database) as session,
            ):
                if write:
                    return session.execute_write(self._bounded(work))
                return session.execute_read(self._bounded(work))
        except neo4j_errors.Neo4jError as exc:
            # What the connection could cause was translated by _errors(); the rest is about
            # the statement (syntax, parameters, a write in a read transaction, IN TRANSACTIONS
            # in a managed one, a procedure or constraint refusing it).
            code = exc.code or ""
            if code == "Neo.ClientError.Statement.AccessMode":
                raise QueryError(
                    "the statement writes, and ran in a read transaction: nothing was "
                    "changed (add --write to let it write)"
                ) from exc
            lines = (exc.message or "").strip().splitlines() or [code or type(exc).__name__]
            raise QueryError(f"Neo4j refused the statement: {lines[0]}") from exc

    def write_autocommit(self, name: str, **params: Any) -> list[Row]:
        """Run a named query in an implicit transaction; needed for ``IN TRANSACTIONS``.

        No transaction timeout here: it would bound the whole statement, every inner
        batch together (a full release's retirement can take longer than any one
        transaction should), while each inner batch commits its work as it goes.
        """
        query = get_query(name)
        query.check_params(params)
        with (
            self._errors(f"running {name}"),
            self._driver.session(database=self.database) as session,
        ):
            return plain_rows(name, session.run(query.text, params), self.strict_rows)

    def close(self) -> None:
        """Close the driver and its connections; the graph cannot be used afterwards."""
        self._driver.close()

    def __enter__(self) -> Self:
        """The graph itself; :meth:`close` runs on leaving the block."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Close the graph; an exception of the block goes on."""
        self.close()
