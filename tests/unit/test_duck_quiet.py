"""DuckDB prints a progress bar to standard output, a pipe included, for any query that
runs longer than ``progress_bar_time`` (2 s): the EHR readers' connections turn it off, or
it lands inside ``--json`` output (it did, ingesting 100,000 synthetic patients)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BAR = "SELECT current_setting('enable_progress_bar')"


def _child(code: str) -> str:
    # A child process with its standard output a pipe, as a `kgverify ... --json` whose
    # output is read by another program: the bar goes to file descriptor 1.
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    return done.stdout.decode()


def test_duckdb_prints_its_bar_to_a_pipe() -> None:
    out = _child(
        "import duckdb\n"
        "con = duckdb.connect()\n"
        "con.execute('SET progress_bar_time = 0')\n"  # every query shows it, not only slow ones
        "con.execute('SELECT count(*) FROM range(20000000) a WHERE hash(a.range) % 5 = 1')\n"
    )
    assert "%" in out


def test_the_readers_connections_have_no_bar(tmp_path: Path) -> None:
    out = _child(
        "import duckdb, json\n"
        "from pathlib import Path\n"
        "from kgverify.ehr import duck\n"
        f"cons = [duckdb.connect(), duck.connect(), duck.scratch(Path({str(tmp_path)!r}))]\n"
        f"print(json.dumps([c.execute({BAR!r}).fetchall()[0][0] for c in cons]))\n"
    )
    # DuckDB's default in such a process, then the reader's connection and scratch database.
    assert json.loads(out) == [True, False, False]
