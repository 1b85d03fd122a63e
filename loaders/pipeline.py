"""Runs any loader against the graph: the one place batching, progress, rejects, release
bookkeeping, the release guard and retirement happen.

Nothing touches the graph before the pre-flight check passes (every file found, none empty,
none cut mid-line, every concept named, none much shorter than the current release's, not
older than the current release), which ends with the release guard: the release's concepts
compared with the graph's, a release that would retire, inactivate or rename more than
``max_retire_share`` of the vocabulary's active concepts is held with nothing written,
unless ``--allow-retire`` was given. After the rows are written and before anything is
retired, what the release drops of the relationships (known only then) is compared with
the same share; over it, the release is recorded as "held" (not current, nothing retired)
(docs/loaders.md).

Batched mode (the default) sends each step's rows in batches of ``batch_size`` to constant
statements; it is idempotent and safe to rerun after an interruption. Bulk mode (see
:mod:`loaders.bulk`) writes node and relationship CSVs for ``neo4j-admin database import``
into an empty local database and then runs the remaining steps batched.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgverify.config import Settings
from kgverify.errors import LoadError, RejectThresholdError, ReleaseGuardError
from kgverify.graph.driver import Graph, batched
from kgverify.graph.model import RelType
from kgverify.graph.queries import get_query
from kgverify.graph.schema import ensure_schema
from kgverify.rows import RejectedRow, RejectSink, Tally
from loaders.base import Release, Row, Step, VocabularyLoader
from loaders.report import LoadReport
from loaders.staging import StagedConcepts

log = logging.getLogger(__name__)
ProgressFactory = Callable[[str, int], AbstractContextManager[Callable[[int], None]]]


def no_progress(label: str, total: int) -> AbstractContextManager[Callable[[int], None]]:
    """A progress reporter that reports nothing (library use, ``--json``)."""
    return nullcontext(lambda done: None)


def default_rejects_path(settings: Settings, release: Release) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return settings.cache_dir / "rejects" / f"{release.id.replace('@', '-')}-{stamp}.jsonl"


def check_not_older(graph: Graph, release: Release, force: bool) -> dict[str, Any] | None:
    """Refuse to load a release older than the vocabulary's current one (unless forced);
    returns the current release (id, version, sort_key, report) or None."""
    latest = graph.read("load/latest_release", vocab=release.vocab.value)
    if latest and latest[0]["sort_key"] > release.sort_key and not force:
        raise LoadError(
            f"{release.id} is older than the loaded {latest[0]['id']}; pass --force to load it"
        )
    return latest[0] if latest else None


def count_lines(path: Path) -> int:
    """Lines in a file (a last line without a newline counts), read in 1 MiB blocks."""
    lines, last = 0, b"\n"
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            lines += block.count(b"\n")
            last = block[-1:]
    return lines + (last != b"\n")


def ends_cut(path: Path) -> bool:
    """Whether the file's last line lacks its newline: every release file ends with one, so
    a copy cut mid-line (an interrupted download) ends without it."""
    with path.open("rb") as handle:
        if handle.seek(0, 2) == 0:
            return False
        handle.seek(-1, 2)
        return handle.read(1) != b"\n"


def check_files(loader: VocabularyLoader, steps: list[Step]) -> dict[str, int]:
    """Lines per step, after the checks of the files themselves (nothing is written yet).

    LoadError when a file that must hold rows (concepts, relationships, and every file
    names come from: ``Step.required``) holds none; ReleaseGuardError when a file's last
    line is cut, or when the loader finds concepts its release leaves without a name
    (``VocabularyLoader.check_release``).
    """
    lines = {step.label: count_lines(step.file) for step in steps}
    for step in steps:
        must_hold_rows = step.kind in ("nodes", "edges") or step.required
        if must_hold_rows and lines[step.label] <= loader.header_lines:
            raise LoadError(
                f"{step.file} holds no rows; a release's {step.label} file is never empty "
                "(an interrupted copy?); nothing was written"
            )
    cut = [step.file.name for step in steps if ends_cut(step.file)]
    if cut:
        raise ReleaseGuardError(
            f"{', '.join(cut)}: the last line has no newline, the file was cut short (an "
            "interrupted copy?); nothing was written"
        )
    loader.check_release()
    return lines


def preflight(
    graph: Graph,
    loader: VocabularyLoader,
    release: Release,
    steps: list[Step],
    settings: Settings,
) -> None:
    """Everything that can be checked before the graph is touched; raises, writes nothing.

    Every step's file exists (``loader.steps()`` found it); the concept and relationship
    files and those names come from hold rows; no file ends mid-line; the loader's own
    checks pass (a SNOMED CT concept without a name); no file has fewer lines than the
    current release's by more than ``max_retire_share`` (an interrupted copy); the release
    guard does not hold the release (:func:`guard_release`). The last two are skipped when
    retiring is allowed.
    """
    current = check_not_older(graph, release, loader.options.force)
    lines = check_files(loader, steps)
    if loader.options.allow_retire:
        return
    if current is not None and current.get("report"):
        check_lines(release, steps, lines, current, settings)
    guard_release(graph, loader, release, steps, settings)


def check_lines(
    release: Release,
    steps: list[Step],
    lines: dict[str, int],
    current: dict[str, Any],
    settings: Settings,
) -> None:
    """ReleaseGuardError when a file has fewer lines than the current release's by more
    than ``max_retire_share`` (an interrupted copy)."""
    before = {f["step"]: f["read"] for f in json.loads(current["report"])["files"] if f.get("step")}
    share = settings.max_retire_share
    shrunk = [
        f"{step.file.name} has {lines[step.label]:,} lines, {current['id']}'s had "
        f"{before[step.label]:,}"
        for step in steps
        if before.get(step.label) and lines[step.label] < before[step.label] * (1 - share)
    ]
    if shrunk:
        raise ReleaseGuardError(
            f"{release.id} looks damaged: {'; '.join(shrunk)} (more than "
            f"{share:.0%} fewer); nothing was written. Pass --allow-retire if the release "
            "really drops that much"
        )


class _Discard(RejectSink):
    """A reject sink that only counts: the guard's pass over the concept rows rejects what
    the load will reject again, with its line, into the real rejects file."""

    def __init__(self) -> None:
        super().__init__(Path("/dev/null"))

    def write(self, row: RejectedRow) -> None:
        self.count += 1


def guard_release(
    graph: Graph,
    loader: VocabularyLoader,
    release: Release,
    steps: list[Step],
    settings: Settings,
    *,
    batch_size: int = 5_000,
    examples: int = 20,
) -> LoadReport | None:
    """The release guard, decided before anything is written: ReleaseGuardError (with a
    "held" report, nothing written) when the release would retire or inactivate, or would
    rename, more than ``max_retire_share`` of the vocabulary's active concepts.

    The concept rows the loader makes of the release are staged on disk (id, active, name),
    then compared in batches with the graph: the vocabulary's active concepts read page by
    page (``load/active_concepts``: those the release lacks would be retired), and the
    release's concepts by id lists (``load/compare_concepts``: those it marks inactive, and
    those whose name it changes). Memory holds one batch. Returns the counts (a report)
    when the release passes, None when the vocabulary has no active concept.
    """
    concept_steps = [step for step in steps if step.kind == "nodes"]
    if not concept_steps:
        return None
    vocab = release.vocab.value
    report = LoadReport(loader=loader.name, release=release.id, mode="preflight")
    active = retire = inactivate = rename = 0
    retire_examples: list[str] = []
    other_examples: list[str] = []
    with StagedConcepts() as staged:
        for step in concept_steps:
            tally = Tally(step.file.name, _Discard(), step.label)
            for batch in batched(step.rows(tally), batch_size):
                staged.add_many(
                    (row["id"], bool(row["active"]), row.get("name"), row.get("name_rank"))
                    for row in batch
                )
        after = ""
        while page := graph.read(
            "load/active_concepts", vocab=vocab, after=after, limit=batch_size
        ):
            active += len(page)
            after = page[-1]["id"]
            kept = staged.contains_many([row["id"] for row in page])
            dropped = [row for row in page if row["id"] not in kept]
            retire += len(dropped)
            retire_examples.extend(
                f"{row['id']} {row['name'] or ''}"
                for row in dropped[: examples - len(retire_examples)]
            )
        if not active:
            return None
        for rows in staged.pages(batch_size):
            batch = [{"id": i, "active": a, "name": n} for i, a, n in rows]
            for found in graph.read_rows(
                "load/compare_concepts", batch, vocab=vocab, examples=examples
            ):
                inactivate += found["inactivated"]
                rename += found["renamed"]
                for example in (*found["inactivated_examples"], *found["renamed_examples"]):
                    if len(other_examples) < examples:
                        other_examples.append(example)
    report.would_retire_concepts = retire
    report.would_inactivate_concepts = inactivate
    report.would_rename_concepts = rename
    report.would_retire_examples = (retire_examples + other_examples)[:examples]
    share = settings.max_retire_share
    if retire + inactivate <= share * active and rename <= share * active:
        return report
    report.status = "held"
    raise ReleaseGuardError(
        f"{release.id} would retire {retire:,} and inactivate {inactivate:,} of the "
        f"{active:,} active {vocab} concepts, and rename {rename:,}; more than {share:.0%} "
        f"(e.g. {', '.join(report.would_retire_examples[:3])}); held, nothing was written. "
        "Pass --allow-retire if the release really changes that much",
        report,
    )


def step_params(query: str, release: Release) -> dict[str, Any]:
    """The fixed parameters a step query declares (besides ``rows``)."""
    fixed = {"vocab": release.vocab.value, "release": release.id}
    return {k: fixed[k] for k in get_query(query).params if k != "rows"}


def run_step_batched(
    graph: Graph,
    step: Step,
    release: Release,
    tally: Tally,
    batch_size: int,
    progress: ProgressFactory,
) -> None:
    """Stream one step's rows to its queries; dangling rows become rejects."""
    params = {q: step_params(q, release) for q in step.queries}
    started = time.monotonic()
    with progress(f"{step.file.name}: {step.label}", step.file.stat().st_size) as advance:
        for batch in batched(step.rows(tally), batch_size):
            if step.kind == "edges":
                check_types(batch)
            for query in step.queries:
                # A row the database refuses is rejected; the rest of its batch is written.
                results = graph.write_rows(
                    query, batch, lambda row, why: reject_row(row, why, tally), **params[query]
                )
                written = sum(r[0].get("written") or 0 for r in results if r)
                if step.references and written < len(batch):
                    reject_dangling(graph, batch, step.references, release, tally)
            advance(tally.bytes)
    log.info(
        "%s %s: %s in %.1f s",
        release.id,
        step.label,
        tally.report().model_dump(include={"read", "loaded", "skipped", "rejected"}),
        time.monotonic() - started,
    )


