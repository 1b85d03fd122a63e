"""The local Neo4j server (``kgverify neo4j``): started, stopped, looked at. A server of your
own (``NEO4J_URI``) is never touched."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kgverify.config import Settings

if TYPE_CHECKING:
    from kgverify.server.fhir import FhirServerStatus
    from kgverify.server.local import ServerStatus


def start_server(
    settings: Settings | None = None, on_progress: Callable[[str], None] | None = None
) -> ServerStatus:
    """Build (the first time), start and wait until Bolt answers; a no-op if it runs.

    ``on_progress`` gets one line per recovery step of a database that was not stopped
    cleanly (default: logged).
    """
    from kgverify.server import LocalServer

    return LocalServer(settings or Settings()).start(on_progress=on_progress)


def stop_server(settings: Settings | None = None) -> bool:
    """Shut the local server down cleanly; False when none was running."""
    from kgverify.server import LocalServer

    return LocalServer(settings or Settings()).stop()


def server_status(settings: Settings | None = None) -> ServerStatus:
    """Whether the local server runs (or is starting), where, and with which data folder."""
    from kgverify.server import LocalServer

    return LocalServer(settings or Settings()).status()


def start_fhir_server(settings: Settings | None = None) -> FhirServerStatus:
    """Build (the first time), start and wait until the local FHIR server's /fhir/metadata
    answers (docs/fhir.md); a no-op if it runs."""
    from kgverify.server.fhir import LocalFhirServer

    return LocalFhirServer(settings or Settings()).start()


def stop_fhir_server(settings: Settings | None = None) -> bool:
    """Shut the local FHIR server down cleanly; False when none was running."""
    from kgverify.server.fhir import LocalFhirServer

    return LocalFhirServer(settings or Settings()).stop()


def fhir_server_status(settings: Settings | None = None) -> FhirServerStatus:
    """Whether the local FHIR server runs (or is starting), where, and its data folder."""
    from kgverify.server.fhir import LocalFhirServer

    return LocalFhirServer(settings or Settings()).status()
