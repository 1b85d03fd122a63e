// What depends on this relation? The items resting on one assertion (an extracted relation,
// by its relation_id), current or not, with whether they still stand.
// @param assertion: str: the assertion's id (relation_id in verdicts JSONL)
// @returns item, task, split, answer_concept, current, standing
MATCH (:Assertion {id: $assertion})<-[:RESTS_ON]-(i:Item)
RETURN i.id AS item, i.task AS task, i.split AS split, i.answer_concept AS answer_concept,
       i.current AS current, coalesce(i.standing, true) AS standing
ORDER BY item
