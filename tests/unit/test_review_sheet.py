"""The review sheet without a graph: its columns, each row's form and the row a spreadsheet
shows for it, item rows and relation rows, the checks against an item's facts, the reviews
a reviewer's rows make, and the state derivation reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgverify.errors import ConfigError, KgverifyError
from kgverify.outputs import safe_cell
from kgverify.review.model import (
    Decision,
    ItemFacts,
    ItemOption,
    RejectedSheetRow,
    SheetRow,
    review_id,
)
from kgverify.review.sheet import (
    COLUMNS,
    ReviewSheetError,
    check_row,
    parse_row,
    read_sheet,
    reviews_of,
    write_sheet,
)
from kgverify.review.state import ReviewState, StateReview

HEADER = ",".join(COLUMNS)


def sheet(tmp_path: Path, *lines: str, header: str = HEADER) -> Path:
    path = tmp_path / "sheet.csv"
    path.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    return path


def row(**cells: str) -> str:
    return ",".join(cells.get(c, "") for c in COLUMNS)


ITEM = ItemFacts(
    id="it1",
    task="treatment",
    topic="UMLS:C0029408",
    content_key="ck1",
    answer="A",
    answer_concept="UMLS:C0012091",
    current=True,
    options=[
        ItemOption(label="A", concept="UMLS:C0012091", name="Diclofenac"),
        ItemOption(label="B", concept="UMLS:C0032952", name="Prednisone"),
        ItemOption(label="C", concept="UMLS:C0000003", name="Other"),
    ],
    basis=["as1", "as2"],
)


def test_written_sheet_reads_back_blank_rows_with_their_spreadsheet_rows(tmp_path: Path) -> None:
    path = tmp_path / "sheet.csv"
    question = 'A "quoted" question,\nover two lines'
    written = write_sheet(
        path,
        [
            {"item_id": "it1", "task": "treatment", "question": question},
            {"item_id": "it2", "task": "diagnosis", "question": "short"},
        ],
    )
    assert written == 2
    parsed = list(read_sheet(path))
    assert [type(p) for p in parsed] == [SheetRow, SheetRow]
    # The first row's question spans two lines of the file; a spreadsheet shows one row.
    assert [p.row for p in parsed] == [2, 3]
    assert all(isinstance(p, SheetRow) and p.blank for p in parsed)


def test_a_filled_row_parses_every_column(tmp_path: Path) -> None:
    path = sheet(
        tmp_path,
        row(
            item_id=" it1 ",
            task="treatment",
            decision="Reject",
            veto_labels="b; c",
            veto_reason="both are used for it",
            reviewer="jd",
            notes="see guideline",
        ),
        row(
            item_id="it1",
            relation="Diclofenac — may treat — Osteoarthritis",
            assertion_id="as1",
            decision="FALSE",
        ),
        row(item_id="it1", assertion_id="as2", decision="yes", reviewer="mk", notes="n"),
    )
    item, first, second = read_sheet(path)
    assert isinstance(item, SheetRow) and not item.blank and item.assertion is None
    assert item.item_id == "it1" and item.decision is Decision.REJECT
    assert item.veto_labels == ["B", "C"] and item.veto_reason == "both are used for it"
    assert item.reviewer == "jd" and item.notes == "see guideline"
    # A relation row takes its item row's reviewer when its own cell is empty.
    assert isinstance(first, SheetRow) and (first.assertion, first.decision, first.reviewer) == (
        "as1",
        Decision.RELATION_FALSE,
        "jd",
    )
    assert isinstance(second, SheetRow) and (second.decision, second.reviewer) == (
        Decision.RELATION_TRUE,
        "mk",
    )


@pytest.mark.parametrize(
    ("cells", "reason"),
    [
        ({"decision": "maybe"}, "unknown decision 'maybe' (accept, reject or empty)"),
        ({"decision": "true"}, "unknown decision 'true' (accept, reject or empty)"),
        ({"veto_labels": "B"}, "a veto needs a veto_reason"),
        ({"veto_reason": "why"}, "veto_reason given but no veto_labels"),
        ({"veto_labels": "BB", "veto_reason": "x"}, "veto label 'BB' is not an option letter"),
        (
            {"assertion_id": "as1", "decision": "accept"},
            "a relation row's decision is true or false (does it hold?), not 'accept'",
        ),
        (
            {"assertion_id": "as1", "veto_labels": "B", "veto_reason": "x"},
            "vetoes go on the item's row, not on a relation row",
        ),
        ({"decision": "accept", "reviewer": ""}, "no reviewer"),
        ({"item_id": "", "decision": "accept"}, "no item_id"),
    ],
)
def test_a_malformed_row_is_rejected_with_its_row_and_reason(
    tmp_path: Path, cells: dict[str, str], reason: str
) -> None:
    base = {"item_id": "it1", "reviewer": "jd"}
    path = sheet(tmp_path, row(item_id="it0", question='"two\nlines"'), row(**(base | cells)))
    first, second = read_sheet(path)
    assert isinstance(first, SheetRow) and first.blank
    # Row 3 as a spreadsheet shows it, though the file's line 4 (the question above spans two).
    assert isinstance(second, RejectedSheetRow) and second.row == 3
    assert reason in second.reason


def test_the_default_reviewer_fills_an_empty_column_only() -> None:
    cells = dict.fromkeys(COLUMNS, "") | {"item_id": "it1", "decision": "accept"}
    parsed = parse_row(2, cells, default_reviewer="cli")
    assert isinstance(parsed, SheetRow) and parsed.reviewer == "cli"
    parsed = parse_row(2, cells | {"reviewer": "jd"}, default_reviewer="cli")
    assert isinstance(parsed, SheetRow) and parsed.reviewer == "jd"


def test_wrong_cell_counts_and_empty_lines(tmp_path: Path) -> None:
    path = sheet(tmp_path, "it1,treatment", "", row(item_id="it2"), "it3" + "," * len(COLUMNS))
    parsed = list(read_sheet(path))
    # An empty line is a row a spreadsheet shows (row 3), though no review.
    assert [(type(p).__name__, p.row) for p in parsed] == [
        ("RejectedSheetRow", 2),
        ("SheetRow", 4),
        ("RejectedSheetRow", 5),
    ]
    assert isinstance(parsed[0], RejectedSheetRow)
    assert f"2 cells, the header has {len(COLUMNS)}" in parsed[0].reason
    assert parsed[2].item_id == "it3"


def test_columns_in_any_order_and_a_spreadsheet_bom(tmp_path: Path) -> None:
    names = list(reversed(COLUMNS))
    path = tmp_path / "sheet.csv"
    values = {"item_id": "it1", "decision": "accept", "reviewer": "jd"}
    path.write_text(
        "\ufeff"
        + ",".join(n.upper() for n in names)
        + "\n"
        + ",".join(values.get(n, "") for n in names)
        + "\n",
        encoding="utf-8",
    )
    [parsed] = read_sheet(path)
    assert isinstance(parsed, SheetRow) and parsed.decision is Decision.ACCEPT


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (HEADER + ",colour", "unknown column 'colour'"),
        (HEADER.replace(",decision", ""), "missing column 'decision'"),
        (HEADER + ",notes", "column 'notes' appears twice"),
        (
            HEADER.replace("relation,assertion_id", "relation_decisions"),
            "a sheet of an earlier kgverify \\(relation_decisions column\\); export the items "
            "again",
        ),
    ],
)
def test_wrong_columns_are_one_error(tmp_path: Path, header: str, message: str) -> None:
    path = sheet(tmp_path, header=header)
    with pytest.raises(ReviewSheetError, match=message):
        list(read_sheet(path))


def test_missing_or_empty_sheet_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such review sheet"):
        list(read_sheet(tmp_path / "nope.csv"))
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(KgverifyError, match="empty sheet"):
        list(read_sheet(tmp_path / "empty.csv"))


def _checked(**changes: object) -> list[str]:
    base = SheetRow(row=2, item_id="it1", task="treatment", reviewer="jd")
    return check_row(base.model_copy(update=changes), ITEM)


def test_rows_are_checked_against_the_item() -> None:
    assert check_row(SheetRow(row=2, item_id="zz", reviewer="jd"), None) == [
        "unknown item id 'zz' (not in the graph)"
    ]
    assert _checked(decision=Decision.ACCEPT, veto_labels=["B"]) == []
    assert _checked(assertion="as1", decision=Decision.RELATION_FALSE) == []
    assert _checked(task="diagnosis") == [
        "task 'diagnosis' does not match the item's task 'treatment'"
    ]
    assert _checked(veto_labels=["A"]) == [
        "veto label 'A' is the answer, not a distractor (reject the item instead)"
    ]
    assert _checked(veto_labels=["E"]) == ["veto label 'E' is not an option of the item (A, B, C)"]
    assert _checked(assertion="as9", decision=Decision.RELATION_TRUE) == [
        "assertion 'as9' is not a relation the item rests on"
    ]


def test_a_reviewers_rows_make_one_review_per_decision_with_stable_ids() -> None:
    item_row = SheetRow(
        row=7,
        item_id="it1",
        decision=Decision.REJECT,
        veto_labels=["B"],
        veto_reason="also first line",
        reviewer="jd",
        notes="n",
    )
    relation_rows = [
        SheetRow(
            row=8, item_id="it1", assertion="as1", decision=Decision.RELATION_FALSE, reviewer="jd"
        ),
        SheetRow(
            row=9,
            item_id="it1",
            assertion="as2",
            decision=Decision.RELATION_TRUE,
            reviewer="jd",
            notes="per guideline",
        ),
    ]
    parsed = [item_row, *relation_rows]
    reviews = reviews_of(parsed, ITEM)
    assert [(r.decision, r.concept, r.assertion, r.label, r.row) for r in reviews] == [
        (Decision.REJECT, "UMLS:C0012091", None, None, 7),
        (Decision.VETO, "UMLS:C0032952", None, "B", 7),
        (Decision.RELATION_FALSE, None, "as1", None, 8),
        (Decision.RELATION_TRUE, None, "as2", None, 9),
    ]
    assert reviews[1].reason == "also first line" and reviews[0].reason == "n"
    assert reviews[2].reason is None and reviews[3].reason == "per guideline"
    assert all(r.topic == ITEM.topic and r.content_key == "ck1" for r in reviews)
    assert reviews[1].id == review_id("it1", Decision.VETO, "UMLS:C0032952", "jd")
    assert reviews[2].id == review_id("it1", Decision.RELATION_FALSE, "as1", "jd")
    assert len({r.id for r in reviews}) == 4
    assert [r.id for r in reviews_of(parsed, ITEM)] == [r.id for r in reviews]
    other = reviews_of([p.model_copy(update={"reviewer": "mk"}) for p in parsed], ITEM)
    assert not {r.id for r in other} & {r.id for r in reviews}
    [comment] = reviews_of([SheetRow(row=2, item_id="it1", reviewer="jd", notes="hm")], ITEM)
    assert comment.decision is Decision.COMMENT and comment.reason == "hm"
    # Notes on a relation row alone: a comment on that relation, apart from the item's.
    [on_relation] = reviews_of(
        [SheetRow(row=3, item_id="it1", assertion="as1", reviewer="jd", notes="hm")], ITEM
    )
    assert on_relation.decision is Decision.COMMENT and on_relation.assertion == "as1"
    assert on_relation.id != comment.id


def test_formula_cells_stay_text() -> None:
    assert safe_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert safe_cell("A 40-49 year old") == "A 40-49 year old"


HYPERLINK = '=HYPERLINK("http://x","y")'


def test_sheet_round_trips_formula_cells(tmp_path: Path) -> None:
    """Every cell a spreadsheet would run is written quoted, and read back as it was: a
    reviewer named =HYPERLINK(...) stays that name, not a link, and not '=HYPERLINK."""
    cells = {
        "item_id": "it1",
        "task": "treatment",
        "question": "-2 mg: which drug?",
        "answer_text": "A. @home",
        "decision": "accept",
        "veto_labels": "B",
        "veto_reason": "+ also treats it",
        "relation": "=Diclofenac — may treat — Osteoarthritis",
        "reviewer": HYPERLINK,
        "notes": "\tindented; 'quoted' stays",
    }
    path = tmp_path / "out" / "sheet.csv"
    assert write_sheet(path, [cells]) == 1
    raw = path.read_text(encoding="utf-8")
    assert "'=HYPERLINK(" in raw and "'-2 mg" in raw and "'@home" not in raw
    assert "'+ also" in raw and "'\tindented" in raw
    [parsed] = read_sheet(path)
    assert isinstance(parsed, SheetRow)
    assert parsed.reviewer == HYPERLINK
    assert parsed.veto_reason == "+ also treats it"
    assert parsed.notes == "\tindented; 'quoted' stays".strip()
    assert "'=Diclofenac" in raw
    assert (parsed.decision, parsed.veto_labels, parsed.assertion) == (Decision.ACCEPT, ["B"], None)
    # Owner-only, whatever the umask: the sheet names patients' items.
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


