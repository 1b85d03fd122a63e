"""One root exception; every expected failure is a subclass with a message fit for one line."""

from __future__ import annotations


class KgverifyError(Exception):
    """Root of all kgverify errors. The CLI prints ``error: <message>`` and exits non-zero."""

    exit_code = 2


class ConfigError(KgverifyError):
    """Settings or arguments that cannot work."""


class GraphUnavailableError(KgverifyError):
    """Neo4j cannot be reached, or the database is not available."""


class GraphAuthError(KgverifyError):
    """Neo4j rejected the credentials."""


class QueryError(KgverifyError):
    """A named query is missing, malformed, or was called with the wrong parameters."""


class TransactionMemoryError(KgverifyError):
    """A statement needed more memory than the Neo4j server allows (its transaction memory,
    or its heap)."""


class TransactionError(KgverifyError):
    """Neo4j ended a running transaction for a reason of its own (terminated, or still failing
    transiently after the driver's retries); the server was reached."""


class TransactionTimeoutError(TransactionError):
    """A transaction ran longer than ``neo4j_tx_timeout_s`` and the server ended it."""


class OutputError(KgverifyError):
    """An output path that cannot be written (under a regular file, a read-only folder)."""


class ServerError(KgverifyError):
    """The local Neo4j server could not be built, started or stopped."""


class EngineError(KgverifyError):
    """An engine's workers failed (a Ray actor died, or raised what kgverify does not know)."""


class LoadError(KgverifyError):
    """A vocabulary load could not run (missing files, wrong layout, older release)."""


class ReleaseGuardError(KgverifyError):
    """A release looks damaged next to the current one (empty or shrunken files, or it would
    retire, inactivate or rename more than the allowed share); ``report`` is set when the
    release was held: before any write (status "held", no files, nothing written), or after
    its rows were loaded (recorded, not current, nothing retired)."""

    exit_code = 4

    def __init__(self, message: str, report: object | None = None) -> None:
        super().__init__(message)
        self.report = report


class RejectThresholdError(KgverifyError):
    """A run finished but rejected more rows than allowed: more than ``max_reject_share`` of
    a load's, any of a review sheet's."""

    exit_code = 3

    def __init__(self, report: object, message: str) -> None:
        super().__init__(message)
        self.report = report
