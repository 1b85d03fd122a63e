"""What a verification run reports, and the reader for its input: candidate relations or
linked relations (both JSONL), line by line, bad lines handed back with their number."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from kgverify.extract.relation import CandidateRelation
from kgverify.firstseen import FirstSeen, repeat_of
from kgverify.jsonl import BadLine, loads_line, numbered_lines, reason_of
from kgverify.link.model import LinkedRelation
from kgverify.link.relations import LinkReport
from kgverify.verify.model import Verdict


class VerifyReport(BaseModel):
    """Counts of one run; ``read == verified + rejected`` and, when writing back,
    ``verified == written + not_written``."""

    read: int = 0
    rejected: int = 0
    verified: int = 0
    passed: int = 0
    by_predicate: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="predicate -> verdict -> relations"
    )
    written: int = Field(default=0, description="assertions written back to the graph")
    not_written: int = Field(
        default=0, description="verdicts whose assertion the database refused (in the rejects)"
    )
    not_written_reasons: dict[str, int] = Field(
        default_factory=dict, description="why not written -> verdicts"
    )
    unknown_patients: int = 0
    unknown_encounters: int = 0
    evidence_read: int = Field(
        default=0, description="distinct (subject, object, predicate) triples the rules read"
    )
    evidence_cached: int = Field(
        default=0, description="triple lookups answered from evidence read earlier in the run"
    )
    seconds: float = 0.0
    relations_per_second: float = 0.0
    link: LinkReport | None = Field(default=None, description="linking of unlinked inputs")
    out: str = ""
    rejects: str | None = None

    def count(self, verdicts: Iterable[Verdict]) -> Iterator[Verdict]:
        """Pass verdicts through, counting them."""
        table: dict[str, Counter[str]] = {}
        try:
            for verdict in verdicts:
                self.verified += 1
                self.passed += verdict.passed
                table.setdefault(verdict.relation.predicate.value, Counter())[
                    verdict.verdict.value
                ] += 1
                yield verdict
        finally:  # also when the consumer stops early: the table counts what went through
            self.by_predicate = {p: dict(sorted(c.items())) for p, c in sorted(table.items())}


AnyRelation = CandidateRelation | LinkedRelation


def read_relations_any(
    path: Path, *, seen: FirstSeen | None = None, candidates_only: bool = False
) -> Iterator[AnyRelation | BadLine]:
    """Candidate or linked relations from JSONL; a bad line comes back as a ``BadLine``, and
    so does, given ``seen``, a line repeating a relation_id (naming the first line).
    ``candidates_only`` reads every line as a candidate relation (what `link` takes)."""
    for item in numbered_lines(path):
        if isinstance(item, BadLine):
            yield item
            continue
        number, line = item
        relation = _as_written(line, candidates_only)
        if relation is None:
            try:
                data = loads_line(line)
            except ValueError as exc:
                yield BadLine(number, str(exc), line)
                continue
            linked = not candidates_only and isinstance(data, dict) and "relation" in data
            model: type[AnyRelation] = LinkedRelation if linked else CandidateRelation
            try:
                relation = model.model_validate(data)
            except ValidationError as exc:
                yield BadLine(number, reason_of(exc), line)
                continue
        plain = relation.relation if isinstance(relation, LinkedRelation) else relation
        repeat = repeat_of(seen, plain.relation_id, number, line)
        yield relation if repeat is None else repeat


def _as_written(line: str, candidates_only: bool) -> AnyRelation | None:
    """The line as kgverify writes it, parsed and validated in one pass (pydantic's JSON
    reader, about twice as fast as ``json.loads`` then validation on linked lines); None
    for anything else, which the careful path above then reads or rejects with its reason.
    The model is guessed from the first key (kgverify writes a linked relation's
    ``relation`` first); both models forbid unknown keys, so a wrong guess fails rather
    than reading a line as the other model."""
    linked = not candidates_only and line.startswith('{"relation"')
    model: type[AnyRelation] = LinkedRelation if linked else CandidateRelation
    try:
        return model.model_validate_json(line)
    except ValueError:  # ValidationError included: the careful path decides
        return None
