"""Agent actions judged against the record and the vocabularies (``check_actions``), task
checkpoints graded (``grade_tasks``), and the shipped sample tasks (``sample_actions``);
docs/fhir.md, "Checking an agent's actions"."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from kgverify.api.bookkeeping import FileRun, file_run, graph_of, sample_path
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph
from kgverify.outputs import make_dirs
from kgverify.rows import RejectedRow, RejectSink

if TYPE_CHECKING:
    from kgverify.actions.model import ActionRecord, ActionsReport, GradeReport


def check_actions(
    actions: Path | None,
    out: Path,
    *,
    server: str | None = None,
    since: str | None = None,
    tasks: Path | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
    rejects_path: Path | None = None,
    progress: Callable[[int], None] | None = None,
    write: bool = True,
) -> ActionsReport:
    """Judge every agent action (docs/fhir.md, "Checking an agent's actions").

    The actions come from an actions JSONL file (``actions``: one ``ActionRecord`` per
    line, the FHIR R4 resource the agent wrote), or from a FHIR server (``server``, its base
    URL): the resources tagged with the ``tasks``' ids, else those changed ``since`` a FHIR
    instant or date. One ``ActionVerdict`` line per action goes to ``out`` (replaced only
    when the run completes): indicated, contraindicated, duplicate_therapy, unsupported
    (not in the vocabularies), not_judged, unknown_code or malformed, with evidence paths
    in words. ``tasks`` (task files) give each action its day and the conditions its task
    names. Lines that are not records go, with their number, to the rejects file. With
    ``write``, the verdicts are stored text-free as ``(:AgentAction)`` nodes for the
    ``actions_by_verdict`` audit.

    Example:
        >>> check_actions(Path("actions.jsonl"), Path("verdicts.jsonl")).verdicts  # doctest: +SKIP
        {'contraindicated': 1, 'indicated': 1}
    """
    from kgverify.actions.judge import ActionJudge
    from kgverify.actions.run import check_records, read_actions, read_tasks
    from kgverify.actions.store import ActionStore

    if (actions is None) == (server is None):
        raise ConfigError("give an actions file or a FHIR server URL (one of them)")
    settings = settings or Settings()
    task_list = read_tasks(tasks) if tasks is not None else []
    source = str(actions) if actions is not None else str(server)
    if actions is not None and not actions.is_file():
        raise ConfigError(f"no such actions file: {actions}")
    with _actions_run(actions, out, rejects_path) as run, graph_of(settings, graph) as g:
        if actions is not None:
            records = read_actions(actions, run.reject)
        else:
            records = _server_actions(str(server), settings, [t.task_id for t in task_list], since)
        judge = ActionJudge(g, settings)
        store = ActionStore(g, min(settings.batch_size, 500)) if write else None
        try:
            report = check_records(
                judge, records, run.partial, tasks=task_list, store=store, progress=progress
            )
        finally:
            judge.close()
        report.rejected = run.sink.count
    report.source = source
    report.out = str(out)
    report.rejects = run.rejects
    return report


@contextmanager
def _actions_run(actions: Path | None, out: Path, rejects_path: Path | None) -> Iterator[FileRun]:
    """``_file_run`` for a file of actions, or for actions read from a server."""
    if actions is not None:
        with file_run(actions, out, rejects_path) as run:
            yield run
        return
    make_dirs(out.parent)
    run = FileRun(out, out, rejects_path)
    try:
        yield run
        run.partial.replace(out)
    finally:
        run.sink.close()
        run.partial.unlink(missing_ok=True)


def _server_actions(
    url: str, settings: Settings, task_ids: list[str], since: str | None
) -> Iterator[ActionRecord]:
    from kgverify.actions.server import read_server_actions
    from kgverify.ehr.fhir_http import FhirClient

    if not task_ids and since is None:
        raise ConfigError("reading actions from a server needs task files (--tasks) or --since")
    client = FhirClient.from_settings(url, settings)
    client.get("metadata")  # one error line for a server that does not answer
    yield from read_server_actions(
        client, settings.salt(), tasks=task_ids, since=since, count=settings.fhir_count
    )


def grade_tasks(
    tasks: Path,
    actions: Path | None = None,
    *,
    server: str | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
    rejects_path: Path | None = None,
    write: bool = True,
) -> GradeReport:
    """Grade task files against an agent's actions (docs/fhir.md, "Task checkpoints").

    ``tasks`` is a task file (JSON) or a folder of them; the actions come from an actions
    JSONL file (``actions``) or from a FHIR server (``server``: the resources tagged with
    each task's id). Every checkpoint passes or fails with its reason; the report has each
    task's score (share of its checkpoints passed), the overall share and the mean task
    score, and every action's verdict. With ``write``, actions and checkpoints are stored
    text-free for the ``actions_by_verdict`` and ``task_checkpoints`` audit queries. Lines
    that are not action records go to the rejects file (default: beside ``actions``).
    """
    from kgverify.actions.judge import ActionJudge
    from kgverify.actions.run import Grader, read_actions, read_tasks
    from kgverify.actions.store import ActionStore

    if (actions is None) == (server is None):
        raise ConfigError("give an actions file or a FHIR server URL (one of them)")
    task_list = read_tasks(tasks)
    if actions is not None and not actions.is_file():
        raise ConfigError(f"no such actions file: {actions}")
    settings = settings or Settings()
    where = actions if actions is not None else settings.cache_dir / "actions"
    sink = RejectSink(rejects_path or where.with_suffix(".rejects.jsonl"))

    def reject(line: int, reason: str, text: str = "") -> None:
        sink.write(RejectedRow(file=str(actions), line=line, reason=reason, text=text[:300]))

    try:
        with graph_of(settings, graph) as g:
            if actions is not None:
                records: Iterable[ActionRecord] = read_actions(actions, reject)
            else:
                ids = [t.task_id for t in task_list]
                records = _server_actions(str(server), settings, ids, None)
            judge = ActionJudge(g, settings)
            store = ActionStore(g, min(settings.batch_size, 500)) if write else None
            try:
                report = Grader(judge).grade(task_list, records, store)
            finally:
                judge.close()
    finally:
        sink.close()
    report.source = str(actions) if actions is not None else str(server)
    return report


def sample_actions(
    out: Path | None = None, *, settings: Settings | None = None, server: bool = False
) -> tuple[Path, Path]:
    """The shipped sample tasks and planted actions, with this installation's pseudonyms.

    Written under ``out`` (default ``<cache_dir>/sample/actions``) from
    ``kgverify/sample/actions``: the tasks folder and the actions JSONL, for ``grade_tasks``
    once the sample EHR is ingested. With ``server``, the tasks name the patients as
    ``fhir-rest`` ingest names them after ``load_fhir`` of the sample (the FHIR leg).
    """
    from kgverify.actions.sample import write_resolved

    settings = settings or Settings()
    folder = out if out is not None else settings.cache_dir / "sample" / "actions"
    return write_resolved(sample_path("actions"), folder, settings.salt(), server=server)
