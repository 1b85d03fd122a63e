"""The clinician review loop on the sample, in the real Neo4j: derive, export pages and a
sheet, fill it as a reviewer would with the csv module (reject one item, veto one distractor
with a reason over two lines, write "false" beside one relation's label, accept a few),
import, and check the Review nodes, the flags, the assertion marks, the state derivation
reads and the review_coverage audit against what the sheet said; import again (the same
graph); bad sheets (rejects cited by the row a spreadsheet shows, exit 3 after the valid
rows are imported; one error line when nothing is valid); a changed sheet retracts; the
pages read as sentences; a round trip through the command line."""

from __future__ import annotations

import csv
import html
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgverify.api import (
    audit,
    derive_qa,
    review_export,
    review_import,
    review_state,
)
from kgverify.audit.reverify import REVIEW_FLAG_PREFIX
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.derive import QAItem, read_items
from kgverify.errors import ConfigError
from kgverify.graph import Graph
from kgverify.review import COLUMNS, ReviewExportReport, ReviewImportReport, ReviewSheetError
from kgverify.review.export import pick
from tests.e2e.helpers import fingerprint, rows, value, verified_sample_ehr

pytestmark = pytest.mark.neo4j

REVIEWER = "dr-test"


@dataclass
class Derived:
    settings: Settings
    graph: Graph
    qa: Path
    items: list[QAItem]


