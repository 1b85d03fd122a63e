// Graded task checkpoints (`kgverify grade` stores them, docs/fhir.md), one row each: pass
// or fail with the reason, and the agent actions (with their verdicts) the result rests on.
// @param task: str = null: a task id; null: every task
// @param passed: bool = null: true: only passed, false: only failed; null: both
// @returns task, checkpoint, kind, description, passed, reason, patient, actions, graded_at
MATCH (t:TaskCheckpoint)
WHERE ($task IS NULL OR t.task_id = $task) AND ($passed IS NULL OR t.passed = $passed)
RETURN t.task_id AS task, t.checkpoint AS checkpoint, t.kind AS kind,
       t.description AS description, t.passed AS passed, t.reason AS reason,
       t.patient_id AS patient,
       COLLECT { MATCH (t)-[:ON_ACTION]->(a:AgentAction)
                 RETURN a.id + ": " + a.verdict ORDER BY a.id } AS actions,
       toString(t.graded_at) AS graded_at
ORDER BY task, checkpoint
