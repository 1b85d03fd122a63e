"""Python's garbage collector tuned for batch work. A batch keeps thousands of records
alive (relations, verdicts, candidates) while it allocates hundreds of thousands of
short-lived objects; at the default young-generation threshold (700 allocations) the
collector runs thousands of times per batch and its full passes walk every live object,
the imported libraries' included. Measured on 39,993 linked relations read in batches of
5,000 (docs/benchmarks.md): 5.1 s at the default, 2.3 s with the young threshold here."""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

YOUNG = 10_000
"""Allocations between young-generation collections during batch work (default 700)."""

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The young threshold raised for the block (never lowered); the caller's setting is
    restored after it."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], YOUNG), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def batch_work(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` runs under :func:`fewer_collections` (the API's file and graph runs)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with fewer_collections():
            return fn(*args, **kwargs)

    return wrapper
