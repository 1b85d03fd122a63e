"""Docs that must stay true: every setting is documented with its variable."""

from __future__ import annotations

from pathlib import Path

from kgverify.config import Settings

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_setting_is_documented() -> None:
    text = (DOCS / "configuration.md").read_text()
    for name, field in Settings.model_fields.items():
        assert f"`{name}`" in text, name
        alias = field.validation_alias
        variable = (
            alias.choices[0]
            if alias is not None and hasattr(alias, "choices")
            else f"KGVERIFY_{name.upper()}"
        )
        assert f"`{variable}`" in text, (name, variable)


def test_every_query_folder_is_described_in_the_architecture() -> None:
    text = (DOCS / "architecture.md").read_text()
    folders = sorted(p.name for p in (DOCS.parent / "queries").iterdir() if p.is_dir())
    assert {"schema", "load", "link", "verify"} <= set(folders)
    for folder in folders:
        assert f"`{folder}/`" in text, folder


def test_every_audit_query_is_in_the_audit_guide() -> None:
    text = (DOCS / "audit.md").read_text()
    names = sorted(p.stem for p in (DOCS.parent / "queries" / "audit").glob("*.cypher"))
    assert len(names) >= 10
    for name in names:
        assert f"| `{name}` |" in text, name
