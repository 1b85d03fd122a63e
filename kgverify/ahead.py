"""Work read ahead on threads, results in order: for calls that mostly wait on a server
(a page of records from Neo4j, a patient's record from a FHIR server) while this process
works on the results already in hand."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


@contextmanager
def mapped_ahead(
    call: Callable[[T], R], items: Iterable[T], *, workers: int, ahead: int, name: str
) -> Iterator[Iterator[R]]:
    """``call`` of each item on ``workers`` threads, the results in the items' order. At
    most ``ahead`` calls are started beyond the result being worked on, so memory is bounded
    by the window, not the input; ``items`` is read on the caller's thread. When the block
    ends (also on an error or an early stop), calls not started are dropped and those
    running are waited for; a call's exception comes out where its result would."""
    if workers < 1 or ahead < 1:
        raise ValueError(f"workers and ahead must be at least 1 (got {workers}, {ahead})")
    pool = ThreadPoolExecutor(workers, thread_name_prefix=name)

    def results() -> Iterator[R]:
        window: deque[Future[R]] = deque()
        for item in items:
            window.append(pool.submit(call, item))
            if len(window) > ahead:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()

    try:
        yield results()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
