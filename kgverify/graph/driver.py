"""The only code that talks to Neo4j: a thin wrapper over the official driver.

Every statement is a named query (see :mod:`kgverify.graph.queries`) run in a managed
transaction (``execute_read`` / ``execute_write``), so retries on transient errors and
cluster routing come from the driver, and the same code runs against a local server, a
cluster or Aura. Driver errors that users can cause (wrong password, server down, missing
database) become one-line :class:`~kgverify.errors.KgverifyError` subclasses. The one
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
    TransactionMemoryError,
)
from kgverify.graph.adhoc import file_access
from kgverify.graph.connection import resolve_connection
from kgverify.graph.queries import get_query

Row = dict[str, Any]

logger = logging.getLogger(__name__)

# The server's answers when a statement outgrows its transaction memory (the total of all
# transactions, or one transaction's own limit). Retrying the same statement, as the driver
# does with transient errors, only fails again: the caller splits the work or reports.
_MEMORY_CODES = frozenset(
    {
        "Neo.TransientError.General.MemoryPoolOutOfMemoryError",
        "Neo.TransientError.General.TransactionMemoryLimit",
    }
)


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


@contextmanager
def _translated(uri: str, user: str, database: str) -> Iterator[None]:
    """Turn the driver's expected failures into one-line kgverify errors."""
    try:
        yield
    except neo4j_errors.AuthError as exc:
        raise GraphAuthError(
            f"Neo4j at {uri} rejected the credentials for user {user!r} "
            "(check NEO4J_USER / NEO4J_PASSWORD)"
        ) from exc
    except (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired, OSError) as exc:
        raise GraphUnavailableError(
            f"cannot reach Neo4j at {uri}: {_first_line(exc)} "
            "(start the local server with `kgverify neo4j start`, or set NEO4J_URI)"
        ) from exc
    except neo4j_errors.DatabaseUnavailable as exc:
        raise GraphUnavailableError(f"database {database!r} at {uri} is not available") from exc
    except neo4j_errors.ClientError as exc:
        # After three wrong passwords the server refuses every login of that user, the right
        # one included, for about 5 s; the driver raises this as a plain ClientError.
        if exc.code == "Neo.ClientError.Security.AuthenticationRateLimit":
            raise GraphAuthError(
                f"Neo4j at {uri} is refusing logins for user {user!r} after repeated wrong "
                "passwords; check NEO4J_PASSWORD and retry in a few seconds"
            ) from exc
        if exc.code == "Neo.ClientError.Database.DatabaseNotFound":
            raise GraphUnavailableError(f"database {database!r} does not exist at {uri}") from exc
        raise


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
    """Errors no single row causes: security, a missing database, a malformed statement."""
    code = exc.code or ""
    return code.startswith(("Neo.ClientError.Security.", "Neo.ClientError.Database.")) or (
        code == "Neo.ClientError.Statement.SyntaxError"
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
    ) -> None:
        """Open a driver for ``uri``; nothing is sent until the first call (see :meth:`connect`).

        With ``strict_rows`` (setting ``strict_rows``; the test suite turns it on), every row
        of a named query is checked to hold values only (see :func:`plain_rows`).
        """
        self.uri = uri
        self.user = user
        self.database = database
        self.strict_rows = strict_rows
        self._driver = neo4j.GraphDatabase.driver(
            uri,
            auth=(user, password),
            connection_timeout=10.0,
            max_transaction_retry_time=15.0,
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
        graph = cls(uri, user, password, settings.neo4j_database, strict_rows=settings.strict_rows)
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
                session.run("RETURN 1").consume()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        with _translated(self.uri, self.user, self.database):
            yield

    def _run(self, access: str, name: str, params: dict[str, Any]) -> list[Row]:
        query = get_query(name)
        query.check_params(params)

        def work(tx: neo4j.ManagedTransaction) -> list[Row]:
            try:
                return plain_rows(name, tx.run(query.text, params), self.strict_rows)
            except neo4j_errors.TransientError as exc:
                if exc.code in _MEMORY_CODES:
                    raise _OutOfMemoryError(exc) from exc
                raise

        try:
            with self._errors(), self._driver.session(database=self.database) as session:
                runner: Callable[..., list[Row]] = (
                    session.execute_read if access == "read" else session.execute_write
                )
                return runner(work)
        except _OutOfMemoryError as exc:
            raise TransactionMemoryError(
                f"Neo4j ran out of transaction memory running {name}: "
                f"{_first_line(exc)} (give the server more heap: KGVERIFY_NEO4J_HEAP for the "
                "local server, server.memory.heap.max_size otherwise)"
            ) from exc.error

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
            with self._errors(), self._driver.session(database=self.database) as session:
                if write:
                    return session.execute_write(work)
                return session.execute_read(work)
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
        """Run a named query in an implicit transaction; needed for ``IN TRANSACTIONS``."""
        query = get_query(name)
        query.check_params(params)
        with self._errors(), self._driver.session(database=self.database) as session:
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
