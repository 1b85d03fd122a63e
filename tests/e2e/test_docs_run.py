"""Docs that run: every fenced code block of README.md and docs/*.md is executed against the
sample graph, or is marked as not runnable with a reason.

What runs, per page and in the page's order:

* ```` ```python ````: the page's blocks in one namespace, one after another (like a doctest
  session);
* ```` ```bash ````, ```` ```sh ````, ```` ```shell ````, ```` ```console ```` (its ``$ `` lines):
  a ``bash -eo pipefail`` script, with the installed CLI (``.venv/bin``) first on ``PATH``;
  every command must succeed and nothing may print a traceback;
* ```` ```cypher ````: each statement (``;`` at the end of a line ends one) through
  ``kgverify.api.cypher`` in a read transaction, with its ``$parameters`` filled in.

Everything runs in one temporary working folder per test module, the reader's checkout: the
repository's ``.venv``, ``kgverify`` (the shipped sample), ``tests`` and the other source
folders are linked into it, so repository-relative paths work, and what the pages write
(``qa/``, ``verdicts.jsonl``, ``rel/``) stays there for the next page. It runs against the
test session's Neo4j (``tests/conftest.py``; no second server), whose module database holds
what ``make sample`` leaves (``sample_pipeline``); the folder also holds the sample's
``relations.jsonl`` and ``trajectories.jsonl``, which the pages name as their inputs. Pages
run in ``PAGES`` order; ``docs/audit.md`` loads newer releases and re-verifies, so it comes
last.

A block that must not run carries an HTML comment on the line before its fence (blank lines
between are allowed), with the reason::

    <!-- not-run: needs a GPU and a vLLM server -->
    ```bash
    vllm serve ...
    ```

The test fails on a marker without a reason, on a marker before a block that would not run
anyway, on an untagged block that looks like a command (tag it ``text`` when it shows
output), and on any runnable block that fails. Blocks in other languages (``text``,
``json``, ``mermaid``, untagged diagrams) are shown, never run.

What a reader does by hand is done here: ``ITEM``, ``<item>`` and ``<an item id from 2>`` in
shell blocks, and ``$id`` in Cypher, become an item that rests on the amoxicillin MAY_TREAT
acute bacterial sinusitis edge (the README's example); before a block imports a review
sheet, every unfilled ``*/sheet.csv`` of the folder is filled with accepts (a clinician's
work; accepts flag nothing, so later pages see the same items). Cypher statements must
return rows on the sample graph.
"""

from __future__ import annotations

import csv
import logging
import os
import re
import shutil
import signal
import subprocess
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kgverify.api import audit, cypher, sample_path, sample_pipeline
from kgverify.config import Settings
from kgverify.graph import Graph

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".venv" / "bin"
DOCS = ROOT / "docs"
LAST = ("audit.md",)  # pages that change the graph for every page after them
PAGES = [
    ROOT / "README.md",
    *sorted(DOCS.glob("*.md"), key=lambda p: (p.name in LAST, p.name)),
]
RUNNERS = {
    "python": "python",
    "bash": "shell",
    "sh": "shell",
    "shell": "shell",
    "console": "shell",
    "cypher": "cypher",
}
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[^\s`]*)")
MARKER = re.compile(r"^\s*<!--\s*not-run\b:?(?P<reason>.*?)-->\s*$")
COMMAND_LIKE = re.compile(r"^\s*(\$ |kgverify |\.venv/|python3? |pip |make |MATCH |CREATE )")
EDGE = ("UMLS:C0002645", "MAY_TREAT", "UMLS:C9900024")  # amoxicillin may treat sinusitis
SHELL_PLACEHOLDERS = (
    re.compile(r"<an item id from 2>"),
    re.compile(r"<item>"),
    re.compile(r"\bITEM\b"),
)
BLOCK_TIMEOUT_S = 600
CHECKOUT = (".venv", "kgverify", "loaders", "queries", "tests", "benchmarks", "notebooks", "docker")
log = logging.getLogger(__name__)

pytestmark = pytest.mark.neo4j


@dataclass(frozen=True)
class Block:
    page: str  # relative to the repository root
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    marker: str | None  # the not-run marker line before the fence, if any
    reason: str | None  # its reason ("" when it gives none)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def runner(self) -> str | None:
        return RUNNERS.get(self.lang.lower())


def parse_blocks(path: Path, root: Path = ROOT) -> list[Block]:
    """The fenced code blocks of one Markdown page, with the not-run marker before each."""
    lines = path.read_text().split("\n")
    page = str(path.relative_to(root))
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        fence = opening["fence"]
        end = i + 1
        while end < len(lines) and not (
            lines[end].strip().startswith(fence[0] * len(fence))
            and lines[end].strip().strip(fence[0]) == ""
        ):
            end += 1
        assert end < len(lines), f"{page}:{i + 1}: unclosed code block"
        before = i - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        marker = MARKER.match(lines[before]) if before >= 0 else None
        found.append(
            Block(
                page=page,
                line=i + 1,
                lang=opening["lang"],
                text=textwrap.dedent("\n".join(lines[i + 1 : end]) + "\n"),
                marker=lines[before].strip() if marker else None,
                reason=marker["reason"].strip() if marker else None,
            )
        )
        i = end + 1
    return found


ALL_BLOCKS = [block for page in PAGES for block in parse_blocks(page)]
RUNNABLE = [b for b in ALL_BLOCKS if b.runner is not None and b.marker is None]
RAN: set[str] = set()


# -- the rules of the convention (no Neo4j needed) ------------------------------------------


def test_the_pages_have_code_blocks_to_run() -> None:
    assert len(PAGES) >= 10 and PAGES[0].name == "README.md"
    assert {b.runner for b in RUNNABLE} == {"python", "shell", "cypher"}


def test_every_marker_gives_a_reason_and_marks_a_runnable_block() -> None:
    problems = [
        f"{b.where}: `{b.marker}` gives no reason (<!-- not-run: why -->)"
        for b in ALL_BLOCKS
        if b.marker is not None and not b.reason
    ] + [
        f"{b.where}: `{b.marker}` marks a ```{b.lang} block, which never runs anyway"
        for b in ALL_BLOCKS
        if b.marker is not None and b.runner is None
    ]
    assert not problems, "\n".join(problems)


