// Writes derived QA items as provenance, idempotently, pending their run's publication: one
// (:Item {id}) per item, its properties replaced on every run, linked to its patient
// (ABOUT), to the passed assertions it rests on (RESTS_ON), to the rule versions that
// decided them (DECIDED_BY), to the facts its question shows (FROM_FACT), to the correct
// concept (ANSWER) and to each distractor (DISTRACTOR {label}). Old edges of a rerun are
// removed first. Items get the run's token as pending_run and keep whether they are current
// (a new item is not): derive/publish_items makes the run's items current and retires the
// others in one transaction, so a run killed before it leaves the earlier items current,
// and derive/clear_pending removes what it left. Each distractor's justifications are kept
// as JSON (why_wrong) and, per edge, the rules that justify it and its distance to the
// topic; the item records its topic, content key and group, difficulty, releases, policy
// and its distractor checks (JSON, for `kgverify reverify`), and the correct option's text
// (answer_text: Neo4j Browser's caption, docs/graph-browser.md). An item derived from one
// run's patients is linked to that run (DERIVED_IN; an item derived again by another run is
// linked to both).
// @param rows: list of {id, task, split, patient_id, episode, question, answer, answer_concept, answer_text, options, template, seed, basis, rules, checks, facts, distractors: list of {label, concept, rules, distance}, topic, content_key, content_group, why_wrong, difficulty, releases, policy}
// @param run: token of this derivation run
// @param source_run: the run whose patients were read (runs/get_run), or null for all
// @returns written
UNWIND $rows AS row
MERGE (i:Item {id: row.id})
ON CREATE SET i.current = false, i.standing = true, i.flags = []
SET i.task = row.task, i.split = row.split, i.patient_id = row.patient_id,
    i.episode = row.episode, i.question = row.question, i.answer = row.answer,
    i.answer_concept = row.answer_concept, i.answer_text = row.answer_text,
    i.options = row.options,
    i.template = row.template, i.seed = row.seed, i.pending_run = $run, i.checks = row.checks,
    i.topic = row.topic, i.content_key = row.content_key, i.content_group = row.content_group,
    i.why_wrong = row.why_wrong, i.difficulty = row.difficulty, i.releases = row.releases,
    i.policy = row.policy, i.derived_at = datetime()
WITH i, row
CALL (i) {
  MATCH (i)-[old:ABOUT|RESTS_ON|DECIDED_BY|FROM_FACT|ANSWER|DISTRACTOR]->()
  DELETE old
}
CALL (i) {
  MATCH (r:Run {id: $source_run})
  MERGE (i)-[:DERIVED_IN]->(r)
}
CALL (i, row) {
  MATCH (p:Patient {id: row.patient_id})
  MERGE (i)-[:ABOUT]->(p)
}
CALL (i, row) {
  UNWIND row.basis AS aid
  MATCH (a:Assertion {id: aid})
  MERGE (i)-[:RESTS_ON]->(a)
}
CALL (i, row) {
  UNWIND row.rules AS key
  MATCH (r:Rule {key: key})
  MERGE (i)-[:DECIDED_BY]->(r)
}
CALL (i, row) {
  UNWIND row.facts AS fid
  MATCH (f:Fact {id: fid})
  MERGE (i)-[:FROM_FACT]->(f)
}
CALL (i, row) {
  MATCH (c:Concept {id: row.answer_concept})
  MERGE (i)-[:ANSWER]->(c)
}
CALL (i, row) {
  UNWIND row.distractors AS d
  MATCH (c:Concept {id: d.concept})
  MERGE (i)-[x:DISTRACTOR]->(c)
  SET x.label = d.label, x.rules = d.rules, x.distance = d.distance
}
RETURN count(*) AS written
