"""Python's garbage collector tuned for batch work. A batch keeps thousands of records
alive (relations, verdicts, candidates) while it allocates hundreds of thousands of
short-lived objects; at the default young-generation threshold (700 allocations) the
collector runs thousands of times per batch and its full passes walk every live object,
the imported libraries' included. Measured on 39,993 linked relations read in batches of
5,000 (docs/benchmarks.md): 5.1 s at the default, 2.3 s at these thresholds."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG = 10_000
"""Allocations between young-generation collections during batch work (default 700)."""

OLDER = (10, 10)
"""Young collections per middle one, and middle per full one (the defaults)."""


def for_batch_runs() -> None:
    """Set for the whole process: what a CLI run does before its stage starts."""
    gc.set_threshold(YOUNG, *OLDER)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The young threshold raised for one batch only (library calls: the caller's setting
    is restored)."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], YOUNG), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