def test_state_keys_and_cautious_conflicts() -> None:
    def r(rid: str, decision: Decision, **kw: str) -> StateReview:
        return StateReview(id=rid, decision=decision, **kw)

    state = ReviewState(
        [
            r("v2", Decision.VETO, task="treatment", topic="t1", concept="c1"),
            r("v1", Decision.VETO, task="treatment", topic="t1", concept="c1"),
            r("a1", Decision.ACCEPT, content_key="k1"),
            r("x1", Decision.REJECT, content_key="k1"),
            r("a2", Decision.ACCEPT, content_key="k2"),
            r("t1", Decision.RELATION_TRUE, assertion="as1"),
            r("f1", Decision.RELATION_FALSE, assertion="as1"),
            r("t2", Decision.RELATION_TRUE, assertion="as2"),
            r("n1", Decision.COMMENT),
        ]
    )
    assert len(state) == 9
    assert state.counts["veto"] == 2 and state.counts["comment"] == 1
    assert state.vetoed("treatment", "t1", "c1") == "v1"
    assert state.vetoed("diagnosis", "t1", "c1") is None
    assert state.rejected("k1") == "x1" and state.accepted("k1") is None
    assert state.accepted("k2") == "a2" and state.rejected("k2") is None
    one, two = state.relation("as1"), state.relation("as2")
    assert one is not None and not one.true and one.review == "f1"
    assert two is not None and two.true and two.review == "t2"
    assert state.relation("as3") is None
