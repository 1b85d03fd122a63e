"""Dates in what kgverify publishes: exact, or shifted per patient (setting ``derive_dates``).

A record's dates identify a patient as much as a name does (HIPAA Safe Harbor removes every
element of a date but the year). With ``shifted`` (the default), every date in the items,
fact sheets, sample dialogues and review pages written for one patient moves by the same
number of days, 1 to 365 either way, derived from the pseudonym salt and the patient's
pseudonym: intervals, order and weekdays' spacing within a patient stay true, the calendar
does not, and the same patient gets the same shift in every output of an installation (so
an item's visit, ``day:YYYY-MM-DD``, names the same visit as its fact sheet). The graph
keeps the recorded dates: it is the private working store, not an output (docs/runs.md).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from datetime import date, timedelta
from typing import Literal

DateMode = Literal["shifted", "exact"]
MAX_SHIFT_DAYS = 365
_DATE = re.compile(r"(?<![\w@.-])(\d{4})-(\d{2})-(\d{2})(?![\d-])")


def shift_days(salt: str, patient_id: str) -> int:
    """The patient's shift: 1 to ``MAX_SHIFT_DAYS`` days, earlier or later, never 0."""
    key = f"date-shift:{patient_id}".encode()
    n = int.from_bytes(hmac.new(salt.encode(), key, hashlib.sha256).digest()[:4], "big")
    n %= 2 * MAX_SHIFT_DAYS
    return -(n + 1) if n < MAX_SHIFT_DAYS else n - MAX_SHIFT_DAYS + 1


def shift_text(text: str, days: int) -> str:
    """``text`` with every ISO date (``YYYY-MM-DD``, alone or starting a timestamp) moved by
    ``days``; a string that only looks like a date (month 13), or is part of a name (a
    release, ``RXNORM@2025-01-06``), is left as it is."""
    if days == 0:
        return text

    def moved(m: re.Match[str]) -> str:
        try:
            day = date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            return m[0]
        return (day + timedelta(days=days)).isoformat()

    return _DATE.sub(moved, text)


class DateShift:
    """One installation's shifts (``mode`` exact: none)."""

    def __init__(self, mode: DateMode, salt: str) -> None:
        self.mode = mode
        self.salt = salt

    def days(self, patient_id: str) -> int:
        return 0 if self.mode == "exact" else shift_days(self.salt, patient_id)

    def text(self, patient_id: str, text: str) -> str:
        """``text`` written for ``patient_id``, its dates as this installation publishes."""
        return shift_text(text, self.days(patient_id))

    @property
    def described(self) -> str:
        """One line for a dataset card."""
        if self.mode == "exact":
            return "exact, as recorded (derive_dates=exact): share only under the EHR's terms"
        return (
            f"shifted per patient by 1 to {MAX_SHIFT_DAYS} days, earlier or later, the same "
            "shift in every output for one patient (derive_dates=shifted): intervals and "
            "order hold, calendar dates do not"
        )
