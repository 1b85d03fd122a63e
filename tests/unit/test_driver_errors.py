"""Driver failures become one honest line (issue 35): out of memory names the heap and the
transaction-memory settings, a timeout names its setting, a server that stopped answering
mid-run is not one that "cannot be reached", and none is ever a traceback.

The exceptions are the driver's own classes, built the way the driver builds them from a
server's FAILURE message (``Neo4jError._hydrate_gql`` / ``_hydrate_neo4j``, which pick the
subclass from the code) or from a socket failure (a message string).
"""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import exceptions as neo4j_errors

from kgverify.errors import (
    GraphAuthError,
    GraphUnavailableError,
    KgverifyError,
    TransactionError,
    TransactionMemoryError,
    TransactionTimeoutError,
)
from kgverify.graph import driver as driver_module
from kgverify.graph.driver import Graph, translate_error

URI = "bolt://127.0.0.1:7687"

HEAP_OOM = (
    "Neo.TransientError.General.OutOfMemoryError",
    "There is not enough memory to perform the current task. Please try increasing "
    "'server.memory.heap.max_size' in the neo4j configuration (normally in "
    "'conf/neo4j.conf' or, if you are using Neo4j Desktop, found through the user "
    "interface) or if you are running an embedded installation increase the heap by using "
    "'-Xmx' command line flag, and then restart the database.",
)
POOL_OOM = (
    "Neo.TransientError.General.MemoryPoolOutOfMemoryError",
    "The allocation of an extra 2.0 MiB would use more than the limit 33.6 MiB. Currently "
    "using 32.0 MiB. dbms.memory.transaction.total.max threshold reached",
)
TX_LIMIT = (
    "Neo.TransientError.General.TransactionMemoryLimit",
    "The allocation of an extra 2.0 MiB would use more than the limit 8.0 MiB. Currently "
    "using 7.0 MiB. db.memory.transaction.max threshold reached",
)
TIMED_OUT = (
    "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
    "The transaction has not completed within the timeout specified at its start by the "
    "client. You may want to retry with a longer timeout.",
)


def server_error(code: str, message: str, *, gql: bool = True) -> neo4j_errors.Neo4jError:
    """A server FAILURE as the driver hydrates it (Bolt 5.7+ with GQL fields, or older)."""
    if gql:
        return neo4j_errors.Neo4jError._hydrate_gql(
            neo4j_code=code,
            message=message,
            gql_status="50N42",
            description="error: general processing exception - unexpected error",
            diagnostic_record={"OPERATION": "", "OPERATION_CODE": "0", "CURRENT_SCHEMA": "/"},
        )
    return neo4j_errors.Neo4jError._hydrate_neo4j(code=code, message=message)


def translated(exc: BaseException, **kwargs: Any) -> KgverifyError | None:
    options: dict[str, Any] = {"uri": URI, "user": "neo4j", "database": "neo4j"}
    options.update(kwargs)
    return translate_error(exc, **options)


def one_line(error: KgverifyError | None) -> str:
    assert error is not None
    text = str(error)
    assert "\n" not in text and "Traceback" not in text
    assert "gql_status" not in text  # the server's message, not the driver's dump of it
    return text


@pytest.mark.parametrize("failure", [HEAP_OOM, POOL_OOM, TX_LIMIT])
@pytest.mark.parametrize("gql", [True, False])
def test_out_of_memory_names_the_heap_and_the_transaction_memory(
    failure: tuple[str, str], gql: bool
) -> None:
    exc = server_error(*failure, gql=gql)
    assert isinstance(exc, neo4j_errors.TransientError)  # what the driver would retry
    error = translated(exc, what="running verify/enrich", reached=True)
    assert isinstance(error, TransactionMemoryError)
    text = one_line(error)
    assert text.startswith("Neo4j ran out of memory running verify/enrich: ")
    assert "KGVERIFY_NEO4J_HEAP" in text and "KGVERIFY_NEO4J_TRANSACTION_MEMORY" in text
    assert "cannot reach" not in text


def test_a_heap_out_of_memory_without_its_code_is_still_out_of_memory() -> None:
    exc = server_error(
        "Neo.DatabaseError.General.UnknownError", "java.lang.OutOfMemoryError: Java heap space"
    )
    assert isinstance(exc, neo4j_errors.DatabaseError)
    assert isinstance(translated(exc), TransactionMemoryError)


def test_a_class_the_server_cannot_initialize_is_never_a_bad_row() -> None:
    """Seen on a 48 MB heap (benchmarks/faults.py, probe 8): after the heap ran out, every
    batch failed with a class that could not initialize, and the row-safe writer rejected
    2,305 rows for it. The same message comes of a missing library: the server's fault, so
    the writer raises instead of rejecting, whatever the cause."""
    broken = server_error(
        "Neo.DatabaseError.General.UnknownError",
        "Could not initialize class org.eclipse.collections.api.factory.primitive.LongLists",
    )
    assert driver_module._not_row_caused(broken)
    said = translated(broken)
    assert isinstance(said, TransactionError) and "KGVERIFY_NEO4J_HEAP" in str(said)
    row = server_error("Neo.DatabaseError.General.UnknownError", "Property value too large")
    assert not driver_module._not_row_caused(row)