def test_no_command_hides_in_an_untagged_block() -> None:
    """An untagged block that looks like a command is neither run nor marked: tag it with
    its language (it runs, or carries a not-run marker), or ``text`` when it shows output."""
    hidden = [
        f"{b.where}: {b.text.splitlines()[0]!r}"
        for b in ALL_BLOCKS
        if b.lang == "" and any(COMMAND_LIKE.match(line) for line in b.text.splitlines())
    ]
    assert not hidden, "\n".join(hidden)


def test_the_parser_sees_markers_fences_and_languages(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n<!-- not-run: needs a GPU -->\n\n```bash\nvllm serve x\n```\n\n"
        "<!-- not-run -->\n```python\nprint(1)\n```\n````sh\n```\nkgverify summary\n````\n"
        "```\nplain\n```\n1. a step:\n\n   ```cypher\n   MATCH (n)\n   RETURN n;\n   ```\n"
    )
    found = [(b.line, b.lang, b.reason, b.text) for b in parse_blocks(page, root=tmp_path)]
    assert found == [
        (5, "bash", "needs a GPU", "vllm serve x\n"),
        (10, "python", "", "print(1)\n"),
        (13, "sh", None, "```\nkgverify summary\n"),
        (17, "", None, "plain\n"),
        (22, "cypher", None, "MATCH (n)\nRETURN n;\n"),
    ]
    assert statements("// a comment\nMATCH (a)\nRETURN a;\n\nMATCH (b) RETURN b") == [
        "// a comment\nMATCH (a)\nRETURN a",
        "MATCH (b) RETURN b",
    ]


# -- running them ---------------------------------------------------------------------------


@dataclass
class Reader:
    """The reader's side: a working folder, the environment of their shell, the graph."""

    settings: Settings
    graph: Graph
    workdir: Path
    env: dict[str, str]
    item: str  # an item resting on EDGE


def environment(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGVERIFY_")}
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        KGVERIFY_CACHE_DIR=str(settings.cache_dir),
        HF_DATASETS_OFFLINE="1",
        HF_HUB_OFFLINE="1",
    )
    if settings.neo4j_uri is None:
        env.update(
            KGVERIFY_NEO4J_HOME=str(settings.local_home),
            KGVERIFY_BOLT_PORT=str(settings.bolt_port),
            KGVERIFY_HTTP_PORT=str(settings.http_port),
        )
    if settings.pseudonym_salt is not None:
        env["KGVERIFY_PSEUDONYM_SALT"] = settings.pseudonym_salt.get_secret_value()
    return env


