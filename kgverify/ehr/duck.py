"""DuckDB plumbing shared by the adapters: a scratch database, CSV staging with rejects, and
streaming of sorted query results.

DuckDB does the heavy lifting that Python must not: it sorts tables of any size by patient
(spilling to disk) so the adapters see one patient at a time, and it parses CSV files in bulk.
Every CSV is staged once into a table of text columns with ``store_rejects``, so a malformed
line (wrong column count, bad quoting) becomes one reject with its line number instead of a
failed query. A staged row's line in the file follows from its insertion order (``rowid``)
and the rejected lines before it when every record is one line; a file with blank lines or
quoted line breaks (note text) is mapped record by record instead (``StagedCsv``).

SQL text is composed from the adapters' constant column lists, with every name that comes
from input (headers, paths) passed through ``quote`` or ``literal``; that is what the
``noqa: S608`` markers in the adapters vouch for.
"""

from __future__ import annotations

import bisect
import contextlib
import csv
import gzip
import itertools
import logging
from array import array
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from kgverify.ehr.common import Ledger, SourceError, SourceRow
from kgverify.rows import Tally

log = logging.getLogger(__name__)
T = TypeVar("T")

FETCH_SIZE = 500
"""Rows fetched per round trip: small enough that Python never holds much of a table."""

MAX_LINE_SIZE = 16_777_216
"""The longest CSV line (bytes) DuckDB reads; a longer one is a rejected row."""
CSV_OPTIONS = f"max_line_size = {MAX_LINE_SIZE}, buffer_size = {MAX_LINE_SIZE}"
"""The CSV reader's line and buffer size. DuckDB's buffer defaults to 16 lines' worth, so
with the 64 MiB lines allowed before it took a whole file of up to 1 GiB in one block: the
421 MiB condition_occurrence.csv of 100,000 synthetic patients failed under a 256 MB
``ehr_memory_limit``. A buffer per DuckDB thread, 16 MiB each, stages it in the same time
(8.1 s against 8.7 s with 64 MiB buffers) and within 64MB."""