@pytest.fixture(scope="module")
def derived(
    sample_graph: Graph, sample_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Derived:
    tmp = tmp_path_factory.mktemp("review")
    verified_sample_ehr(sample_graph, sample_settings, tmp)
    derive_qa(tmp / "qa", settings=sample_settings, graph=sample_graph)
    items = list(read_items(tmp / "qa"))
    assert len(items) >= 10
    return Derived(sample_settings, sample_graph, tmp / "qa", items)


@dataclass
class Exported:
    out: Path
    report: ReviewExportReport


@pytest.fixture(scope="module")
def exported(derived: Derived, tmp_path_factory: pytest.TempPathFactory) -> Exported:
    out = tmp_path_factory.mktemp("export") / "review"
    report = review_export(out, qa=derived.qa, settings=derived.settings, graph=derived.graph)
    return Exported(out, report)


def read_sheet_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def write_sheet_rows(path: Path, sheet_rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(sheet_rows)


def item_rows(sheet_rows: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    """Each item's own row (its relation rows carry an assertion_id)."""
    return {r["item_id"]: r for r in sheet_rows if not r["assertion_id"]}


def relation_row(sheet_rows: list[dict[str, str]], item: str, assertion: str) -> dict[str, str]:
    [found] = [r for r in sheet_rows if r["item_id"] == item and r["assertion_id"] == assertion]
    return found


def spreadsheet_row(sheet_rows: list[dict[str, str]], row: dict[str, str]) -> int:
    """The row a spreadsheet shows for a DictReader row (the header is row 1)."""
    return next(n for n, r in enumerate(sheet_rows, 2) if r is row)


def distractors(item: QAItem) -> list[tuple[str, str, str]]:
    return [(o.label, o.concept_id, o.text) for o in item.options if o.label != item.answer]


@dataclass
class Filled:
    sheet: Path
    rejected: QAItem
    vetoed: QAItem
    veto: tuple[str, str, str]  # label, concept, text
    judged: QAItem
    assertion: str
    accepted: list[QAItem]
    filled: int
    expected_flags: dict[str, set[str]] = field(default_factory=dict)  # item -> kinds
    rows: int = 0  # data rows of the sheet: one per item and one per relation it rests on


@pytest.fixture(scope="module")
def filled(derived: Derived, exported: Exported) -> Filled:
    """The reviewer's sheet: one reject, one accept with a veto (on a distractor shared with
    other items of its task and topic, when the sample has one), one relation judged false,
    two plain accepts."""
    items = derived.items
    shared = Counter((i.task, i.topic, c) for i in items for _, c, _ in distractors(i))
    vetoed = max(
        items,
        key=lambda i: (max(shared[(i.task, i.topic, c)] for _, c, _ in distractors(i)), i.item_id),
    )
    veto = max(distractors(vetoed), key=lambda d: (shared[(vetoed.task, vetoed.topic, d[1])], d[0]))
    by_veto = {
        i.item_id
        for i in items
        if i.task == vetoed.task
        and i.topic == vetoed.topic
        and veto[1] in {c for _, c, _ in distractors(i)}
    }
    rest = [i for i in items if i.item_id not in by_veto]
    rejected = next(i for i in rest if i.task.value == "treatment")
    judged = next(i for i in rest if i.item_id != rejected.item_id and i.basis)
    assertion = judged.basis[0]
    by_relation = {i.item_id for i in items if assertion in i.basis}
    by_reject = {i.item_id for i in items if i.content_key == rejected.content_key} | {
        rejected.item_id
    }
    taken = by_veto | by_relation | by_reject | {vetoed.item_id}
    accepted = [i for i in items if i.item_id not in taken][:2]
    assert len(accepted) == 2
    sheet_rows = read_sheet_rows(exported.out / "sheet.csv")
    by_id = item_rows(sheet_rows)
    by_id[rejected.item_id].update(decision="reject", reviewer=REVIEWER, notes="stem gives it away")
    by_id[vetoed.item_id].update(
        decision="accept",
        veto_labels=veto[0],
        veto_reason="second line option, defensible\nper the local guideline",
        reviewer=REVIEWER,
    )
    # The relation is judged where the sheet names it in words, no id pasted.
    judged_row = relation_row(sheet_rows, judged.item_id, assertion)
    assert " — " in judged_row["relation"]
    judged_row.update(decision="false", reviewer=REVIEWER)
    for item in accepted:
        by_id[item.item_id].update(decision="ACCEPT")  # reviewer from --reviewer
    sheet = exported.out / "sheet.csv"
    write_sheet_rows(sheet, sheet_rows)
    expected: dict[str, set[str]] = {}
    for ids, kind in ((by_reject, "rejected"), (by_veto, "vetoed"), (by_relation, "judged")):
        for item_id in ids:
            expected.setdefault(item_id, set()).add(kind)
    return Filled(
        sheet,
        rejected,
        vetoed,
        veto,
        judged,
        assertion,
        accepted,
        5,
        expected_flags=expected,
        rows=len(sheet_rows),
    )


@dataclass
class Imported:
    first: ReviewImportReport
    second: ReviewImportReport
    before: tuple[int, int, str]
    after: tuple[int, int, str]


@pytest.fixture(scope="module")
def imported(derived: Derived, filled: Filled) -> Imported:
    first = review_import(
        filled.sheet, reviewer=REVIEWER, settings=derived.settings, graph=derived.graph
    )
    before = fingerprint(derived.graph)
    second = review_import(
        filled.sheet, reviewer=REVIEWER, settings=derived.settings, graph=derived.graph
    )
    return Imported(first, second, before, fingerprint(derived.graph))


# -- export ----------------------------------------------------------------------------------


def test_export_writes_a_page_per_item_an_index_and_the_sheet(
    derived: Derived, exported: Exported, tmp_path: Path
) -> None:
    report, out = exported.report, exported.out
    assert report.items_read == len(derived.items) == report.pages
    assert report.exported == dict(Counter(i.task.value for i in derived.items))
    assert report.skipped == {} and report.edges > 0
    pages = sorted(p.stem for p in (out / "items").glob("*.html"))
    assert pages == sorted(i.item_id for i in derived.items)
    index = (out / "index.html").read_text()
    assert all(f'href="items/{p}.html"' in index for p in pages)
    sheet_rows = read_sheet_rows(out / "sheet.csv")
    seed = derived.settings.derive_seed
    ordered = pick(derived.items, None, seed)
    assert list(item_rows(sheet_rows)) == [i.item_id for i in ordered]
    assert set(sheet_rows[0]) == set(COLUMNS) and all(not r["decision"] for r in sheet_rows)
    # Each item's row, then one row per relation it rests on, named beside its id.
    assert [(r["item_id"], r["assertion_id"]) for r in sheet_rows] == [
        pair for i in ordered for pair in [(i.item_id, ""), *((i.item_id, a) for a in i.basis)]
    ]
    for item in ordered:
        first = relation_row(sheet_rows, item.item_id, item.basis[0])
        subject, predicate, obj = first["relation"].split(" — ")
        assert predicate in ("may treat", "may indicate", "may lead to")
        # Concepts by name, never by id (a vocabulary prefix and a code).
        assert not any(re.fullmatch(r"[A-Z]+:\S+", n) for n in (subject, obj)), first
        assert not first["question"] and not first["decision"]
    readme = (out / "README.txt").read_text()
    assert "true (the relation holds)" in readme and "relation_decisions" not in readme
    # Same QA folder, graph and seed: the same bytes.
    again = review_export(
        tmp_path / "again", qa=derived.qa, settings=derived.settings, graph=derived.graph
    )
    for name in ("index.html", "sheet.csv", "README.txt", *(f"items/{p}.html" for p in pages)):
        assert (out / name).read_bytes() == (Path(again.out) / name).read_bytes(), name
    with pytest.raises(ConfigError, match="exists and is not empty"):
        review_export(out, qa=derived.qa, settings=derived.settings, graph=derived.graph)


def test_a_page_shows_the_evidence_with_names_sources_and_releases(
    derived: Derived, exported: Exported
) -> None:
    item = next(i for i in derived.items if i.task.value == "treatment")
    page = (exported.out / "items" / f"{item.item_id}.html").read_text()
    assert "<script" not in page.lower() and "http" not in page
    answer = next(o for o in item.options if o.label == item.answer)
    assert "the answer" in page and answer.concept_id in page
    for why in item.why_wrong:
        assert why.concept_id in page
        for j in why.justifications:
            assert f"{j.rule}@{j.version}" in page
    for assertion in item.basis:
        assert assertion in page
    # An evidence edge drawn as "Name id -[TYPE, SAB, RELEASE]-> Name id", sources from the graph.
    edge = value(
        derived.graph,
        "MATCH (:Item {id: $id})-[:RESTS_ON]->(a:Assertion) UNWIND a.evidence_edges AS e "
        "RETURN e ORDER BY e LIMIT 1",
        id=item.item_id,
    )
    start, rel, end = edge.split("|")
    source = rows(
        derived.graph,
        "MATCH (a:Concept {id: $s})-[r]->(b:Concept {id: $e}) WHERE type(r) = $t "
        "RETURN a.name AS a, b.name AS b, r.sab AS sab, r.first_release AS rel "
        "ORDER BY r.sab, r.first_release LIMIT 1",
        s=start,
        e=end,
        t=rel,
    )[0]
    plain = re.sub(r"<[^>]+>", "", page).replace("&gt;", ">")
    assert f"{source['a']} {start} -[{rel}, {source['sab']}, {source['rel']}" in plain, plain[:3000]
    assert f"]-> {source['b']} {end}" in plain
    for fact in item.context:
        assert fact.fact_id in page


# -- import ----------------------------------------------------------------------------------


def test_import_counts_reconcile_and_reviews_are_written(
    derived: Derived, filled: Filled, imported: Imported
) -> None:
    report = imported.first
    assert report.rows == filled.rows > len(derived.items)
    assert (report.imported, report.rejected, report.rejects) == (filled.filled, 0, [])
    assert report.blank == report.rows - filled.filled and report.round == 1
    assert report.reviews == {"accept": 3, "reject": 1, "relation_false": 1, "veto": 1}
    assert report.created == 6 and report.assertions_judged == 1
    assert report.items_flagged == len(filled.expected_flags)
    reviews = rows(
        derived.graph,
        "MATCH (v:Review)-[:ON_ITEM]->(i:Item) RETURN v.decision AS d, v.reviewer AS who, "
        "v.round AS round, v.task AS task, v.topic AS topic, v.content_key AS key, "
        "i.id AS item, v.concept AS concept, v.reason AS reason, v.at IS NOT NULL AS at",
    )
    assert len(reviews) == 6
    assert {r["who"] for r in reviews} == {REVIEWER} and {r["round"] for r in reviews} == {1}
    assert all(r["at"] and r["task"] and r["topic"] and r["key"] for r in reviews)
    [veto] = [r for r in reviews if r["d"] == "veto"]
    assert veto["item"] == filled.vetoed.item_id and veto["concept"] == filled.veto[1]
    assert veto["topic"] == filled.vetoed.topic
    assert veto["reason"] == "second line option, defensible\nper the local guideline"
    assert (
        value(
            derived.graph,
            "MATCH (v:Review {decision: 'veto'})-[:VETOES]->(c:Concept) RETURN c.id",
        )
        == filled.veto[1]
    )
    marked = rows(
        derived.graph,
        "MATCH (v:Review)-[:ON_ASSERTION]->(a:Assertion) "
        "RETURN a.id AS a, a.review AS review, a.review_id = v.id AS same",
    )
    assert marked == [{"a": filled.assertion, "review": "false", "same": True}]


def test_the_items_a_decision_takes_away_are_flagged(
    derived: Derived, filled: Filled, imported: Imported
) -> None:
    flagged = {
        r["id"]: r
        for r in rows(
            derived.graph,
            "MATCH (i:Item {current: true}) WHERE any(f IN i.flags WHERE f STARTS WITH $p) "
            "RETURN i.id AS id, i.standing AS standing, i.flags AS flags",
            p=REVIEW_FLAG_PREFIX,
        )
    }
    assert set(flagged) == set(filled.expected_flags)
    assert not any(r["standing"] for r in flagged.values())
    label, _, text = filled.veto
    assert any(
        f.startswith(f"review: a reviewer vetoed distractor {label} (")
        and f"({text.lower()}) as a defensible answer" in f.lower()
        and f.endswith(")")
        and "second line option, defensible" in f
        for f in flagged[filled.vetoed.item_id]["flags"]
    ), flagged[filled.vetoed.item_id]["flags"]
    assert any(
        f.startswith("review: a reviewer rejected the item: stem gives it away (review ")
        for f in flagged[filled.rejected.item_id]["flags"]
    )
    assert any(
        f.startswith(f"review: a reviewer judged relation {filled.assertion} false (")
        for f in flagged[filled.judged.item_id]["flags"]
    )
    for item_id, kinds in filled.expected_flags.items():
        assert len(flagged[item_id]["flags"]) == len(kinds), (item_id, flagged[item_id])
    for item in filled.accepted:
        assert value(derived.graph, "MATCH (i:Item {id: $id}) RETURN i.standing", id=item.item_id)


def test_the_state_reads_back_what_import_wrote(
    derived: Derived, filled: Filled, imported: Imported
) -> None:
    state = review_state(settings=derived.settings, graph=derived.graph)
    ids = {
        r["d"]: r["id"]
        for r in rows(derived.graph, "MATCH (v:Review) RETURN v.decision AS d, v.id AS id")
        if r["d"] != "accept"
    }
    assert len(state) == 6 and state.counts == {
        "accept": 3,
        "reject": 1,
        "relation_false": 1,
        "veto": 1,
    }
    v = filled.vetoed
    assert state.vetoed(v.task.value, v.topic, filled.veto[1]) == ids["veto"]
    assert state.vetoed(v.task.value, v.topic, v.answer_concept) is None
    other_task = "prognosis" if v.task.value != "prognosis" else "diagnosis"
    assert state.vetoed(other_task, v.topic, filled.veto[1]) is None
    assert state.rejected(filled.rejected.content_key) == ids["reject"]
    assert state.rejected(filled.accepted[0].content_key) is None
    assert state.accepted(filled.accepted[0].content_key) is not None
    judged = state.relation(filled.assertion)
    assert judged is not None and not judged.true and judged.review == ids["relation_false"]


def test_review_coverage_counts_what_the_sheet_said(
    derived: Derived, filled: Filled, imported: Imported, cli_env: Settings
) -> None:
    found = {
        r["task"]: r
        for r in audit("review_coverage", settings=derived.settings, graph=derived.graph)
    }
    tasks = Counter(i.task.value for i in derived.items)
    task_of = {i.item_id: i.task.value for i in derived.items}
    reviewed = {filled.rejected.item_id, filled.vetoed.item_id, filled.judged.item_id} | {
        i.item_id for i in filled.accepted
    }
    accepted = {filled.vetoed.item_id} | {i.item_id for i in filled.accepted}
    vetoed = {i for i, kinds in filled.expected_flags.items() if "vetoed" in kinds}
    resting = {task_of[i.item_id] for i in derived.items if filled.assertion in i.basis}
    for task, items in tasks.items():
        mine = {i for i in reviewed if task_of[i] == task}
        agreed = {i for i in accepted if task_of[i] == task} - vetoed - {filled.rejected.item_id}
        false = 1 if task in resting else 0
        assert found[task] == {
            "task": task,
            "items": items,
            "reviewed": len(mine),
            "accepted": len({i for i in accepted if task_of[i] == task}),
            "rejected": 1 if task_of[filled.rejected.item_id] == task else 0,
            "vetoed": len({i for i in vetoed if task_of[i] == task}),
            "relations_true": 0,
            "relations_false": false,
            "agreement": round(len(agreed) / len(mine), 4) if mine else None,
            "false_though_supported": false,
        }, task
    other = audit(
        "review_coverage", {"reviewer": "nobody"}, settings=derived.settings, graph=derived.graph
    )
    assert all(r["reviewed"] == 0 and r["agreement"] is None for r in other)
    result = CliRunner().invoke(cli, ["audit", "review_coverage", "--json"])
    assert result.exit_code == 0, result.output
    assert {r["task"]: r for r in json.loads(result.stdout)} == found


def test_importing_the_same_sheet_again_changes_nothing(
    imported: Imported, cli_env: Settings, filled: Filled, derived: Derived
) -> None:
    assert imported.after == imported.before
    first, second = imported.first, imported.second
    assert second.created == 0 and second.retracted == 0 and second.items_flagged == 0
    keep = ("rows", "imported", "blank", "rejected", "reviews", "assertions_judged")
    assert {k: getattr(second, k) for k in keep} == {k: getattr(first, k) for k in keep}
    result = CliRunner().invoke(
        cli, ["review", "import", str(filled.sheet), "--reviewer", REVIEWER, "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["created"] == 0 and report["imported"] == filled.filled
    assert fingerprint(derived.graph) == imported.before


# -- bad sheets --------------------------------------------------------------------------------


def test_bad_rows_are_rejected_with_their_spreadsheet_rows_and_exit_3(
    derived: Derived, filled: Filled, imported: Imported, tmp_path: Path, cli_env: Settings
) -> None:
    """The valid rows are imported and reported; every rejected row is cited by the row a
    spreadsheet shows (a note over two lines is one row), and the import exits 3 with one
    error line. A reviewer's rows on one item stand or fall together."""
    v = filled.vetoed
    good, other = filled.accepted
    blank = dict.fromkeys(COLUMNS, "")
    sheet = tmp_path / "bad.csv"
    write_sheet_rows(
        sheet,
        [
            blank | {"item_id": "no-such-item", "decision": "accept", "reviewer": "other"},
            blank
            | {"item_id": v.item_id, "veto_labels": v.answer, "veto_reason": "x", "reviewer": "o"},
            blank | {"item_id": good.item_id, "notes": "fine by me,\nreally", "reviewer": "other"},
            blank | {"item_id": other.item_id, "decision": "accept", "reviewer": "other"},
            blank | {"item_id": other.item_id, "assertion_id": other.basis[0], "decision": "maybe"},
        ],
    )
    assert len(sheet.read_text().splitlines()) == 7  # the header, 5 rows, one over two lines
    result = CliRunner().invoke(cli, ["review", "import", str(sheet), "--json"])
    assert result.exit_code == 3, result.output
    report = json.loads(result.stdout)
    assert (report["rows"], report["imported"], report["blank"], report["rejected"]) == (5, 1, 0, 4)
    assert [(r["row"], r["reason"]) for r in report["rejects"]] == [
        (2, "unknown item id 'no-such-item' (not in the graph)"),
        (3, f"veto label '{v.answer}' is the answer, not a distractor (reject the item instead)"),
        (5, "not imported: row 6 of the same item and reviewer was rejected"),
        (6, "a relation row's decision is true or false (does it hold?), not 'maybe'"),
    ]
    assert report["reviews"] == {"comment": 1}
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert result.stderr.startswith(
        "error: review import: 4 of 5 rows rejected, 1 imported (row 2: unknown item id "
    )
    assert "; 1 more); fix those rows and import the sheet again; all in " in result.stderr
    lines = (tmp_path / "bad.rejects.jsonl").read_text().splitlines()
    assert [json.loads(x)["line"] for x in lines] == [2, 3, 5, 6]  # the spreadsheet's rows
    table = CliRunner().invoke(cli, ["review", "import", str(sheet)])
    assert table.exit_code == 3 and "Rejected rows" in table.stdout
    assert "no-such-item" in table.stdout and table.stderr.startswith("error: review import: 4 ")
    # Nothing of the rejected rows reached the graph: no review by "other" on that item.
    assert not value(
        derived.graph,
        "MATCH (v:Review {reviewer: 'other'})-[:ON_ITEM]->(:Item {id: $id}) RETURN count(v) > 0",
        id=other.item_id,
    )


def test_a_sheet_with_nothing_valid_is_one_error_line(
    derived: Derived, filled: Filled, tmp_path: Path, cli_env: Settings
) -> None:
    v = filled.vetoed
    blank = dict.fromkeys(COLUMNS, "")
    sheet = tmp_path / "worse.csv"
    write_sheet_rows(
        sheet,
        [
            blank | {"item_id": "no-such-item", "decision": "accept", "reviewer": "o"},
            blank
            | {"item_id": v.item_id, "veto_labels": v.answer, "veto_reason": "x", "reviewer": "o"},
        ],
    )
    before = fingerprint(derived.graph)
    runner = CliRunner()
    for args in (
        ["review", "import", str(sheet)],
        ["review", "import", str(sheet), "--json"],
        ["review", "import", str(tmp_path / "missing.csv")],
    ):
        result = runner.invoke(cli, args)
        assert result.exit_code == 2, result.output
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
        assert "Traceback" not in result.output and result.stdout == ""
    assert "row 2: unknown item id" in runner.invoke(cli, ["review", "import", str(sheet)]).stderr
    (tmp_path / "cols.csv").write_text("item_id,verdict\nx,accept\n")
    wrong = runner.invoke(cli, ["review", "import", str(tmp_path / "cols.csv")])
    assert (
        wrong.exit_code == 2
        and "error: " in wrong.stderr
        and "unknown column 'verdict'" in wrong.stderr
    )
    untouched = tmp_path / "untouched.csv"
    write_sheet_rows(untouched, [blank | {"item_id": v.item_id}])
    with pytest.raises(ReviewSheetError, match="nothing to import"):
        review_import(untouched, settings=derived.settings, graph=derived.graph)
    assert fingerprint(derived.graph) == before


@pytest.mark.usefixtures("cli_env")
def test_export_command_line(derived: Derived, tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["review", "export", "-o", str(tmp_path / "r"), "--qa", str(derived.qa)]
    args += ["--task", "treatment", "--sample", "3", "--seed", "5", "--json"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["exported"] == {"treatment": 3} and report["sample"] == 3
    assert len(item_rows(read_sheet_rows(tmp_path / "r" / "sheet.csv"))) == 3
    missing = runner.invoke(
        cli, ["review", "export", "-o", str(tmp_path / "x"), "--qa", str(tmp_path / "none")]
    )
    assert missing.exit_code == 2 and missing.stderr.startswith("error: no QA folder")


def test_a_changed_sheet_retracts_what_it_no_longer_says(
    derived: Derived, filled: Filled, imported: Imported, tmp_path: Path
) -> None:
    """The reviewer takes the veto back: the veto review is retracted (kept), its flags go,
    the item stands again unless other flags remain, and the state no longer vetoes."""
    sheet_rows = read_sheet_rows(filled.sheet)
    for r in sheet_rows:
        if r["item_id"] == filled.vetoed.item_id:
            r.update(veto_labels="", veto_reason="")
    changed = tmp_path / "changed.csv"
    write_sheet_rows(changed, sheet_rows)
    report = review_import(
        changed, reviewer=REVIEWER, settings=derived.settings, graph=derived.graph
    )
    assert report.retracted == 1 and report.created == 0
    assert (report.round or 0) > (imported.first.round or 0)
    vetoed_only = {i for i, k in filled.expected_flags.items() if k == {"vetoed"}}
    assert report.items_unflagged == len(
        {i for i, k in filled.expected_flags.items() if "vetoed" in k}
    )
    assert value(derived.graph, "MATCH (v:Review {decision: 'veto'}) RETURN v.retracted") is True
    standing = {
        r["id"]: r["standing"]
        for r in rows(
            derived.graph,
            "MATCH (i:Item) WHERE i.id IN $ids RETURN i.id AS id, i.standing AS standing",
            ids=sorted(vetoed_only),
        )
    }
    assert standing and all(standing.values())
    state = review_state(settings=derived.settings, graph=derived.graph)
    v = filled.vetoed
    assert state.vetoed(v.task.value, v.topic, filled.veto[1]) is None
    # Taking it back twice changes nothing more; making it again restores it.
    assert (
        review_import(
            changed, reviewer=REVIEWER, settings=derived.settings, graph=derived.graph
        ).retracted
        == 0
    )
    again = review_import(
        filled.sheet, reviewer=REVIEWER, settings=derived.settings, graph=derived.graph
    )
    by_veto = {i for i, k in filled.expected_flags.items() if "vetoed" in k}
    assert again.created == 0 and again.items_flagged == len(by_veto)
    assert (
        review_state(settings=derived.settings, graph=derived.graph).vetoed(
            v.task.value, v.topic, filled.veto[1]
        )
        is not None
    )


# -- for clinicians ------------------------------------------------------------------------------


def _seen(page: str) -> str:
    """The page's text as a reader sees it with the folds closed."""
    shown = re.sub(r"<details>.*?</details>", "", page, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", shown))
    return re.sub(r"\s+", " ", text)


def test_every_page_reads_top_down_in_sentences(derived: Derived, exported: Exported) -> None:
    """Patient, question, options labelled once, the answer with its relation as a sentence
    with the vocabularies behind it, one sentence per wrong option; rules, versions and ids
    only behind the folds."""
    sheet_rows = read_sheet_rows(exported.out / "sheet.csv")
    by_id = item_rows(sheet_rows)
    for item in derived.items:
        page = (exported.out / "items" / f"{item.item_id}.html").read_text()
        seen = _seen(page)
        heads = re.findall(r"<h2>([^<]+)</h2>", page)
        assert heads[:5] == [
            "Patient",
            "Question",
            "Options",
            "Answer",
            "Why the other options are wrong",
        ]
        assert re.search(r"\b([A-J])\. \1\.", seen) is None, item.item_id  # not "A. A."
        for o in item.options:
            assert f"{o.label}. {o.text}" in seen
        answer = next(o.text for o in item.options if o.label == item.answer)
        assert f"The answer is {item.answer}. {answer} ." in seen
        # One sentence per relation the answer rests on, ending with what says so.
        assert seen.count("Because: ") == len(item.basis), (item.item_id, seen[:2000])
        sources = re.findall(r"\([^()]*\b(?:UMLS|SNOMEDCT|RXNORM) [^()]*\)\.", seen)
        assert len(sources) >= len(item.basis), (item.item_id, seen[:2000])
        for why in item.why_wrong:
            assert f"Why {why.label} is wrong: {why.text} " in seen, seen
        for j in (j for w in item.why_wrong for j in w.justifications):
            assert f"{j.rule}@{j.version}" in page and f"{j.rule}@{j.version}" not in seen
        for assertion in item.basis:
            assert assertion in page and assertion not in seen
        row = spreadsheet_row(sheet_rows, by_id[item.item_id])
        assert f"row {row} is this item" in seen
        assert (
            f"row {row + 1}: {relation_row(sheet_rows, item.item_id, item.basis[0])['relation']}"
            in seen
        )
    index = (exported.out / "index.html").read_text()
    assert "<th>sheet row</th>" in index


def test_a_round_trip_through_the_command_line(
    derived: Derived, tmp_path: Path, cli_env: Settings
) -> None:
    """Export, fill the sheet as a spreadsheet user would (csv module; a note over lines;
    "true" written beside a relation's label; one misspelt decision), import: the good rows
    land, the bad one is cited by its spreadsheet row, exit 3; fixed and imported again:
    exit 0."""
    runner = CliRunner()
    out = tmp_path / "r"
    args = ["review", "export", "-o", str(out), "--qa", str(derived.qa), "--task", "treatment"]
    exported = runner.invoke(cli, [*args, "--sample", "4", "--json"])
    assert exported.exit_code == 0, exported.output
    sheet = out / "sheet.csv"
    sheet_rows = read_sheet_rows(sheet)
    by_id = item_rows(sheet_rows)
    assert len(by_id) == 4
    # A relation nobody judged yet (the module's sheet judged one false), and its item.
    judged = next(
        r
        for r in sheet_rows
        if r["relation"]
        and value(
            derived.graph, "MATCH (a:Assertion {id: $id}) RETURN a.review", id=r["assertion_id"]
        )
        is None
    )
    first = by_id[judged["item_id"]]
    second, third = [r for r in by_id.values() if r is not first][:2]
    first.update(decision="accept", reviewer="rt", notes="clear stem;\nright answer")
    judged["decision"] = "true"  # the reviewer's own cell left empty: the item row's reviewer
    second.update(decision="acept", reviewer="rt")
    third.update(decision="reject", reviewer="rt", notes="ambiguous")
    write_sheet_rows(sheet, sheet_rows)
    bad_row = spreadsheet_row(sheet_rows, second)
    imported = runner.invoke(cli, ["review", "import", str(sheet), "--json"])
    assert imported.exit_code == 3, imported.output
    report = json.loads(imported.stdout)
    assert (report["imported"], report["rejected"]) == (3, 1)
    assert [(r["row"], r["item_id"]) for r in report["rejects"]] == [(bad_row, second["item_id"])]
    assert imported.stderr == (
        f"error: review import: 1 of {len(sheet_rows)} rows rejected, 3 imported (row {bad_row}: "
        "unknown decision 'acept' (accept, reject or empty)); fix those rows and import the "
        f"sheet again; all in {out / 'sheet.rejects.jsonl'}\n"
    )
    landed = rows(
        derived.graph,
        "MATCH (v:Review {reviewer: 'rt'})-[:ON_ITEM]->(i:Item) "
        "OPTIONAL MATCH (v)-[:ON_ASSERTION]->(a:Assertion) "
        "RETURN i.id AS item, v.decision AS decision, a.id AS assertion, v.row AS row, "
        "v.notes AS notes, a.review AS mark ORDER BY v.row",
    )
    judged_row = spreadsheet_row(sheet_rows, judged)
    expected: list[dict[str, Any]] = [
        {
            "item": first["item_id"],
            "decision": "accept",
            "assertion": None,
            "row": spreadsheet_row(sheet_rows, first),
            "notes": "clear stem;\nright answer",
            "mark": None,
        },
        {
            "item": first["item_id"],
            "decision": "relation_true",
            "assertion": judged["assertion_id"],
            "row": judged_row,
            "notes": None,
            "mark": "true",
        },
        {
            "item": third["item_id"],
            "decision": "reject",
            "assertion": None,
            "row": spreadsheet_row(sheet_rows, third),
            "notes": "ambiguous",
            "mark": None,
        },
    ]
    assert landed == sorted(expected, key=lambda r: r["row"])
    second["decision"] = "accept"
    write_sheet_rows(sheet, sheet_rows)
    fixed = runner.invoke(cli, ["review", "import", str(sheet)])
    assert fixed.exit_code == 0 and fixed.stderr == "", fixed.output
    assert not (out / "sheet.rejects.jsonl").exists()
