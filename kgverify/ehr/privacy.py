"""Pseudonyms and age bands: the only patient identity a trajectory carries.

A pseudonym is the hex prefix of an HMAC-SHA-256 keyed by the salt: the same salt gives the
same id on every run (a re-ingest updates rather than duplicates), while nobody without the
salt can go back to the source id. Ages are 10-year bands computed from the birth year
alone, capped at "90+" as HIPAA Safe Harbor asks; no date of birth is ever kept.
"""

from __future__ import annotations

import hmac
from datetime import date

from kgverify.errors import ConfigError

PSEUDONYM_HEX = 16


def check_salt(salt: str) -> str:
    """Refuse an empty salt: unsalted hashes of small integer ids are trivially reversed."""
    if not salt:
        raise ConfigError("a non-empty pseudonymization salt is required")
    return salt


def pseudonym(salt: str, namespace: str, source_id: str) -> str:
    """The pseudonym of ``source_id`` within ``namespace`` (e.g. ``omop:patient``)."""
    digest = hmac.new(check_salt(salt).encode(), f"{namespace}\x1f{source_id}".encode(), "sha256")
    return digest.hexdigest()[:PSEUDONYM_HEX]


def age_band(birth_year: int | None, on: date | None) -> str | None:
    """``"40-49"``-style band of the age reached in ``on``'s year; ``"90+"`` above 89."""
    if birth_year is None or on is None:
        return None
    age = on.year - birth_year
    if age < 0 or age > 130:
        return None
    if age >= 90:
        return "90+"
    low = age - age % 10
    return f"{low}-{low + 9}"
