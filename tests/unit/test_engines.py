"""The ray engine's failures are one line: an actor that cannot reach Neo4j raises the same
kgverify error the local path would (not a Ray traceback), and the pool it was part of is
gone. A real local Ray; no Neo4j (nothing listens on the port)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kgverify.config import Settings
from kgverify.derive.model import Task
from kgverify.derive.pages import QAJob
from kgverify.ehr.model import Trajectory
from kgverify.engines import ENGINES
from kgverify.engines.on_ray import (
    LinkActor,
    QAActor,
    SheetActor,
    VerifyActor,
    _contiguous,
    _Pool,
    start_ray,
)
from kgverify.errors import ConfigError, GraphUnavailableError
from kgverify.extract.run import ExtractorSpec
from kgverify.review.state import ReviewState
from tests.conftest import free_port
from tests.unit.test_extract_llm import sample_trajectory
from tests.unit.test_extract_protocol import FixtureServer


@pytest.fixture(scope="module")
def ray_nowhere(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    settings = Settings(
        neo4j_uri=f"bolt://127.0.0.1:{free_port()}",
        neo4j_password="unused",
        cache_dir=tmp_path_factory.mktemp("cache"),
        ray_workers=2,
    )
    start_ray(settings)
    yield settings
    import ray

    ray.shutdown()


def _qa_job(settings: Settings) -> tuple[object, ...]:
    return (QAJob(settings, frozenset(Task), None, ReviewState([])),)


@pytest.mark.parametrize(
    ("actor", "extra"),
    [
        (LinkActor, lambda _: ()),
        (VerifyActor, lambda _: (False, None)),
        (QAActor, _qa_job),
        (SheetActor, lambda _: ()),
    ],
    ids=["link", "verify", "qa", "facts"],
)
def test_an_actor_that_cannot_connect_is_the_one_line_error(
    ray_nowhere: Settings, actor: type, extra: Callable[[Settings], tuple[object, ...]]
) -> None:
    import ray

    with pytest.raises(GraphUnavailableError, match=r"^cannot reach Neo4j at bolt://127\.0\.0\.1:"):
        _Pool(ray, actor, 2, ray_nowhere, *extra(ray_nowhere))
    # Both actors were stopped (ray.kill returns at once; the CPUs come back soon after).
    for _ in range(200):
        if _all_cpus_free(ray):
            break
        time.sleep(0.05)
    assert _all_cpus_free(ray)


def _all_cpus_free(ray: Any) -> bool:
    return bool(ray.available_resources().get("CPU") == ray.cluster_resources().get("CPU"))


def test_batches_split_in_order() -> None:
    items = list(range(7))
    parts = _contiguous(items, 3)
    assert [list(p) for p in parts] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [list(p) for p in _contiguous(items[:1], 3)] == [[0], [], []]
    assert [x for p in _contiguous(items, 2) for x in p] == items


# -- extraction on actors: a protocol test (a stand-in OpenAI-compatible server, as in
# test_extract_protocol.py: no LLM server can run here) ---------------------------------------


def _extract(
    settings: Settings, engine: str, spec: ExtractorSpec, trajectories: list[Trajectory]
) -> tuple[list[Any], int, dict[str, Any] | None]:
    with ENGINES.pick(engine).extraction(settings, spec, None) as extraction:
        proposals = [p.model_dump() for p in extraction.extract(trajectories)]
        llm = extraction.llm.as_dict() if extraction.llm is not None else None
        return proposals, extraction.episodes, llm


def test_llm_extraction_on_actors_is_the_local_extraction(
    ray_nowhere: Settings, tmp_path: Path
) -> None:
    server = FixtureServer().serve("mixed.json")  # relations and refused ones
    try:
        spec = ExtractorSpec("openai", model="m", base_url=server.url, concurrency=2)
        trajectories = [sample_trajectory(f"p{i}") for i in range(5)]
        # Each run its own answer cache: both ask the server for every prompt.
        a, b = (ray_nowhere.model_copy(update={"cache_dir": tmp_path / n}) for n in "ab")
        local = _extract(a, "local", spec, trajectories)
        sent = len(server.requests)
        on_ray = _extract(b, "ray", spec, trajectories)
    finally:
        server.close()
    assert len(server.requests) == 2 * sent
    assert on_ray == local
    proposals, episodes, llm = local
    assert llm is not None and llm["patients"] == 5 and llm["model_calls"] == sent
    assert llm["failures"] and llm["relations"] > 0 and episodes == llm["episodes"]
    assert [p["patient_id"] for p in proposals] == sorted(p["patient_id"] for p in proposals)


def test_template_extraction_on_actors_is_the_local_extraction(ray_nowhere: Settings) -> None:
    trajectories = [sample_trajectory(f"p{i}") for i in range(7)]
    local = _extract(ray_nowhere, "local", ExtractorSpec(), trajectories)
    assert local[0] and local[2] is None
    assert _extract(ray_nowhere, "ray", ExtractorSpec(), trajectories) == local


def test_an_offline_model_on_actors_needs_their_gpus(ray_nowhere: Settings) -> None:
    with (
        pytest.raises(ConfigError, match=r"needs a GPU per actor: ray_workers is 2, .* 0 GPU"),
        ENGINES.pick("ray").extraction(ray_nowhere, ExtractorSpec("vllm", model="m"), None),
    ):
        pass
