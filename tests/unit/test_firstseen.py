"""The on-disk first-seen table that link and verify runs use to reject repeated ids."""

from __future__ import annotations

import pytest

from kgverify import firstseen
from kgverify.firstseen import FirstSeen


@pytest.mark.parametrize("every", [1, 3, 10_000])
def test_repeats_name_their_first_line_across_transactions(
    monkeypatch: pytest.MonkeyPatch, every: int
) -> None:
    monkeypatch.setattr(firstseen, "COMMIT_EVERY", every)
    with FirstSeen() as seen:
        assert [seen.first_line(f"id-{n}", n + 1) for n in range(10)] == [None] * 10
        assert seen.first_line("id-2", 11) == 3
        assert seen.first_line("id-9", 12) == 10
        assert seen.first_line("id-10", 13) is None
        assert seen.line_of("id-10") == 13
        with pytest.raises(KeyError):
            seen.line_of("never")
    seen.close()  # a second close is harmless