def check_types(batch: list[Row]) -> None:
    """Every relationship type sent as a dynamic ``$(row.type)`` is one of ``RelType``."""
    for row in batch:
        RelType(row["type"])  # ValueError on anything else: a loader bug, not bad input


def row_lines(row: Row) -> list[int | None]:
    """The line of each input line a row stands for: its ``lines`` when the loader grouped
    several (MRSTY, RXNSAT), else ``line`` repeated ``count`` times."""
    lines = row.get("lines")
    if lines:
        return list(lines)
    return [row.get("line")] * int(row.get("count") or 1)


def reject_row(row: Row, reason: str, tally: Tally) -> None:
    """Reject ``row`` (all the lines it stands for), e.g. one the database refused."""
    lines = row_lines(row)
    tally.loaded -= len(lines)
    text = json.dumps({k: v for k, v in row.items() if k not in ("line", "lines", "count")})
    for line in lines:
        tally.reject(line, reason, text)


def reject_dangling(
    graph: Graph, batch: list[Row], references: tuple[str, ...], release: Release, tally: Tally
) -> None:
    """Find the rows of a batch that name a concept this release lacks; reject them."""
    ids = sorted({row[ref] for row in batch for ref in references})
    missing = set(graph.read("load/missing_concepts", ids=ids, release=release.id)[0]["missing"])
    for row in batch:
        reject_if_dangling(row, references, missing, tally)