@pytest.fixture(scope="module")
def reader(
    graph: Graph, sample_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Reader:
    """What `make sample` leaves, and a working folder with the sample's relations and
    trajectories in it (the inputs the pages name)."""
    from kgverify.ehr import Ledger, read_omop, write_jsonl
    from kgverify.rows import RejectSink

    sample_pipeline(graph, sample_settings)
    workdir = tmp_path_factory.mktemp("reader")
    for name in CHECKOUT:
        (workdir / name).symlink_to(ROOT / name)
    shutil.copy(sample_settings.cache_dir / "sample" / "relations.jsonl", workdir)
    sink = RejectSink(workdir / "trajectory-rejects.jsonl")
    write_jsonl(
        read_omop(sample_path("omop", "eunomia_sample"), Ledger(sink), salt=sample_settings.salt()),
        workdir / "trajectories.jsonl",
    )
    sink.close()
    on_edge = audit(
        "items_on_edge",
        {"start": EDGE[0], "type": EDGE[1], "end": EDGE[2]},
        settings=sample_settings,
        graph=graph,
    )
    assert on_edge, "no item rests on the README's example edge"
    return Reader(sample_settings, graph, workdir, environment(sample_settings), on_edge[0]["item"])


@pytest.fixture
def in_reader_shell(reader: Reader, monkeypatch: pytest.MonkeyPatch) -> Iterator[Reader]:
    """The Python blocks' process as the reader's shell: environment and working folder."""
    for key in [k for k in os.environ if k.startswith("KGVERIFY_")]:
        monkeypatch.delenv(key)
    for key, val in reader.env.items():
        if key.startswith(("KGVERIFY_", "HF_")):
            monkeypatch.setenv(key, val)
    monkeypatch.chdir(reader.workdir)
    yield reader


def fill_review_sheets(workdir: Path) -> None:
    """The reviewer's part: every sheet the pages exported and nobody filled, all accepted."""
    for sheet in sorted(workdir.glob("*/sheet.csv")):
        with sheet.open(encoding="utf-8", newline="") as handle:
            found = list(csv.DictReader(handle))
        if not found or any(r["decision"] for r in found):
            continue
        for row in found:
            if not row["assertion_id"]:  # the item's row; its relation rows stay unjudged
                row["decision"] = "accept"
        with sheet.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(found[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(found)


def run_python(block: Block, namespace: dict[str, Any]) -> None:
    code = compile(block.text, block.where, "exec")
    try:
        exec(code, namespace)  # noqa: S102  (the docs' own code, as a reader runs it)
    except Exception as exc:
        raise AssertionError(f"{block.where}: the Python block failed: {exc!r}") from exc


def run_shell(block: Block, reader: Reader) -> None:
    script = block.text
    if block.lang.lower() == "console":  # a session: the commands follow "$ ", the rest is output
        script = "".join(ln[2:] + "\n" for ln in script.splitlines() if ln.startswith("$ "))
    for placeholder in SHELL_PLACEHOLDERS:
        script = placeholder.sub(reader.item, script)
    with subprocess.Popen(
        ["bash", "-eo", "pipefail", "-c", script],
        cwd=reader.workdir,
        env=reader.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a timeout ends the block's whole process group
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=BLOCK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise AssertionError(
                f"{block.where}: still running after {BLOCK_TIMEOUT_S} s"
            ) from None
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    tail = f"\n--- stdout ---\n{done.stdout[-3000:]}\n--- stderr ---\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"{block.where}: exit {done.returncode}{tail}"
    assert "Traceback" not in done.stderr, f"{block.where}: a traceback{tail}"


def statements(text: str) -> list[str]:
    """The statements of a Cypher block: a ``;`` that ends a line ends a statement."""
    found, current = [], []
    for line in text.splitlines():
        current.append(line)
        if line.rstrip().endswith(";"):
            found.append("\n".join(current).strip().rstrip(";"))
            current = []
    rest = "\n".join(current).strip()
    return [
        s
        for s in [*found, rest]
        if s and not all(ln.strip().startswith("//") or not ln.strip() for ln in s.splitlines())
    ]


def run_cypher(block: Block, reader: Reader) -> None:
    known = {"id": reader.item}
    for statement in statements(block.text):
        names = set(re.findall(r"\$(\w+)", statement))
        unknown = names - set(known)
        assert not unknown, f"{block.where}: no value for ${', $'.join(sorted(unknown))}"
        try:
            result = cypher(
                statement,
                {name: known[name] for name in names},
                settings=reader.settings,
                graph=reader.graph,
            )
        except Exception as exc:
            raise AssertionError(f"{block.where}: {exc}\n{statement}") from exc
        assert result.rows, f"{block.where}: no rows on the sample graph\n{statement}"


def run_block(block: Block, reader: Reader, namespace: dict[str, Any]) -> None:
    """One block, after the reader's manual step it needs (a filled review sheet)."""
    if "review import" in block.text or "review_import(" in block.text:
        fill_review_sheets(reader.workdir)
    if block.runner == "python":
        run_python(block, namespace)
    elif block.runner == "shell":
        run_shell(block, reader)
    else:
        run_cypher(block, reader)


@pytest.mark.parametrize(
    "page",
    [p for p in PAGES if any(b.page == str(p.relative_to(ROOT)) for b in RUNNABLE)],
    ids=lambda p: p.name,
)
def test_the_page_runs(page: Path, in_reader_shell: Reader) -> None:
    reader = in_reader_shell
    namespace: dict[str, Any] = {"__name__": f"docs:{page.name}"}
    name = str(page.relative_to(ROOT))
    for block in [b for b in RUNNABLE if b.page == name]:
        started = time.monotonic()
        run_block(block, reader, namespace)
        RAN.add(block.where)
        log.info("%s (%s) ran in %.1f s", block.where, block.lang, time.monotonic() - started)


def test_every_runnable_block_ran() -> None:
    """Runs after the pages: every block that is not marked was run (none left out)."""
    left = sorted({b.where for b in RUNNABLE} - RAN)
    assert not left, f"not run: {left}"
    marked = [b for b in ALL_BLOCKS if b.marker is not None]
    log.info("%d blocks run, %d marked not runnable", len(RAN), len(marked))
    for b in marked:
        log.info("  %s: %s", b.where, b.reason)
