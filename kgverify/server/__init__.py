"""Starting and stopping the local Neo4j Community server (a JVM built from docker/neo4j-local)."""

from kgverify.server.local import LocalServer, ServerStatus

__all__ = ["LocalServer", "ServerStatus"]
