"""The dataset card's settings digest: what shapes items changes it, what only decides
speed (reads at once, evidence kept) does not."""

from __future__ import annotations

from kgverify.config import Settings
from kgverify.derive.run import settings_digest


def test_speed_settings_leave_the_digest_alone() -> None:
    base = Settings()
    digest = settings_digest(base)
    for update in ({"verify_parallel": 7}, {"verify_cache": 0}, {"verify_cache": 5}):
        assert settings_digest(base.model_copy(update=update)) == digest


def test_settings_that_shape_items_change_it() -> None:
    base = Settings()
    digest = settings_digest(base)
    for update in ({"derive_seed": 14}, {"verify_distractors": 3}, {"verify_max_depth": 2}):
        assert settings_digest(base.model_copy(update=update)) != digest
