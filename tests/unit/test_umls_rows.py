"""UMLS concept rows, built from RRF lines without a database."""

from __future__ import annotations

from pathlib import Path

from kgverify.rows import RejectSink, Tally
from loaders import LoadOptions, UmlsLoader
from loaders.base import Row


def _release(tmp_path: Path, conso: list[str]) -> Path:
    meta = tmp_path / "2030AA" / "META"
    meta.mkdir(parents=True)
    (meta / "MRCONSO.RRF").write_text("".join(line + "\n" for line in conso))
    for name in ("MRSTY.RRF", "MRREL.RRF"):
        (meta / name).write_text("")
    return meta.parent


def _rows(release: Path, options: LoadOptions, tmp_path: Path) -> list[Row]:
    loader = UmlsLoader(release, options)
    step = loader.steps()[0]
    return list(step.rows(Tally("MRCONSO.RRF", RejectSink(tmp_path / "r.jsonl"))))


def test_english_preferred_atom_names_the_concept_whatever_the_order(tmp_path: Path) -> None:
    release = _release(
        tmp_path,
        [
            "C0011860|SPA|P|L2|PF|S2|Y|A2||||MSHSPA|MH|D003924|Diabetes Mellitus Tipo 2|3|N|256|",
            "C0011860|ENG|P|L1|PF|S1|Y|A1||||MSH|MH|D003924|Diabetes Mellitus, Type 2|0|N|256|",
            "C0011860|ENG|S|L3|PF|S3|Y|A3|||44054006|SNOMEDCT_US|PT|44054006|T2D|4|N|256|",
        ],
    )
    (row,) = _rows(release, LoadOptions(languages=("ENG", "SPA")), tmp_path)
    assert row["name"] == "Diabetes Mellitus, Type 2"
    assert row["names"] == ["Diabetes Mellitus Tipo 2", "Diabetes Mellitus, Type 2", "T2D"]
    maps = {(m["id"], m["sab"]) for m in row["maps"]}
    assert maps == {("MSH:D003924", "MSH"), ("SNOMEDCT:44054006", "SNOMEDCT_US")}


def test_release_read_from_folder_name(tmp_path: Path) -> None:
    release = _release(tmp_path, [])
    assert UmlsLoader(release).release().id == "UMLS@2030AA"
    assert UmlsLoader(release, LoadOptions(release="2031AB")).release().id == "UMLS@2031AB"


def test_unknown_load_option_is_a_clear_error(tmp_path: Path) -> None:
    import pytest

    from kgverify.api import load_vocabulary
    from kgverify.errors import ConfigError

    with pytest.raises(ConfigError, match="invalid load options"):
        load_vocabulary("umls", _release(tmp_path, []), languagez=("ENG",))
