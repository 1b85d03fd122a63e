// What depends on this relation? The items resting on one assertion, current or not, with
// whether they still stand. `assertion` is the assertion's id or a relation_id as in verdicts
// JSONL: when a relation_id was reused for different relations it names several assertions,
// and the items of each come back with the assertion they rest on.
// @param assertion: str: id of an existing assertion, or its relation_id (verdicts JSONL)
// @returns assertion, relation, item, task, split, question, answer, answer_concept, current, standing
MATCH (a:Assertion)
WHERE a.id = $assertion OR a.relation_id = $assertion
MATCH (a)<-[:RESTS_ON]-(i:Item)
RETURN a.id AS assertion,
       a.subject_text + " " + a.predicate + " " + a.object_text AS relation,
       i.id AS item, i.task AS task, i.split AS split, i.question AS question,
       i.answer AS answer, i.answer_concept AS answer_concept, i.current AS current,
       coalesce(i.standing, true) AS standing
ORDER BY item, assertion
