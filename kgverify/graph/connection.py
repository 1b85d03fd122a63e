"""Where the graph is: ``NEO4J_URI`` and ``NEO4J_PASSWORD`` when they are set, otherwise the
local server's address and password, read from the files it keeps under
``Settings.local_home``.

:meth:`Graph.connect <kgverify.graph.driver.Graph.connect>` resolves its connection here,
and :class:`~kgverify.server.local.LocalServer`, which writes those files, reads them
through the same class, so the driver needs nothing of the server that starts Neo4j.
"""

from __future__ import annotations

import json

from kgverify.config import Settings
from kgverify.errors import ConfigError, GraphUnavailableError
from kgverify.secrets import secret_file


class LocalServerFiles:
    """The local server's password file and state file (its pid and Bolt URI)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.home = settings.local_home
        self.password_file = self.home / "password"
        self.state_file = self.home / "server.json"

    def password(self, *, create: bool = False) -> str:
        """The server's password; generated (owner-only file) on first use when ``create``."""
        value = secret_file(self.password_file, create=create)
        if value is None:
            raise GraphUnavailableError(
                f"no local Neo4j has been started under {self.home} "
                "(run `kgverify neo4j start`, or set NEO4J_URI and NEO4J_PASSWORD)"
            )
        return value

    def _state(self) -> dict[str, object] | None:
        try:
            state: dict[str, object] = json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return None
        return state

    @property
    def uri(self) -> str:
        """The recorded server's Bolt URI, else the one ``bolt_port`` gives. A port set
        (``KGVERIFY_BOLT_PORT``, the config file) that is not the recorded server's is a
        ConfigError: connecting to the recorded one would silently ignore it."""
        state = self._state()
        if state and "uri" in state:
            recorded = str(state["uri"])
            self.check_port("bolt_port", "KGVERIFY_BOLT_PORT", recorded.rpartition(":")[2])
            return recorded
        return f"bolt://127.0.0.1:{self.settings.bolt_port}"

    def check_port(self, field: str, variable: str, recorded: str | None) -> None:
        """ConfigError when the port setting ``field`` was set and is not ``recorded``, the
        port of the server recorded under this home."""
        if field not in self.settings.model_fields_set or recorded is None:
            return
        wanted = getattr(self.settings, field)
        if recorded != str(wanted):
            raise ConfigError(
                f"{variable} is {wanted}, but the local Neo4j recorded under {self.home} "
                f"uses port {recorded}: unset {variable}, or stop that server "
                f"(`kgverify neo4j stop`) and start it on {wanted}, or set KGVERIFY_NEO4J_HOME "
                "or KGVERIFY_CACHE_DIR to a folder of its own"
            )


def resolve_connection(settings: Settings) -> tuple[str, str, str]:
    """URI, user and password: explicit settings, or the local server's."""
    if settings.neo4j_uri:
        if settings.neo4j_password is None:
            raise ConfigError("NEO4J_URI is set but NEO4J_PASSWORD is not")
        return settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password.get_secret_value()
    server = LocalServerFiles(settings)
    password = (
        settings.neo4j_password.get_secret_value()
        if settings.neo4j_password is not None
        else server.password()
    )
    return server.uri, settings.neo4j_user, password
