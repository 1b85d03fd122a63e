// One page of current items in id order, with what decides whether they still stand: the
// standing verdicts of the assertions they rest on, which of their answer and distractor
// concepts are retired, their distractors and distractor checks (JSON), and their flags;
// task, topic and answer concept, and the conditions the question shows (the facts it
// rests on that are conditions, with their concepts), for re-judging the distractors'
// justifications; and the why_wrong JSON (a patient-specific lure is not re-checked for
// rule support: derivation admits it with that support).
// @param after: the last id of the previous page ("" for the first)
// @param limit: page size
// @returns id, task, topic, answer, basis (list of {id, passed, verdict}), retired (list of {id, release}: inactive answer or distractor concepts), distractors (concept ids), checks, standing, flags, shown (list of {fact_id, concept_id, start, end, text}), why_wrong (JSON)
MATCH (i:Item)
WHERE i.current AND i.id > $after
WITH i ORDER BY i.id LIMIT $limit
RETURN i.id AS id, i.task AS task, i.topic AS topic, i.answer_concept AS answer,
       [(i)-[:RESTS_ON]->(a:Assertion) |
        {id: a.id, passed: coalesce(a.standing_passed, a.passed),
         verdict: coalesce(a.standing_verdict, a.verdict)}] AS basis,
       [(i)-[:ANSWER|DISTRACTOR]->(c:Concept) WHERE c.active = false |
        {id: c.id, release: c.retired_in}] AS retired,
       [(i)-[:DISTRACTOR]->(d:Concept) | d.id] AS distractors,
       coalesce(i.checks, "[]") AS checks, coalesce(i.standing, true) AS standing,
       coalesce(i.flags, []) AS flags, coalesce(i.why_wrong, "[]") AS why_wrong,
       [(i)-[:FROM_FACT]->(f:Fact)-[:CODED_AS]->(c:Concept) WHERE f.kind = "condition" |
        {fact_id: f.id, concept_id: c.id, start: toString(f.start), end: toString(f.end),
         text: coalesce(c.name, c.id)}] AS shown
