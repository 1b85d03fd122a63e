// Records re-checked verdicts beside the old ones: one (:Recheck) per assertion and run,
// holding the new verdict, score, rule, reason and evidence with the standing verdict it
// replaces, linked (assertion)-[:RECHECKED]->(recheck)-[:IN_RUN]->(run). The assertion keeps
// the verdict it was first given (items were derived from it) and gets the new one as its
// standing verdict. Idempotent per run.
// @param rows: list of {id, verdict, score, passed, rule, rule_version, reason, evidence, evidence_edges, changed}
// @param run: token of the re-verification run
// @returns written
UNWIND $rows AS row
MATCH (a:Assertion {id: row.id})
MATCH (run:Reverification {id: $run})
MERGE (c:Recheck {id: $run + ":" + row.id})
SET c.assertion = row.id, c.verdict = row.verdict, c.score = row.score,
    c.passed = row.passed, c.rule = row.rule, c.rule_version = row.rule_version,
    c.reason = row.reason, c.evidence = row.evidence, c.evidence_edges = row.evidence_edges,
    c.changed = row.changed, c.checked_at = datetime(),
    c.previous_verdict = coalesce(a.standing_verdict, a.verdict),
    c.previous_passed = coalesce(a.standing_passed, a.passed)
SET a.standing_verdict = row.verdict, a.standing_passed = row.passed, a.rechecked_in = $run
MERGE (a)-[:RECHECKED]->(c)
MERGE (c)-[:IN_RUN]->(run)
RETURN count(*) AS written
