"""Secrets kgverify generates for itself (the local server's password, the pseudonym salt):
made on first use, kept in owner-only files, never printed."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def secret_file(path: Path, *, create: bool) -> str | None:
    """The secret stored at ``path``; with ``create``, a new random one when there is none."""
    if path.is_file():
        return path.read_text().strip()
    if not create:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    value = secrets.token_urlsafe(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(value + "\n")
    return value
