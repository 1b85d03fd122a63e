"""The EHR sample (kgverify/sample/omop/eunomia_sample) is an extract of the Eunomia CDM that
kgverify/sample/_generator/omop_sample.py rebuilds byte for byte."""

from __future__ import annotations

from pathlib import Path

from kgverify.sample._generator.omop_sample import main

SHIPPED = Path(__file__).resolve().parents[2] / "kgverify" / "sample" / "omop" / "eunomia_sample"


def test_the_extract_reproduces_the_shipped_ehr_sample(tmp_path: Path) -> None:
    main([str(tmp_path)])

    built = sorted(p.name for p in tmp_path.iterdir())
    assert built == sorted(p.name for p in SHIPPED.iterdir())
    assert len(built) == 7
    differ = [n for n in built if (tmp_path / n).read_bytes() != (SHIPPED / n).read_bytes()]
    assert not differ, f"the extract differs from the shipped EHR sample: {differ}"
    assert sum(1 for _ in (tmp_path / "person.csv").open(encoding="utf-8")) == 40
