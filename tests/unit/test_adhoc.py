"""Which ad-hoc statements read files or URLs (kgverify/graph/adhoc.py): refused by
``kgverify cypher`` without --write, whatever the case, spacing, comments or quoting."""

from __future__ import annotations

import pytest

from kgverify.graph.adhoc import file_access


@pytest.mark.parametrize(
    ("statement", "found"),
    [
        ("LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l LIMIT 2", "LOAD CSV"),
        ("load\n  Csv WITH HEADERS FROM $url AS l RETURN l", "LOAD CSV"),
        ("USING PERIODIC COMMIT LOAD CSV FROM 'x' AS l RETURN l", "LOAD CSV"),
        ("CALL apoc.load.json('file:///etc/passwd') YIELD value RETURN value", "apoc.load.json"),
        ("CALL APOC.LOAD.CSV('/etc/passwd')", "apoc.load.csv"),
        ("CALL apoc . load . jsonParams('u', {}, null)", "apoc.load.jsonparams"),
        ("CALL `apoc`.`load`.`xml`('file:///x')", "apoc.load.xml"),
        ("CALL `apoc.load.json`('file:///x')", "apoc.load.json"),
        ("CALL apoc.import.csv([{fileName: 'x', labels: ['A']}], [], {})", "apoc.import.csv"),
        ("CALL apoc.cypher.runFile('x.cypher')", "apoc.cypher.runfile"),
        ("CALL apoc.cypher.runSchemaFiles(['x'])", "apoc.cypher.runschemafiles"),
        (
            "MATCH (n) /* a comment */ CALL apoc.load.json($u) YIELD value RETURN 1",
            "apoc.load.json",
        ),
        # A string that a procedure runs as Cypher is code.
        ("CALL apoc.cypher.run(\"LOAD CSV FROM 'file:///x' AS l RETURN l\", {})", "LOAD CSV"),
        (
            "CALL apoc.periodic.iterate('RETURN 1', 'CALL apoc.load.json(\"f\") YIELD value "
            "RETURN value', {})",
            "apoc.load.json",
        ),
    ],
)
def test_reads_files(statement: str, found: str) -> None:
    assert file_access(statement) == found


@pytest.mark.parametrize(
    "statement",
    [
        "MATCH (c:Concept) WHERE c.name CONTAINS 'load csv' RETURN c",
        'MATCH (c:Concept) WHERE c.name = "apoc.load.json" RETURN c',
        "MATCH (c:Concept) // load csv from here\nRETURN c",
        "MATCH (c:Concept) /* CALL apoc.load.json('x') */ RETURN c",
        "MATCH (n:`load csv`) RETURN n",
        "MATCH (n) WHERE n.note = 'it\\'s LOAD CSV' RETURN n",
        "RETURN apoc.version() AS v",
        "MATCH (a:Assertion) RETURN a.verdict, count(*) AS loaded",
        "CALL apoc.cypher.run('MATCH (n) RETURN count(n) AS c', {})",
    ],
)
def test_reads_no_files(statement: str) -> None:
    assert file_access(statement) is None
