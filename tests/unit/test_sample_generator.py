"""The sample generator (kgverify/sample/_generator) rebuilds the shipped vocabularies and their
README byte for byte, so the curated tables, not hand edits of the files, are what changes them.
"""

from __future__ import annotations

from pathlib import Path

from kgverify.sample._generator.build import main

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
