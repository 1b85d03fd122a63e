"""Hostile input without a server: a byte that is not UTF-8 costs one line, reject files
holding patient rows are owner-only, search text cannot break the full-text query, and the
driver's and LLM client's logs stay shut unless asked for with -vvv."""

from __future__ import annotations

import gzip
import json
import logging
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgverify.api import extract_relations, sample_path
from kgverify.cli import WIRE_LOGGERS, configure_logging, lucene_words
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.extract.relation import CandidateRelation, read_relations
from kgverify.jsonl import BadLine, read_models
from kgverify.link.relations import Contexts
from kgverify.rows import RejectedRow, RejectSink
from kgverify.verify.report import read_relations_any

RELATIONS = sample_path("relations", "llm_style.jsonl")


def _with_bad_byte(tmp_path: Path, name: str = "rel.jsonl") -> Path:
    """Three sample relations; the second has one byte that is not UTF-8 in a mention."""
    lines = RELATIONS.read_bytes().splitlines(keepends=True)[:3]
    assert b'"text":"aspirin"' in lines[1]
    lines[1] = lines[1].replace(b'"text":"aspirin"', b'"text":"aspi\xffrin"', 1)
    path = tmp_path / name
    data = b"".join(lines)
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


@pytest.mark.parametrize("name", ["rel.jsonl", "rel.jsonl.gz"])
def test_a_bad_byte_rejects_its_line_and_the_rest_is_read(tmp_path: Path, name: str) -> None:
    path = _with_bad_byte(tmp_path, name)
    for read in (read_relations, read_relations_any):
        items = list(read(path))
        assert len(items) == 3
        assert isinstance(items[0], CandidateRelation) and isinstance(items[2], CandidateRelation)
        bad = items[1]
        assert isinstance(bad, BadLine)
        assert bad.line == 2
        assert bad.reason.startswith("invalid UTF-8: byte ")
        assert '"text":"aspi\ufffdrin"' in bad.text and not bad.text.endswith("\n")


def test_an_invalid_line_carries_its_text(tmp_path: Path) -> None:
    path = tmp_path / "rel.jsonl"
    path.write_text('\n{"relation_id": 1}\nnot json\n', encoding="utf-8")
    items = list(read_relations_any(path))
    assert all(isinstance(i, BadLine) for i in items)
    assert [(i.line, i.text) for i in items if isinstance(i, BadLine)] == [
        (2, '{"relation_id": 1}'),
        (3, "not json"),
    ]
    assert "invalid JSON: Expecting value" in str(items[1])


def test_strict_reader_names_the_line_of_a_bad_byte(tmp_path: Path) -> None:
    path = _with_bad_byte(tmp_path)
    with pytest.raises(ValueError, match=r"line 2: invalid UTF-8"):
        list(read_models(path, CandidateRelation))


def test_a_bad_trajectories_file_is_one_config_error(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\xff{}\n")
    with pytest.raises(ConfigError, match=r"t\.jsonl: line 1: invalid UTF-8: byte 0$"):
        Contexts.from_file(path)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_reject_files_and_their_new_folders_are_owner_only(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    target = tmp_path / "new" / "deeper" / "rejects.jsonl"
    old = tmp_path / "old.jsonl"
    old.write_text("")
    old.chmod(0o644)
    for path in (target, old):
        sink = RejectSink(path)
        sink.write(RejectedRow(file="person", line=2, reason="r", text="person_id=1"))
        sink.close()
        assert _mode(path) == 0o600
    assert _mode(target.parent) == 0o700
    assert _mode(tmp_path) == 0o755  # a folder that was there is the caller's


def test_extract_rejects_of_patient_rows_are_owner_only(tmp_path: Path) -> None:
    source = tmp_path / "omop"
    shutil.copytree(sample_path("omop", "eunomia_sample"), source)
    with (source / "person.csv").open("a", encoding="utf-8") as person:
        person.write("999999,8532,abcd,2,13,1974-02-13,8527,0,,,,src-999999,F,0,white,0,irish,0\n")
    cache = tmp_path / "cache"
    (cache / "rejects").mkdir(parents=True)
    (cache / "rejects").chmod(0o755)  # as an earlier version left it
    settings = Settings(cache_dir=cache, pseudonym_salt="salt")  # no salt file made
    result = extract_relations("omop", source, tmp_path / "out" / "r.jsonl", settings=settings)
    assert result.rejects is not None
    rejects = Path(result.rejects)
    assert rejects.parent == cache / "rejects"
    [row] = [json.loads(line) for line in rejects.read_text().splitlines()]
    assert "999999" in row["text"]  # a raw source row: the reason it must be private
    assert _mode(rejects) == 0o600
    assert _mode(rejects.parent) == 0o700


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("heart attack", "heart attack"),
        ('a"b', 'a\\"b'),
        ("1/2", "1\\/2"),
        ("NOT (x) AND y~", "not \\(x\\) and y\\~"),
        ("a\\b", "a\\\\b"),
    ],
)
def test_search_text_is_plain_words(text: str, query: str) -> None:
    assert lucene_words(text) == query


