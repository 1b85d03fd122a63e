"""The sample generator (kgverify/sample/_generator) rebuilds the shipped vocabularies and their
README byte for byte, so the curated tables, not hand edits of the files, are what changes them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgverify.sample._generator import common_terms
from kgverify.sample._generator.build import main
from kgverify.sample._generator.common import UmlsConcept

SAMPLE = Path(__file__).resolve().parents[2] / "kgverify" / "sample"
BUILT = ("umls", "snomed", "rxnorm")


def _files(root: Path) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for folder in BUILT
        for p in (root / folder).rglob("*")
        if p.is_file()
    }


def test_the_generator_reproduces_the_shipped_sample(tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    main([str(tmp_path), "--manifest", str(manifest)])

    built = _files(tmp_path)
    # Every shipped vocabulary file is generated, and nothing else is.
    assert built == _files(SAMPLE)
    assert len(built) == 27
    differ = [
        name
        for name in sorted(built | {"README.md"})
        if (tmp_path / name).read_bytes() != (SAMPLE / name).read_bytes()
    ]
    assert not differ, f"rebuilt differs from the shipped sample: {differ}"
    assert manifest.stat().st_size > 0


def test_a_common_term_never_shadows_an_earlier_sample_name() -> None:
    """The fourth pass's concepts (no patient has them) must not take a name a sample concept
    already has: the record's concept would become ambiguous with one nothing reaches."""
    made: list[UmlsConcept] = []

    def ucon(key: str, cui: str, src: str, stys: list[str]) -> UmlsConcept:
        made.append(UmlsConcept(f"C99{len(made):05d}"))
        return made[-1]

    def atom(u: UmlsConcept, sab: str, tty: str, code: str, s: str, **_: str) -> dict[str, str]:
        u.atoms.append({"str": s, "sab": sab, "tty": tty, "code": code})
        return u.atoms[-1]

    cuis = common_terms.add_common_concepts(ucon, atom, {"anemia"}, 9_900_000_500)
    assert len(cuis) == len(common_terms.every()) and made[0].atoms[0]["tty"] == "PT"
    assert len({a["code"] for u in made for a in u.atoms}) == len(made)  # one CHV code each
    with pytest.raises(ValueError, match="'gout'"):
        common_terms.add_common_concepts(ucon, atom, {"gout"}, 9_900_000_500)