def reject_if_dangling(
    row: Row, references: tuple[str, ...], missing: set[str], tally: Tally
) -> bool:
    """Reject ``row`` (all the lines it stands for) if it names a missing concept."""
    absent = [row[ref] for ref in references if row[ref] in missing]
    if not absent:
        return False
    lines = row_lines(row)
    tally.loaded -= len(lines)
    names = " and ".join(absent)
    for line in lines:
        tally.reject(line, f"dangling reference: {names} not in this release", names)
    return True


def load(
    loader: VocabularyLoader,
    graph: Graph,
    *,
    settings: Settings | None = None,
    rejects_path: Path | None = None,
    progress: ProgressFactory = no_progress,
) -> LoadReport:
    """Load one release through the batched path and return its report.

    Raises RejectThresholdError (after the load is complete and recorded) when the share of
    rejected rows is above ``settings.max_reject_share``.
    """
    settings = settings or Settings()
    started = time.monotonic()
    release = loader.release()
    steps = loader.steps()
    preflight(graph, loader, release, steps, settings)
    ensure_schema(graph)
    rejects = RejectSink(rejects_path or default_rejects_path(settings, release))
    report = LoadReport(loader=loader.name, release=release.id, mode="batched")
    begin_release(graph, loader, release, "batched")
    try:
        for step in steps:
            tally = Tally(step.file.name, rejects, step.label)
            run_step_batched(graph, step, release, tally, settings.batch_size, progress)
            report.files.append(tally.report())
    finally:
        rejects.close()
        loader.close()
    finish(
        graph,
        release,
        report,
        rejects,
        settings,
        started,
        retire=True,
        allow_retire=loader.options.allow_retire,
    )
    return report


