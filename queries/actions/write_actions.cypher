// Writes judged agent actions (kgverify check-actions / grade, docs/fhir.md) idempotently:
// one (:AgentAction {id}) per action with its verdict, reason, code and the releases it was
// judged against, linked to its patient (ABOUT), the concept its code denotes (CONCERNS),
// the concepts on its evidence paths (EVIDENCE) and the record facts its findings rest on
// (AGAINST). A re-check replaces the action's edges. Text-free by design: a note's text is
// never written.
// @param rows: list of {id, task_id, patient_id, resource_type, kind, as_of, code, concept, verdict, reason, findings, evidence, releases, evidence_concepts: list of ids, facts: list of ids}
// @returns written
UNWIND $rows AS row
MERGE (a:AgentAction {id: row.id})
SET a.task_id = row.task_id, a.patient_id = row.patient_id, a.resource_type = row.resource_type,
    a.kind = row.kind, a.as_of = row.as_of, a.code = row.code, a.concept_id = row.concept,
    a.verdict = row.verdict, a.reason = row.reason, a.findings = row.findings,
    a.evidence = row.evidence, a.releases = row.releases, a.checked_at = datetime()
WITH a, row
CALL (a) {
  MATCH (a)-[old:ABOUT|CONCERNS|EVIDENCE|AGAINST]->()
  DELETE old
}
CALL (a, row) {
  MATCH (p:Patient {id: row.patient_id})
  MERGE (a)-[:ABOUT]->(p)
}
CALL (a, row) {
  MATCH (c:Concept {id: row.concept})
  MERGE (a)-[:CONCERNS]->(c)
}
CALL (a, row) {
  UNWIND row.evidence_concepts AS cid
  MATCH (c:Concept {id: cid})
  MERGE (a)-[:EVIDENCE]->(c)
}
CALL (a, row) {
  UNWIND row.facts AS fid
  MATCH (f:Fact {id: fid})
  MERGE (a)-[:AGAINST]->(f)
}
RETURN count(*) AS written
