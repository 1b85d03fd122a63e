"""Owner-only outputs (kgverify/outputs.py): 0600 files and 0700 folders whatever the umask,
the user's own folders left alone, and a path that cannot be written as one error line."""

from __future__ import annotations

import gzip
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgverify.errors import OutputError
from kgverify.jsonl import BadLine, loads_line, read_models_or_rejects, write_models
from kgverify.outputs import make_dir, open_private, private_file, write_private
from kgverify.rows import RejectedRow


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.usefixtures("open_umask")
def test_files_and_made_folders_are_owner_only(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    row = RejectedRow(file="f", line=1, reason="r", text="t")
    write_models([row], tmp_path / "a" / "b" / "rows.jsonl")
    write_models([row], tmp_path / "a" / "rows.jsonl.gz")
    write_private(tmp_path / "c" / "page.html", "<p>")
    with open_private(tmp_path / "c" / "sheet.csv", newline="") as out:
        out.write("x\r\n")
    private_file(tmp_path / "d" / "x.graphml")
    make_dir(tmp_path / "e" / "f")
    for name in ("a/b/rows.jsonl", "a/rows.jsonl.gz", "c/page.html", "c/sheet.csv", "d/x.graphml"):
        assert mode(tmp_path / name) == 0o600, name
    for name in ("a", "a/b", "c", "d", "e", "e/f"):
        assert mode(tmp_path / name) == 0o700, name
    assert mode(tmp_path) == 0o755  # the user's folder
    with gzip.open(tmp_path / "a" / "rows.jsonl.gz", "rt") as f:
        assert '"reason":"r"' in f.read()
    assert (tmp_path / "c" / "sheet.csv").read_bytes() == b"x\r\n"


@pytest.mark.usefixtures("open_umask")
def test_an_earlier_file_is_tightened(tmp_path: Path) -> None:
    old = tmp_path / "old.jsonl"
    old.write_text("x\n")
    old.chmod(0o644)
    write_private(old, "y\n")
    assert mode(old) == 0o600 and old.read_text() == "y\n"


def test_under_a_regular_file_is_one_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError) as refused:
        write_private(blocker / "out.jsonl", "x")
    assert str(refused.value) == f"cannot write {blocker}/out.jsonl: {blocker} is not a folder"
    with pytest.raises(OutputError, match=r"^cannot write .*/file/sub/qa: .*file is not a folder$"):
        make_dir(blocker / "sub" / "qa")


def test_an_unwritable_folder_is_one_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a read-only folder answers (simulated: root is not stopped by modes)."""
    real_open = os.open

    def refuse(path: str | os.PathLike[str], flags: int, mode: int = 0o777) -> int:
        if Path(path).parent.name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", refuse)
    (tmp_path / "locked").mkdir()
    with pytest.raises(OutputError) as refused:
        write_private(tmp_path / "locked" / "verdicts.jsonl", "x")
    assert str(refused.value) == f"cannot write {tmp_path}/locked/verdicts.jsonl: Permission denied"


def test_a_deeply_nested_line_is_a_bad_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        loads_line("[" * 100_000 + "]" * 100_000)
    path = tmp_path / "rows.jsonl"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    [bad] = list(read_models_or_rejects(path, RejectedRow))
    assert isinstance(bad, BadLine) and bad.line == 1
