// Records re-checked verdicts beside the old ones: one (:Recheck) per assertion and set of
// releases re-checked (id: the set's key, ":", the assertion's id), holding the new verdict,
// score, rule, reason and evidence with the standing verdict it replaces, linked
// (assertion)-[:RECHECKED]->(recheck)-[:IN_RUN]->(run). A later run over the same releases
// (a rerun after a re-verification was killed, or asked for again) replaces the recheck
// and moves it to its run; the verdict it replaces stays the one standing before the first
// (reverify/touched_page reads it back, so changed is said against it). The assertion
// keeps the verdict it was first given (items were derived from it) and gets the new one as
// its standing verdict, with the run and the recheck's id. Idempotent.
// @param rows: list of {id, verdict, score, passed, rule, rule_version, reason, evidence, evidence_edges, changed}
// @param run: token of the re-verification run
// @param key: key of the set of releases re-checked (reverify.recheck_key)
// @returns written
UNWIND $rows AS row
MATCH (a:Assertion {id: row.id})
MATCH (run:Reverification {id: $run})
MERGE (c:Recheck {id: $key + ":" + row.id})
ON CREATE SET c.previous_verdict = coalesce(a.standing_verdict, a.verdict),
              c.previous_passed = coalesce(a.standing_passed, a.passed)
SET c.assertion = row.id, c.releases_key = $key, c.verdict = row.verdict,
    c.score = row.score, c.passed = row.passed, c.rule = row.rule,
    c.rule_version = row.rule_version, c.reason = row.reason, c.evidence = row.evidence,
    c.evidence_edges = row.evidence_edges, c.checked_at = datetime(),
    c.changed = row.changed
SET a.standing_verdict = row.verdict, a.standing_passed = row.passed, a.rechecked_in = $run,
    a.recheck = c.id
WITH a, c, run
CALL (c, run) {
  MATCH (c)-[old:IN_RUN]->(other:Reverification)
  WHERE other <> run
  DELETE old
}
MERGE (a)-[:RECHECKED]->(c)
MERGE (c)-[:IN_RUN]->(run)
RETURN count(*) AS written