def connect(database: str = ":memory:", *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with its progress bar off: DuckDB prints the bar to standard
    output for any query over 2 s, to a pipe too, where it landed inside a command's
    ``--json`` (ingesting 100,000 synthetic patients)."""
    con = duckdb.connect(database, read_only=read_only)
    con.execute("SET enable_progress_bar = false")
    return con


def scratch(directory: Path, memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB database file in ``directory`` for staged tables and views (spills to disk
    beyond ``memory_limit``, a DuckDB size such as ``"512MB"``; DuckDB's own default is 80%
    of the machine's memory)."""
    con = connect(str(directory / "scratch.duckdb"))
    con.execute(f"SET temp_directory = {literal(str(directory / 'spill'))}")
    # Staged CSV rows map to file lines through their rowid, i.e. their insertion order, and
    # sorted streams are scanned in the order they were written (``stream``).
    con.execute("SET preserve_insertion_order = true")
    if memory_limit:
        try:
            con.execute(f"SET memory_limit = {literal(memory_limit)}")
        except duckdb.Error as exc:
            con.close()
            raise SourceError(f"ehr_memory_limit {memory_limit!r} is not a size: {exc}") from exc
    return con


def bounded(trajectories: Generator[T, None, None]) -> Generator[T, None, None]:
    """A reader's stream, with DuckDB running out of memory anywhere in it (staging a
    table, a lookup, a sort) turned into one error naming the setting to raise."""
    try:
        yield from trajectories
    except duckdb.OutOfMemoryException as exc:
        raise SourceError(
            "the EHR reader's DuckDB ran out of memory: raise ehr_memory_limit "
            f"({str(exc).splitlines()[0]})"
        ) from exc


def quote(identifier: str) -> str:
    """A SQL identifier, quoted (names here come from source headers)."""
    return '"' + identifier.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A SQL string literal (DuckDB table functions take file paths only as literals)."""
    return "'" + text.replace("'", "''") + "'"


def columns_of(con: duckdb.DuckDBPyConnection, relation: str) -> set[str]:
    """Lower-cased column names of the table or view named ``relation``."""
    return describe(con, quote(relation))


def describe(con: duckdb.DuckDBPyConnection, relation_sql: str) -> set[str]:
    """Lower-cased column names of a relation given as SQL (a quoted or qualified name, or a
    ``SELECT``)."""
    rows = con.execute(f"DESCRIBE {relation_sql}").fetchall()
    return {str(r[0]).lower() for r in rows}


def stream(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    make: Callable[[dict[str, Any]], SourceRow],
    fetch_size: int = FETCH_SIZE,
) -> Iterator[SourceRow]:
    """The rows of ``sql`` (a sorted query) as ``SourceRow``s, fetched ``fetch_size`` at a
    time on a cursor of its own, so several sorted streams can be merged side by side.

    The query is first written to a table of the scratch database, then scanned: an open
    sorted cursor pins its sort in memory, so seven of them side by side (one per table)
    grew with the source and could not spill; one sort at a time spills under the memory
    limit, and a scan holds a few blocks (issue 18). Runs when the first row is asked for.
    """
    table = quote(f"_sorted_{next(_SORTED)}")
    cursor = con.cursor()
    try:
        con.execute(f"CREATE TABLE {table} AS {sql}")
        cursor.execute(f"SELECT * FROM {table}")  # noqa: S608
        names = [d[0] for d in cursor.description or ()]
        batch = cursor.fetchmany(fetch_size)
        while batch:
            for values in batch:
                yield make(dict(zip(names, values, strict=True)))
            batch = cursor.fetchmany(fetch_size)
    finally:
        cursor.close()
        with contextlib.suppress(duckdb.Error):  # the connection may be closed already
            con.execute(f"DROP TABLE IF EXISTS {table}")  # its disk, early


_SORTED = itertools.count()


def read_header(path: Path) -> tuple[list[str], str]:
    """The lower-cased column names of a CSV file (plain or gzip) and its delimiter."""
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", newline="") as handle:
            first = handle.readline()
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"{path.name}: cannot read the header: {exc}") from exc
    delimiter = "\t" if "\t" in first else ","
    names = [n.strip().lower() for n in next(csv.reader([first], delimiter=delimiter), [])]
    if not names or not all(names) or len(set(names)) != len(names):
        raise SourceError(f"{path.name}: the first line is not a header: {first.strip()!r}")
    return names, delimiter


@dataclass(frozen=True)
class StagedCsv:
    """A CSV file staged as table ``name``; maps a staged row to its line in the file.

    When every record of the file is one line, the line follows from the rejected lines
    before the row (``_keys``); otherwise ``_lines`` holds each staged row's first line.
    """

    name: str
    path: Path
    columns: tuple[str, ...]
    _keys: tuple[int, ...]  # for each rejected data line j (sorted): its index minus j
    _lines: array[int] | None = None  # staged row -> its first line, for irregular files

    def line_of(self, rowid: int) -> int:
        """The 1-based file line (the header is line 1) where the staged row ``rowid``
        starts."""
        if self._lines is not None:
            return self._lines[rowid]
        good = rowid + 1
        return good + bisect.bisect_right(self._keys, good) + 1


def physical_lines(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """The lines of a CSV file (plain or gzip), blank ones included, read by DuckDB as one
    unquoted column (a line it cannot read is left out, which makes the count differ from
    the records staged and so only sends the file to the exact mapping)."""
    found = con.execute(
        f"SELECT count(*) FROM read_csv({literal(str(path))}, header = false, "  # noqa: S608
        f"auto_detect = false, columns = {{'line': 'VARCHAR'}}, "
        f"delim = {literal(chr(1) + chr(2) + chr(3) + chr(4))}, quote = '', escape = '', "
        f"strict_mode = false, null_padding = true, ignore_errors = true, {CSV_OPTIONS})"
    ).fetchone()
    return int(found[0]) if found else 0


def record_starts(path: Path) -> Iterator[tuple[int, bool]]:
    """(first line, blank) of every record of a CSV file (quote ``"``, doubled to escape),
    numbered as DuckDB numbers the lines of its rejects: a record ends at a line end
    outside quotes, and a blank line counts as a record of its own."""
    opener = gzip.open if path.name.endswith(".gz") else open
    inside = False
    with opener(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not inside:
                yield number, not raw.rstrip(b"\r\n")
            if raw.count(b'"') % 2:
                inside = not inside


def _exact_lines(
    path: Path, rejected: list[int], staged: int
) -> tuple[array[int], dict[int, int]] | None:
    """For a file whose records are not one line each: the first line of every staged row,
    and DuckDB's line of every rejected record -> its first line in the file; None when the
    records found do not add up to what DuckDB staged and rejected."""
    bad = set(rejected)
    lines: array[int] = array("q")
    moved: dict[int, int] = {}
    for record, (start, blank) in enumerate(record_starts(path), start=1):
        if record in bad:
            moved[record] = start
        elif record > 1 and not blank:
            lines.append(start)
    if len(lines) != staged or len(moved) != len(bad):
        return None
    return lines, moved


def stage_csv(
    con: duckdb.DuckDBPyConnection,
    name: str,
    path: Path,
    ledger: Ledger,
    *,
    required: frozenset[str] = frozenset(),
    withhold_text: bool = False,
) -> StagedCsv:
    """Load ``path`` into table ``name`` (all columns text) and reject its malformed lines.

    The rejects are counted as read and rejected in ``ledger.tally(name)`` right away; the
    staged rows are counted when they are streamed. ``withhold_text`` keeps the raw line of
    a rejected row out of the rejects file (for tables with note text).
    """
    names, delimiter = read_header(path)
    missing = sorted(required - set(names))
    if missing:
        raise SourceError(f"{path.name}: missing columns {', '.join(missing)}")
    columns = "{" + ", ".join(f"{literal(n)}: 'VARCHAR'" for n in names) + "}"
    rejects = f"_rejects_{name}"
    con.execute(
        f"CREATE OR REPLACE TABLE {quote(name)} AS SELECT * FROM read_csv({literal(str(path))}, "  # noqa: S608
        f"header = true, auto_detect = false, columns = {columns}, delim = {literal(delimiter)}, "
        f"quote = '\"', escape = '\"', store_rejects = true, "
        f"rejects_table = {literal(rejects)}, rejects_scan = {literal(rejects + '_scan')}, "
        f"{CSV_OPTIONS})"
    )
    bad = con.execute(
        f"SELECT line, any_value(error_message), any_value(csv_line) FROM {quote(rejects)} "  # noqa: S608
        "GROUP BY line ORDER BY line"
    ).fetchall()
    keys = tuple(int(line) - 1 - j for j, (line, _, _) in enumerate(bad))
    staged = StagedCsv(name, path, tuple(names), keys)
    moved: dict[int, int] = {}
    rows = count(con, name)
    if physical_lines(con, path) != 1 + rows + len(bad):  # blank lines or quoted line breaks
        exact = _exact_lines(path, [int(b[0]) for b in bad], rows)
        if exact is None:
            log.warning("%s: line numbers of its rows may be off (records not mapped)", path.name)
        else:
            staged = StagedCsv(name, path, tuple(names), keys, exact[0])
            moved = exact[1]
    tally = ledger.tally(name)
    for line, message, text in bad:
        tally.read += 1
        raw = "(text withheld)" if withhold_text else str(text or "")
        tally.reject(moved.get(int(line), int(line)), f"malformed CSV line: {message}", raw)
    return staged


def stage_lookup(
    con: duckdb.DuckDBPyConnection,
    name: str,
    source: str,
    keys: dict[str, str],
    values: dict[str, str],
    tally: Tally,
) -> None:
    """Table ``name`` with one row per key of the lookup table ``source`` (a code list).

    ``keys`` and ``values`` map output columns to SQL expressions over ``source``. Rows
    without a key, and repeats of a key, are counted as skipped: joining a lookup with
    repeated keys would multiply the event rows joined to it.
    """
    key_names = ", ".join(keys)
    selected = ", ".join(f"{expr} AS {col}" for col, expr in {**keys, **values}.items())
    present = " AND ".join(f"{expr} IS NOT NULL" for expr in keys.values())
    con.execute(
        f"CREATE TABLE {quote(name)} AS SELECT DISTINCT ON ({key_names}) {selected} "  # noqa: S608
        f"FROM {quote(source)} WHERE {present} ORDER BY ALL"
    )
    read, kept = count(con, source), count(con, name)
    tally.read += read
    tally.loaded += kept
    if read > kept:
        tally.skip("missing or repeated key", read - kept)


def count(con: duckdb.DuckDBPyConnection, relation: str) -> int:
    """Rows in a table or view."""
    found = con.execute(f"SELECT count(*) FROM {quote(relation)}").fetchone()  # noqa: S608
    return int(found[0]) if found else 0


def find_file(folder: Path, table: str, suffixes: tuple[str, ...]) -> Path | None:
    """``folder/<table><suffix>`` for the first suffix present, matching names in any case."""
    by_name = {p.name.lower(): p for p in folder.iterdir()} if folder.is_dir() else {}
    for suffix in suffixes:
        found = by_name.get(f"{table}{suffix}".lower())
        if found is not None:
            return found
    return None
