"""No shipped text states an age over 89: the evaluation sets' notes and READMEs, the docs
and the stored benchmark outputs say "90+" (the project's privacy rule, README)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXACT_AGE = re.compile(
    r"\b(?:9\d|1[0-1]\d)-year-old|\bage[ds]? (?:9\d|1[0-1]\d)\b(?!\+)",
    re.IGNORECASE,
)


def shipped() -> list[Path]:
    found = [*ROOT.glob("benchmarks/data/*.md"), *ROOT.glob("benchmarks/data/*.jsonl")]
    found += [*ROOT.glob("docs/**/*.md"), *ROOT.glob("docs/benchmarks/*.json")]
    found += [ROOT / "README.md", ROOT / "kgverify/sample/README.md"]
    return [p for p in found if p.is_file()]


def test_no_shipped_text_states_an_age_over_89() -> None:
    files = shipped()
    assert any(p.name.startswith("dialogue_independent") for p in files)  # the sets are read
    hits = [
        f"{p.relative_to(ROOT)}: {m.group(0)}"
        for p in files
        for m in EXACT_AGE.finditer(p.read_text(encoding="utf-8"))
    ]
    assert hits == []


def test_the_pattern_finds_what_it_is_for() -> None:
    assert EXACT_AGE.search("a 93-year-old after a stroke")
    assert EXACT_AGE.search("visit at age 101")
    assert not EXACT_AGE.search("a 90+-year-old after a stroke; age 90+; was 101 F")
