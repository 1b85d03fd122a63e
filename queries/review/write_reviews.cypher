// Writes reviewer decisions as provenance, idempotently: one (:Review {id}) per decision
// (the id hashes item, decision, vetoed concept or judged assertion, and reviewer), linked
// to the item reviewed (ON_ITEM), to the vetoed distractor concept (VETOES) and to the
// judged assertion (ON_ASSERTION). round and at are set when the node is created, so
// importing the same sheet again changes nothing; the other properties are replaced (a
// reason edited in the sheet) and a review made again stands again (retracted = false).
// Rows whose item is not in the graph are not written (import checked them before). row is
// the sheet row (as a spreadsheet shows it) the review came from; line, which held the
// physical CSV line before, is cleared.
// @param rows: list of {id, item, reviewer, decision, reason, notes, task, topic, concept, content_key, label, assertion, row}
// @param round: round number for reviews created now
// @returns written, created
UNWIND $rows AS row
MATCH (i:Item {id: row.item})
OPTIONAL MATCH (old:Review {id: row.id})
WITH i, row, old IS NULL AS created
MERGE (v:Review {id: row.id})
  ON CREATE SET v.round = $round, v.at = datetime()
SET v.reviewer = row.reviewer, v.decision = row.decision, v.reason = row.reason,
    v.notes = row.notes, v.task = row.task, v.topic = row.topic, v.concept = row.concept,
    v.content_key = row.content_key, v.item = row.item, v.label = row.label,
    v.assertion = row.assertion, v.row = row.row, v.line = null, v.retracted = false,
    v.retracted_at = null
MERGE (v)-[:ON_ITEM]->(i)
WITH v, row, created
CALL (v, row) {
  WITH v, row WHERE row.decision = "veto"
  MATCH (c:Concept {id: row.concept})
  MERGE (v)-[:VETOES]->(c)
}
CALL (v, row) {
  WITH v, row WHERE row.assertion IS NOT NULL
  MATCH (a:Assertion {id: row.assertion})
  MERGE (v)-[:ON_ASSERTION]->(a)
}
RETURN count(*) AS written, sum(CASE WHEN created THEN 1 ELSE 0 END) AS created
