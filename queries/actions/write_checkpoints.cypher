// Writes graded task checkpoints (kgverify grade, docs/fhir.md) idempotently: one
// (:TaskCheckpoint {id: "<task>/<checkpoint>"}) per checkpoint with pass or fail and its
// reason, linked to the task's patient (ABOUT) and to the agent actions the result rests on
// (ON_ACTION, written first by actions/write_actions). A re-grade replaces its edges.
// @param rows: list of {id, task_id, checkpoint, kind, description, passed, reason, patient_id, actions: list of action ids}
// @returns written
UNWIND $rows AS row
MERGE (t:TaskCheckpoint {id: row.id})
SET t.task_id = row.task_id, t.checkpoint = row.checkpoint, t.kind = row.kind,
    t.description = row.description, t.passed = row.passed, t.reason = row.reason,
    t.patient_id = row.patient_id, t.graded_at = datetime()
WITH t, row
CALL (t) {
  MATCH (t)-[old:ABOUT|ON_ACTION]->()
  DELETE old
}
CALL (t, row) {
  MATCH (p:Patient {id: row.patient_id})
  MERGE (t)-[:ABOUT]->(p)
}
CALL (t, row) {
  UNWIND row.actions AS aid
  MATCH (a:AgentAction {id: aid})
  MERGE (t)-[:ON_ACTION]->(a)
}
RETURN count(*) AS written
