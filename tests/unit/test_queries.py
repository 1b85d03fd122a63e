"""Every .cypher file loads, declares exactly the parameters it uses, and says what it does."""

from __future__ import annotations

import re

import pytest

from kgverify.errors import QueryError
from kgverify.graph.queries import get_query, list_queries, parse_query


def test_every_query_file_parses_and_has_a_header() -> None:
    names = list_queries()
    assert "load/upsert_concepts" in names and "schema/01_concept_id_unique" in names
    for name in names:
        query = get_query(name)
        assert query.description and query.returns, name


@pytest.mark.parametrize("name", list_queries())
def test_declared_parameters_match_placeholders(name: str) -> None:
    query = get_query(name)
    body = re.sub(r"'[^']*'|\"[^\"]*\"", "''", query.text)
    assert set(re.findall(r"\$([A-Za-z_]\w*)", body)) == set(query.params)


def test_undeclared_parameter_is_refused() -> None:
    text = "// Does a thing.\n// @returns n\nMATCH (n {id: $id}) RETURN n"
    with pytest.raises(QueryError, match="declares"):
        parse_query("x", text)


def test_declared_but_unused_parameter_is_refused() -> None:
    text = (
        "// Does a thing.\n// @param id: an id\n// @param extra: unused\n// @returns n\nRETURN $id"
    )
    with pytest.raises(QueryError, match="extra"):
        parse_query("x", text)


def test_dollar_inside_string_is_not_a_parameter() -> None:
    text = "// Does a thing.\n// @returns s\nRETURN '$notaparam' AS s"
    assert parse_query("x", text).params == {}


def test_missing_header_or_returns_is_refused() -> None:
    with pytest.raises(QueryError, match="header"):
        parse_query("x", "RETURN 1")
    with pytest.raises(QueryError, match="returns"):
        parse_query("x", "// Does a thing.\nRETURN 1")


def test_call_with_wrong_parameters_is_refused() -> None:
    query = get_query("load/latest_release")
    with pytest.raises(QueryError, match="missing"):
        query.check_params({})
    with pytest.raises(QueryError, match="unexpected"):
        query.check_params({"vocab": "UMLS", "oops": 1})


def test_unknown_query_name() -> None:
    with pytest.raises(QueryError, match="no query named"):
        get_query("load/does_not_exist")


def test_no_statement_pastes_values_into_text() -> None:
    # Values go in as $parameters: no Python format fields or concatenation markers survive
    # into the statements, and every dynamic label/type is a $(...) parameter.
    for name in list_queries():
        text = get_query(name).text
        assert "{0}" not in text and "%s" not in text and "{}" not in text, name
        for dynamic in re.findall(r"\$\(([^)]*)\)", text):
            assert dynamic.startswith(("$", "row.")), (name, dynamic)
