"""Recovery detection in Neo4j's debug.log and the start deadline it moves (no server).

The log lines are a real recovery's (tests/fixtures/neo4j_recovery/debug.log); the real
kill-and-restart is tests/e2e/test_recovery.py.
"""

from __future__ import annotations

from pathlib import Path

from kgverify.server.local import RecoveryLog, StartWatch, _LogTail

LOG = Path(__file__).resolve().parents[1] / "fixtures" / "neo4j_recovery" / "debug.log"


def _lines() -> list[str]:
    return LOG.read_text().splitlines()


def _upto(text: str) -> list[str]:
    """The real log up to and including the first line containing ``text``."""
    lines = _lines()
    end = next(i for i, line in enumerate(lines) if text in line)
    return lines[: end + 1]


def test_a_real_recovery_log_is_followed_database_by_database() -> None:
    recovery = RecoveryLog()
    for line in _upto("[neo4j/4e97d140]  40% completed"):
        recovery.feed(line)
    assert recovery.active
    assert recovery.describe() == "system done, neo4j 40% replayed"
    for line in _lines():
        recovery.feed(line)
    assert not recovery.active and recovery.done == {"system", "neo4j"}


def test_only_recovery_lines_count_as_progress() -> None:
    recovery = RecoveryLog()
    moved = [line for line in _lines() if recovery.feed(line)]
    # Per database: required (once, though two lines say so), ten steps, completed.
    assert len(moved) == 2 * 12
    assert not any("Schema index" in line or "Checkpoint" in line for line in moved)
    again = RecoveryLog(percent=dict(recovery.percent), done=set(recovery.done))
    assert not any(again.feed(line) for line in _lines())  # nothing new the second time


def test_the_checkpoint_quoting_recovery_completed_is_not_completion() -> None:
    recovery = RecoveryLog()
    checkpoint = next(line for line in _lines() if 'triggered by "Recovery completed."' in line)
    required = next(line for line in _lines() if "] Recovery required from" in line)
    recovery.feed(required)
    assert recovery.feed(checkpoint) is False and recovery.active


def test_progress_moves_the_deadline_and_silence_ends_it() -> None:
    timeout = 180.0
    watch = StartWatch(timeout, now=0.0)
    steps = [line for line in _lines() if "[neo4j/" in line and "% completed" in line]
    assert watch.observe(["... INFO  [o.n.k.d.Database] [neo4j/4e97d140] Starting"], 100) is None
    assert watch.expired(180.0)  # ordinary start-up lines never extend it
    required = [line for line in _lines() if "[neo4j/" in line and "Recovery required" in line]
    # A recovery whose steps come 150 s apart runs far past 180 s and is still waited for.
    message = watch.observe(required, 150.0)
    assert message == "database recovery in progress (neo4j 0% replayed); waiting"
    for i, step in enumerate(steps[:5], start=2):
        assert watch.observe([step], 150.0 * i) is not None
        assert not watch.expired(150.0 * i + timeout - 1)
    assert watch.observe([steps[4]], 1000.0) is None  # a repeated step is not progress
    assert watch.expired(150.0 * 6 + timeout)
    assert watch.recovery.active and "50% replayed" in watch.recovery.describe()


def test_completion_is_told_and_restarts_the_clock() -> None:
    watch = StartWatch(10.0, now=0.0)
    message = watch.observe(_lines(), 5.0)
    assert message == "database recovery completed (system done, neo4j done); finishing start"
    assert not watch.expired(14.0) and watch.expired(15.0)


def test_log_tail_reads_whole_lines_and_a_rotated_file_anew(tmp_path: Path) -> None:
    path = tmp_path / "debug.log"
    path.write_text("old line\n")
    tail = _LogTail(path, path.stat().st_size)
    assert tail.lines() == []
    with path.open("a") as f:
        f.write("first\nhalf")
    assert tail.lines() == ["first"]
    with path.open("a") as f:
        f.write(" done\n")
    assert tail.lines() == ["half done"]
    path.write_text("rotated\n")  # smaller than what was read: a new file
    assert tail.lines() == ["rotated"]
    assert _LogTail(tmp_path / "missing.log", 0).lines() == []