@pytest.fixture
def wire_levels() -> Iterator[None]:
    """configure_logging sets process-wide levels and handlers: put them back."""
    root = logging.getLogger()
    handlers = list(root.handlers)
    saved = {name: logging.getLogger(name).level for name in (*WIRE_LOGGERS, "nmslib", "")}
    yield
    root.handlers[:] = handlers
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


@pytest.mark.usefixtures("wire_levels")
@pytest.mark.parametrize(("verbose", "debug", "warning"), [(0, False, False), (2, False, True)])
def test_wire_loggers_stay_shut_below_vvv(verbose: int, debug: bool, warning: bool) -> None:
    logging.getLogger().setLevel(logging.DEBUG)  # as -vv leaves the root (pytest owns handlers)
    configure_logging(verbose)
    for name in WIRE_LOGGERS:
        assert logging.getLogger(name).isEnabledFor(logging.DEBUG) is debug
        assert logging.getLogger(name).isEnabledFor(logging.WARNING) is warning
        assert not logging.getLogger(name).isEnabledFor(logging.CRITICAL) or verbose


def _careful(line: str, candidates_only: bool) -> object:
    """The reading ``read_relations_any`` promises, spelled the slow way: the line's JSON,
    the model its keys name, validated; a ``BadLine``'s reason where that fails."""
    from pydantic import ValidationError

    from kgverify.jsonl import loads_line, reason_of
    from kgverify.link.model import LinkedRelation

    try:
        data = loads_line(line)
    except ValueError as exc:
        return str(exc)
    linked = not candidates_only and isinstance(data, dict) and "relation" in data
    try:
        return (LinkedRelation if linked else CandidateRelation).model_validate(data)
    except ValidationError as exc:
        return reason_of(exc)


def test_the_one_pass_read_of_written_lines_reads_what_the_careful_read_does(
    tmp_path: Path,
) -> None:
    """Lines as kgverify writes them are read in one pass (pydantic's JSON reader); every
    other line, reordered, odd or bad, must come out exactly as the careful read has it."""
    from kgverify.link.model import LinkedRelation, LinkStatus, MentionLink

    relation = next(r for r in read_relations(RELATIONS) if isinstance(r, CandidateRelation))
    link = MentionLink(status=LinkStatus.LINKED, concept_id="UMLS:C0002645", query="x")
    linked = LinkedRelation(relation=relation, subject=link, object=link, index="i")
    written = linked.model_dump_json()
    as_dict = json.loads(written)
    reordered = json.dumps({k: as_dict[k] for k in reversed(list(as_dict))})
    candidate = relation.model_dump_json()
    with_relation_key = json.dumps({**json.loads(candidate), "relation": {}})
    lines = [
        written,
        reordered,
        candidate,
        with_relation_key,
        candidate.replace('"confidence":0.', '"confidence":NaN, "x":0.', 1),
        candidate.replace("{", '{"patient_id":"other",', 1),  # a key twice: the last counts
        candidate.replace('"confidence":', '"confidence":"0.5","c":', 1),
        '{"relation": 1}',
        "[1, 2]",
        "{",
    ]
    assert len(set(lines)) == len(lines), "a planted change did not apply"
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for candidates_only in (False, True):
        got = list(read_relations_any(path, candidates_only=candidates_only))
        assert len(got) == len(lines)
        for line, item in zip(lines, got, strict=True):
            expected = _careful(line, candidates_only)
            if isinstance(item, BadLine):
                assert item.reason == expected, line
            else:
                assert item == expected, line
    assert isinstance(next(iter(read_relations_any(path))), LinkedRelation)
