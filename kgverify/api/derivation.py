"""The benchmark derived from what passed: QA items (``derive_qa``), fact sheets
(``derive_facts``), items asked of a panel of LLMs (``calibrate_items``), and the items
per filter policy (``filter_sweep``); docs/derivation.md."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgverify.api.bookkeeping import graph_of
from kgverify.collector import batch_work
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph

if TYPE_CHECKING:
    from kgverify.derive import DeriveReport, FactsReport
    from kgverify.derive.calibrate import CalibrationReport
    from kgverify.derive.model import PolicyYield
    from kgverify.verify.verifier import FilterPolicy


@batch_work
def derive_qa(
    out: Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    tasks: Iterable[str] | None = None,
    write: bool = True,
    progress: Callable[[int], None] | None = None,
    policy: FilterPolicy | None = None,
    engine: str = "local",
) -> DeriveReport:
    """Derive QA items from the passed assertions in the graph into the folder ``out``.

    The tasks are diagnosis, treatment and prognosis, or the ``tasks`` named. ``out`` gets
    a Hugging Face ``datasets`` layout (``out/<task>/<split>.jsonl``, README.md,
    schema.json) and, unless ``write`` is false, the graph gets ``(:Item)`` provenance.
    Same graph and seed, same bytes.

    The filter policy: ``policy``, else the settings' when a policy setting was given
    (``verify_accept``, ``verify_min_score``, ``verify_min_confidence`` set by the
    environment, the config file or ``Settings(...)``), is re-applied to every assertion's
    stored verdict, score and confidence; with neither, each assertion's stored ``passed``
    decides. ``report.policy`` (``policy@<hash>`` or ``stored``), the dataset card and
    ``out/policy.json`` record which.

    ``engine`` (``kgverify.engines.ENGINES``): "local", or "ray" to work on each page of
    patients on Ray actors (docs/scale.md); the items are the same, byte for byte.

    >>> report = derive_qa(Path("qa"), settings=settings, graph=graph)
    >>> report.items["treatment"]["train"], report.distractors_rejected
    >>> datasets.load_dataset("qa", "treatment")
    """
    from kgverify.derive import Task, run_qa
    from kgverify.derive.qa import TASKS
    from kgverify.engines import ENGINES

    settings = settings or Settings()
    chosen = {Task(TASKS.check(t)) for t in tasks} if tasks else None
    pages = ENGINES.pick(engine).qa_pages
    with graph_of(settings, graph) as g:
        return run_qa(
            g,
            settings,
            out,
            tasks=chosen,
            write=write,
            progress=progress,
            policy=policy,
            pages=pages,
        )


@batch_work
def derive_facts(
    out: Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    progress: Callable[[int], None] | None = None,
    gzip: bool = False,
    engine: str = "local",
) -> FactsReport:
    """Fact sheets for record-grounded simulated patients, one per patient.

    Written to ``out/sheets.jsonl`` (``out/sheets.jsonl.gz`` with ``gzip``) with
    ``out/schema.json`` (docs/derivation.md). ``engine`` as for :func:`derive_qa` ("ray":
    each page of patients built on Ray actors, the same bytes).
    """
    from kgverify.derive import run_facts
    from kgverify.engines import ENGINES

    settings = settings or Settings()
    pages = ENGINES.pick(engine).sheet_pages
    with graph_of(settings, graph) as g:
        return run_facts(g, settings, out, progress=progress, gzip=gzip, sheet_pages=pages)


def calibrate_items(
    qa_dir: Path,
    *,
    models: Sequence[str],
    base_url: str | None = None,
    out: Path | None = None,
    backend: str = "openai",
    tasks: Iterable[str] | None = None,
    splits: Iterable[str] | None = None,
    limit: int | None = None,
    api_key: str | None = None,
    concurrency: int = 4,
    timeout_s: float = 120.0,
    seed: int = 0,
    max_tokens: int = 16,
    cache: bool = True,
    engine_kwargs: dict[str, Any] | None = None,
    settings: Settings | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> CalibrationReport:
    """Ask every QA item of ``qa_dir`` of each model of a panel; how hard is each item?

    ``qa_dir`` is a folder of ``derive_qa`` (``<task>/<split>.jsonl``), narrowed to
    ``tasks``, ``splits`` and the first ``limit`` items of each task. ``backend``: "openai"
    (any OpenAI-compatible server such as ``vllm serve`` at ``base_url``, ``concurrency``
    requests at a time) or "vllm" (the offline engine, each model loaded in turn in this
    process; ``engine_kwargs`` go to ``vllm.LLM``). Each item is asked once per model with
    the calibration prompt (the letter only), temperature 0, ``seed``, ``max_tokens``; only
    ``B``, ``B.``, ``(B)`` and ``Answer: B`` are read as a label, anything else is counted
    unparsed. Answers are cached in ``<cache_dir>/llm-cache.sqlite`` (``cache=False``: not
    read, not written). Written, owner-only, to ``out`` (default: ``<qa_dir>-calibration``
    beside it): ``calibration.jsonl`` (item, model, parsed label, correct; no answer text)
    and ``report.json``. ``progress(done, total)`` over every answer (items x models).

    Raises:
        ConfigError: a missing or empty ``qa_dir``, an unknown task, split or backend, no
            ``base_url`` for "openai" or one that is not http(s).
        LLMUnavailableError: the server cannot be reached, or vllm is not installed.
        LLMRequestError: the server refuses the requests (unknown model, credentials).

    >>> report = calibrate_items(Path("qa"), models=["Qwen/Qwen2.5-7B-Instruct"],
    ...                          base_url="http://127.0.0.1:8000/v1", splits=["test"])
    >>> report.totals[0].accuracy, len(report.solved_by_all), report.unparsed
    """
    from kgverify.derive.calibrate import calibrate, open_panel, read_qa_items
    from kgverify.extract.cache import CACHE_FILE, ResponseCache

    settings = settings or Settings()
    qa_dir = Path(qa_dir)
    items = read_qa_items(
        qa_dir, list(tasks) if tasks else None, list(splits) if splits else None, limit
    )
    if max_tokens < 1:
        raise ConfigError(f"max_tokens must be at least 1, not {max_tokens}")
    params: dict[str, Any] = {"temperature": 0.0, "max_tokens": max_tokens, "seed": seed}
    panel = open_panel(
        backend,
        base_url=base_url,
        api_key=api_key,
        concurrency=concurrency,
        timeout_s=timeout_s,
        params=params,
        engine_kwargs=engine_kwargs,
    )
    folder = Path(out) if out is not None else qa_dir.with_name(qa_dir.name + "-calibration")
    responses = ResponseCache(settings.cache_dir / CACHE_FILE) if cache else None
    try:
        return calibrate(
            items,
            [models] if isinstance(models, str) else list(models),
            panel,
            folder,
            qa_dir=qa_dir,
            params=params,
            cache=responses,
            progress=progress,
        )
    finally:
        if responses is not None:
            responses.close()


def filter_sweep(
    policies: Iterable[FilterPolicy],
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> list[PolicyYield]:
    """How the benchmark changes with the filter policy.

    For each policy, a derivation (nothing written to the graph, files in a temporary
    folder) and what it gives: the assertions kept out, the items per task and in all.

    >>> from kgverify.verify.verifier import FilterPolicy
    >>> strict = FilterPolicy(accept={"supported"}, min_score=0.9, min_confidence=0.0)
    >>> filter_sweep([strict])[0].items
    """
    import tempfile

    from kgverify.derive.model import PolicyYield

    settings = settings or Settings()
    out = []
    with graph_of(settings, graph) as g, tempfile.TemporaryDirectory() as tmp:
        for n, policy in enumerate(policies):
            report = derive_qa(
                Path(tmp) / str(n), settings=settings, graph=g, write=False, policy=policy
            )
            per_task = {task: sum(splits.values()) for task, splits in report.items.items()}
            out.append(
                PolicyYield(
                    accept=sorted(v.value for v in policy.accept),
                    min_score=policy.min_score,
                    min_confidence=policy.min_confidence,
                    filtered=sum(report.filtered.values()),
                    items=per_task,
                    total=sum(per_task.values()),
                )
            )
    return out