@pytest.mark.parametrize(
    ("code", "message"),
    [
        TIMED_OUT,
        (
            "Neo.ClientError.Transaction.TransactionTimedOut",
            "The transaction has not completed within the specified timeout "
            "(db.transaction.timeout). You may want to retry with a longer timeout.",
        ),
        # Neo4j 4.4's code, which the driver rewrites to the ClientError one.
        (
            "Neo.TransientError.Transaction.Terminated",
            "The transaction has been terminated. Retry your operation in a new transaction, "
            "and you should see a successful result. The transaction has not completed within "
            "the timeout specified at its start by the client.",
        ),
    ],
)
def test_a_timeout_names_its_setting(code: str, message: str) -> None:
    exc = server_error(code, message)
    error = translated(exc, what="running verify/rule_treats", reached=True, tx_timeout_s=1.0)
    assert isinstance(error, TransactionTimeoutError)
    text = one_line(error)
    assert "running verify/rule_treats" in text and "longer than 1 s" in text
    assert "KGVERIFY_NEO4J_TX_TIMEOUT_S" in text


def test_a_transaction_terminated_by_someone_is_not_a_timeout() -> None:
    exc = server_error(
        "Neo.ClientError.Transaction.Terminated",
        "The transaction has been terminated. Retry your operation in a new transaction, and "
        "you should see a successful result. Explicitly terminated by the user.",
    )
    error = translated(exc, reached=True)
    assert type(error) is TransactionError
    assert "terminated" in one_line(error)


def test_a_transient_error_left_after_the_retries_is_one_line() -> None:
    exc = server_error(
        "Neo.TransientError.Transaction.DeadlockDetected",
        "ForsetiClient[transactionId=7] can't acquire ExclusiveLock{...}",
    )
    error = translated(exc, what="running load/upsert_concepts", reached=True)
    assert type(error) is TransactionError
    text = one_line(error)
    assert "Neo.TransientError.Transaction.DeadlockDetected" in text
    assert "running load/upsert_concepts" in text


REFUSED = neo4j_errors.ServiceUnavailable(
    "Couldn't connect to 127.0.0.1:7687 (resolved to ()):\nFailed to establish connection to "
    "ResolvedIPv4Address(('127.0.0.1', 7687)) (reason [Errno 111] Connection refused)"
)
DEFUNCT = neo4j_errors.SessionExpired(
    "Failed to read from defunct connection IPv4Address(('127.0.0.1', 7687)) "
    "(ResolvedIPv4Address(('127.0.0.1', 7687)))"
)


def test_cannot_reach_is_said_only_of_a_server_that_never_answered() -> None:
    text = one_line(translated(REFUSED))
    assert text.startswith(f"cannot reach Neo4j at {URI}: Couldn't connect")
    assert "kgverify neo4j start" in text


@pytest.mark.parametrize("exc", [REFUSED, DEFUNCT, ConnectionResetError(104, "reset")])
def test_a_server_that_stopped_answering_mid_run_is_not_unreachable(exc: Exception) -> None:
    error = translated(exc, what="running derive/patient_records", reached=True)
    assert isinstance(error, GraphUnavailableError)
    text = one_line(error)
    assert "cannot reach" not in text and "kgverify neo4j start" not in text
    assert text.startswith(f"Neo4j at {URI} stopped answering running derive/patient_records")
    assert "KGVERIFY_NEO4J_HEAP" in text


def test_a_memory_error_on_a_reached_server_keeps_its_cause() -> None:
    """Out of memory during a transaction is never reported as a connection failure."""
    error = translated(server_error(*HEAP_OOM), reached=False)
    assert isinstance(error, TransactionMemoryError)


def test_no_free_connection_is_one_line() -> None:
    exc = neo4j_errors.ConnectionAcquisitionTimeoutError(
        "failed to obtain a connection from the pool within 60.0s"
    )
    error = translated(exc, reached=True)
    assert isinstance(error, GraphUnavailableError)
    assert "no connection to Neo4j" in one_line(error)


def test_credentials_and_statements_keep_their_translation() -> None:
    auth = server_error("Neo.ClientError.Security.Unauthorized", "The client is unauthorized")
    assert isinstance(auth, neo4j_errors.AuthError)
    assert isinstance(translated(auth), GraphAuthError)
    syntax = server_error("Neo.ClientError.Statement.SyntaxError", "Invalid input 'RETRUN'")
    assert translated(syntax, reached=True) is None  # the statement's own: the caller's


# -- through a Graph ----------------------------------------------------------------------------
# (No stand-in driver: the timeout on a real server, through a Graph and the CLI, is
# tests/e2e/test_errors.py's.)


def test_a_memory_error_leaves_the_retry_loop_at_once() -> None:
    """Inside the transaction function it is not a Neo4jError the driver would retry."""
    graph = Graph(URI, "neo4j", "x")
    try:

        def work(tx: Any) -> None:
            raise server_error(*HEAP_OOM)

        with pytest.raises(driver_module._OutOfMemoryError) as caught:
            graph._bounded(work)(None)
        assert not isinstance(caught.value, neo4j_errors.Neo4jError | neo4j_errors.DriverError)
    finally:
        graph.close()