def content_hash(loader: VocabularyLoader) -> str:
    """SHA-256 over the options that choose rows and the files the loader's steps read
    (each file's name and bytes, in path order; a file a step may lack counts as missing):
    what the release holds, whenever and however often it was loaded. The linker index is
    keyed by it (``link.index``)."""
    digest = hashlib.sha256(json.dumps(loader.options.selecting(), sort_keys=True).encode())
    for file in sorted({step.file for step in loader.steps()}):
        digest.update(f"{file.name}\0".encode())
        if not file.is_file():
            digest.update(b"missing\0")
            continue
        with file.open("rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()


def begin_release(graph: Graph, loader: VocabularyLoader, release: Release, mode: str) -> None:
    """Register the release as loading; LoadError when another release of the vocabulary is
    loading (running now or interrupted), unless ``abandon_interrupted``."""
    [row] = graph.write(
        "load/begin_release",
        abandon=loader.options.abandon_interrupted,
        release=release.id,
        vocab=release.vocab.value,
        version=release.version,
        sort_key=release.sort_key,
        mode=mode,
        path=str(loader.path.resolve()),
        options=loader.options.model_dump_json(),
        content_hash=content_hash(loader),
    )
    if not row["registered"]:
        raise LoadError(
            f"another load of {release.vocab.value} is running or was interrupted: "
            f"{', '.join(row['busy'])}; wait for it, or rerun it to finish it, or pass "
            "--abandon-interrupted to mark it abandoned; nothing was written"
        )


def finish(
    graph: Graph,
    release: Release,
    report: LoadReport,
    rejects: RejectSink,
    settings: Settings,
    started: float,
    *,
    retire: bool,
    allow_retire: bool = False,
) -> None:
    """Apply the reject threshold and the release guard, retire what the release dropped,
    record the report.

    A release over the reject threshold retires nothing (status "rejected"); one that would
    retire more than ``max_retire_share`` of the vocabulary's concepts or edges is "held"
    (recorded, not current, nothing retired) unless ``allow_retire``. The concepts were
    already compared before the write (:func:`guard_release`); this is what only the
    written graph tells: the relationships the release drops, and concepts whose rows the
    database refused.
    """
    report.rejects_path = str(rejects.path) if rejects.count else None
    over = report.reject_share > settings.max_reject_share
    held = False
    if retire and not over:
        held = not allow_retire and guard_retirement(graph, release, report, settings)
        if not held:
            params = {"vocab": release.vocab.value, "release": release.id}
            report.retired_concepts = graph.write_autocommit("load/retire_concepts", **params)[0][
                "retired"
            ]
            report.retired_relationships = graph.write_autocommit(
                "load/retire_relationships", **params
            )[0]["retired"]
    # Facts ingested before their concept was loaded (a bulk ingest comes first) link now.
    report.facts_linked = graph.write_autocommit("load/link_facts")[0]["linked"]
    report.status = "rejected" if over else "held" if held else "complete"
    report.seconds = round(time.monotonic() - started, 3)
    graph.write(
        "load/finish_release",
        release=release.id,
        status=report.status,
        report=json.dumps(report.model_dump(), default=str),
        rows_read=report.read,
        rows_rejected=report.rejected,
    )
    if held:
        raise ReleaseGuardError(
            f"{release.id} would retire {report.would_retire_concepts:,} concepts and "
            f"{report.would_retire_relationships:,} relationships, more than "
            f"{settings.max_retire_share:.0%} of what is active; held: rows written, nothing "
            "retired, the current release unchanged. Rerun with --allow-retire if the release "
            "really drops them",
            report,
        )
    if over:
        raise RejectThresholdError(
            report,
            f"{release.id}: {report.rejected} of {report.read} rows rejected "
            f"({report.reject_share:.2%} > {settings.max_reject_share:.2%}); "
            f"see {report.rejects_path}",
        )


def guard_retirement(
    graph: Graph, release: Release, report: LoadReport, settings: Settings
) -> bool:
    """Whether retiring would drop more than ``max_retire_share`` of the vocabulary's active
    concepts or relationships; the counts and examples go into ``report`` either way."""
    preview = graph.read(
        "load/retire_preview", vocab=release.vocab.value, release=release.id, examples=20
    )[0]
    report.would_retire_concepts = preview["concepts"]
    report.would_retire_relationships = preview["relationships"]
    report.would_retire_examples = preview["examples"]
    share = settings.max_retire_share
    return bool(
        preview["concepts"] > share * preview["active_concepts"]
        or preview["relationships"] > share * preview["active_relationships"]
    )
