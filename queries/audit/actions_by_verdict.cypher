// Judged agent actions (`kgverify check-actions` / `grade` store them, docs/fhir.md), one row
// each: the verdict (indicated, contraindicated, interacts, duplicate_therapy, unsupported:
// not in the vocabularies, not_judged, unknown_code, malformed), its reason, the concept
// the order denotes, the record facts and evidence concepts it rests on. Never a note's text.
// @param verdict: str = null: one of indicated, contraindicated, interacts, duplicate_therapy, unsupported, not_judged, unknown_code, malformed; null: every verdict
// @param task: str = null: a task id; null: every task
// @param limit: int = 100: at most this many rows (at least 1)
// @returns action, task, patient, resource_type, verdict, code, concept, concept_name, reason, facts, evidence_concepts, releases, checked_at
MATCH (a:AgentAction)
WHERE ($verdict IS NULL OR a.verdict = $verdict) AND ($task IS NULL OR a.task_id = $task)
OPTIONAL MATCH (a)-[:CONCERNS]->(c:Concept)
RETURN a.id AS action, a.task_id AS task, a.patient_id AS patient,
       a.resource_type AS resource_type, a.verdict AS verdict, a.code AS code,
       a.concept_id AS concept, c.name AS concept_name, a.reason AS reason,
       COLLECT { MATCH (a)-[:AGAINST]->(f:Fact) RETURN f.id ORDER BY f.id } AS facts,
       COLLECT { MATCH (a)-[:EVIDENCE]->(e:Concept) RETURN e.id ORDER BY e.id } AS evidence_concepts,
       a.releases AS releases, toString(a.checked_at) AS checked_at
ORDER BY task, action
LIMIT $limit
