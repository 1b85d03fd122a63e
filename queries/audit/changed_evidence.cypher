// Which items' evidence changed in a re-verification run (the latest one unless named): per
// item and re-checked assertion it rests on, the verdict before and after, the new reason,
// the evidence edges the new release added and took away, and the item's flags.
// @param run: str = null: token of an existing run of `kgverify reverify` (null: the latest)
// @returns run, item, task, question, answer, standing, assertion, relation, was, now, reason, gained, lost, flags
MATCH (run:Reverification)
WHERE $run IS NULL OR run.id = $run
WITH run ORDER BY run.started_at DESC LIMIT 1
MATCH (run)<-[:IN_RUN]-(c:Recheck {changed: true})<-[:RECHECKED]-(a:Assertion)
MATCH (i:Item)-[:RESTS_ON]->(a)
RETURN run.id AS run, i.id AS item, i.task AS task, i.question AS question, i.answer AS answer,
       coalesce(i.standing, true) AS standing, a.id AS assertion,
       a.subject_text + " " + a.predicate + " " + a.object_text AS relation,
       c.previous_verdict AS was, c.verdict AS now, c.reason AS reason,
       [e IN c.evidence_edges WHERE NOT e IN coalesce(a.evidence_edges, [])] AS gained,
       [e IN coalesce(a.evidence_edges, []) WHERE NOT e IN c.evidence_edges] AS lost,
       coalesce(i.flags, []) AS flags
ORDER BY item, assertion
