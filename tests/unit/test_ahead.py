"""``kgverify.ahead.mapped_ahead``: results in the items' order whatever order the calls
finish in, a bounded window, errors where their result would be, and an early stop that
starts nothing more."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from kgverify.ahead import mapped_ahead


def test_results_come_in_the_items_order_when_later_calls_finish_first() -> None:
    finished: list[int] = []

    def slow_first(i: int) -> int:
        time.sleep(0.05 if i % 4 == 0 else 0.001)  # each window's first call finishes last
        finished.append(i)
        return i * i

    with mapped_ahead(slow_first, range(20), workers=4, ahead=8, name="t") as results:
        got = list(results)
    assert got == [i * i for i in range(20)]
    assert finished != sorted(finished)  # the calls did finish out of order


def test_the_window_bounds_the_calls_started_beyond_the_result_in_hand() -> None:
    read: list[int] = []
    started: list[int] = []
    lock = threading.Lock()

    def items() -> Iterator[int]:
        for i in range(50):
            read.append(i)
            yield i

    def call(i: int) -> int:
        with lock:
            started.append(i)
        return i

    with mapped_ahead(call, items(), workers=2, ahead=3, name="t") as results:
        for got in results:
            # the items read are this result, the three ahead of it, and no more
            assert max(read) <= got + 3
            assert max(started, default=-1) <= got + 3
    assert read == list(range(50))


def test_a_calls_error_comes_out_where_its_result_would() -> None:
    def call(i: int) -> int:
        if i == 5:
            raise ValueError("five")
        return i

    got: list[int] = []
    with (
        pytest.raises(ValueError, match="five"),
        mapped_ahead(call, range(10), workers=3, ahead=3, name="t") as results,
    ):
        got.extend(results)
    assert got == [0, 1, 2, 3, 4]


def test_stopping_early_starts_nothing_more() -> None:
    started: list[int] = []
    lock = threading.Lock()

    def call(i: int) -> int:
        with lock:
            started.append(i)
        time.sleep(0.01)
        return i

    with mapped_ahead(call, range(1_000), workers=2, ahead=4, name="t") as results:
        assert next(results) == 0
    done = len(started)
    time.sleep(0.05)
    assert len(started) == done <= 6  # the first result and the window ahead of it


def test_one_worker_one_ahead_is_the_read_ahead_of_derivation() -> None:
    active = 0
    most = 0
    lock = threading.Lock()

    def call(i: int) -> int:
        nonlocal active, most
        with lock:
            active += 1
            most = max(most, active)
        time.sleep(0.002)
        with lock:
            active -= 1
        return i

    with mapped_ahead(call, range(10), workers=1, ahead=1, name="t") as results:
        assert list(results) == list(range(10))
    assert most == 1


def test_a_window_of_nothing_is_refused() -> None:
    with (
        pytest.raises(ValueError, match="at least 1"),
        mapped_ahead(str, [1], workers=0, ahead=1, name="t"),
    ):
        pass
