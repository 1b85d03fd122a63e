"""The ray engine's failures are one line: an actor that cannot reach Neo4j raises the same
kgverify error the local path would (not a Ray traceback), and the pool it was part of is
gone. A real local Ray; no Neo4j (nothing listens on the port)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kgverify.config import Settings
from kgverify.derive.model import Task
from kgverify.derive.pages import QAJob
from kgverify.engines.on_ray import (
    LinkActor,
    QAActor,
    SheetActor,
    VerifyActor,
    _contiguous,
    _Pool,
    start_ray,
)
from kgverify.errors import GraphUnavailableError
from kgverify.review.state import ReviewState
from tests.conftest import free_port


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
