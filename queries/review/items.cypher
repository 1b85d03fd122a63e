// What importing a review sheet checks rows against, for the items it names: each item's
// task, topic and content key (the keys reviewer decisions are kept under), its answer
// label and concept, whether it is current, its options (label, concept, name; the answer's
// from ANSWER, the distractors' from DISTRACTOR {label}) and the ids of the assertions it
// rests on. Ids the graph does not hold give no row.
// @param ids: item ids named by the sheet
// @returns id, task, topic, content_key, answer, answer_concept, current, options (list of {label, concept, name}), basis (assertion ids)
UNWIND $ids AS id
MATCH (i:Item {id: id})
RETURN i.id AS id, i.task AS task, i.topic AS topic, i.content_key AS content_key,
       i.answer AS answer, i.answer_concept AS answer_concept,
       coalesce(i.current, false) AS current,
       [(i)-[:ANSWER]->(c:Concept) | {label: i.answer, concept: c.id, name: c.name}] +
       [(i)-[d:DISTRACTOR]->(c:Concept) | {label: d.label, concept: c.id, name: c.name}]
         AS options,
       [(i)-[:RESTS_ON]->(a:Assertion) | a.id] AS basis
