"""Owner-only outputs: every file kgverify writes is 0600 and every folder it makes 0700,
whatever the umask, since most of them carry patient data (trajectories, relations, verdicts,
items, fact sheets, dialogue verdicts, review pages, rejected rows). Folders that existed
before are left as they are: they are the user's.

A path that cannot be written (under a regular file, in a read-only folder) raises one
:class:`~kgverify.errors.OutputError` line naming it, not an ``OSError`` traceback.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
from pathlib import Path
from typing import IO

from kgverify.errors import OutputError

FILE_MODE = 0o600
DIR_MODE = 0o700


def _refused(path: Path, exc: OSError) -> OutputError:
    where = exc.filename if isinstance(exc.filename, str) else str(path)
    return OutputError(f"cannot write {where}: {exc.strerror or exc}")


# What a write answers when the storage, not the path, is at fault: a full disk or quota,
# a file system gone read-only, a failing device. The error carries no file name then.
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO})
# SQLite's words for the same (the item store under a derivation's output folder).
_SQLITE_STORAGE = ("disk is full", "disk i/o error", "readonly database", "unable to open")


def storage_failure(exc: BaseException) -> str | None:
    """The one-line cause when ``exc`` is the storage failing under a write (a full disk,
    a read-only file system), else None."""
    if isinstance(exc, OSError) and exc.filename is None and exc.errno in STORAGE_ERRNOS:
        cause = exc.strerror or os.strerror(exc.errno or 0)
    elif isinstance(exc, sqlite3.OperationalError) and any(
        words in str(exc).lower() for words in _SQLITE_STORAGE
    ):
        cause = str(exc)
    else:
        return None
    return (
        f"cannot write the output: {cause}; outputs are put in place only when complete, "
        "so earlier ones stay whole; free space or write elsewhere (-o), then rerun the "
        "same command"
    )


def make_dirs(path: Path, target: Path | None = None) -> Path:
    """``path`` as a folder, each missing level made 0700 (existing ones untouched);
    ``target``, what is to be written in it, is what an error names (default ``path``)."""
    named = target or path
    missing: list[Path] = []
    current = path
    while not current.is_dir():
        if current.exists():
            raise OutputError(f"cannot write {named}: {current} is not a folder")
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    try:
        for folder in reversed(missing):
            try:
                os.mkdir(folder, DIR_MODE)
            except FileExistsError:
                if folder.is_dir():
                    continue  # made meanwhile by someone else: theirs, left alone
                raise
            os.chmod(folder, DIR_MODE)  # mkdir's mode is cut by the umask
    except OSError as exc:
        raise _refused(named, exc) from None
    return path


def make_dir(path: Path) -> Path:
    """A new, empty 0700 folder (missing parents made 0700 too); an existing one is an error."""
    make_dirs(path.parent, path)
    try:
        os.mkdir(path, DIR_MODE)
        os.chmod(path, DIR_MODE)
    except OSError as exc:
        raise _refused(path, exc) from None
    return path


def _open_fd(path: Path) -> int:
    make_dirs(path.parent, path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    except OSError as exc:
        raise _refused(path, exc) from None
    if stat.S_ISREG(os.fstat(fd).st_mode):
        os.fchmod(fd, FILE_MODE)  # a file left by an earlier run keeps its mode otherwise
    return fd


def open_private(path: Path, newline: str | None = None) -> IO[str]:
    """Open ``path`` for writing UTF-8 text, 0600, its missing folders made 0700."""
    return os.fdopen(_open_fd(path), "w", encoding="utf-8", newline=newline)


def private_file(path: Path) -> Path:
    """Create (or empty) ``path`` as a 0600 file, for a writer that opens it by name
    (gzip, networkx): the mode is set before anything is in it."""
    os.close(_open_fd(path))
    return path


def write_private(path: Path, text: str) -> None:
    """``path.write_text(text)``, owner-only."""
    with open_private(path) as out:
        out.write(text)


# A cell a spreadsheet would run as a formula (OWASP "CSV injection"): =, +, -, @, tab, CR.
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(text: str) -> str:
    """A CSV cell a spreadsheet shows as text, never evaluates: a leading ``'`` before a
    formula character (every CSV kgverify writes: the review sheet, ``cypher --csv``,
    ``audit --csv``).

    >>> safe_cell('=HYPERLINK("http://x","y")'), safe_cell("-1"), safe_cell("a-b")
    ('\\'=HYPERLINK("http://x","y")', "'-1", 'a-b')
    """
    return "'" + text if text.startswith(_FORMULA) else text


def plain_cell(text: str) -> str:
    """:func:`safe_cell` undone, for a sheet kgverify reads back: ``plain_cell(safe_cell(x))
    == x`` for every ``x``.

    >>> plain_cell("'=1+1"), plain_cell("'quoted"), plain_cell("=1+1")
    ('=1+1', "'quoted", '=1+1')
    """
    return text[1:] if text.startswith("'") and text[1:].startswith(_FORMULA) else text
