// What depends on this concept? Every item that uses it, and how: as its answer, as a
// distractor, or through an assertion it rests on (the concept is the assertion's linked
// subject or object, or lies on one of its evidence paths).
// @param concept: str: id of an existing concept, e.g. SNOMEDCT:43878008 or UMLS:C0002645
// @returns item, task, question, answer, concept_name, role, assertion, current, standing
MATCH (c:Concept {id: $concept})
CALL (c) {
  MATCH (i:Item)-[:ANSWER]->(c)
  RETURN i, "answer" AS role, null AS assertion
  UNION
  MATCH (i:Item)-[:DISTRACTOR]->(c)
  RETURN i, "distractor" AS role, null AS assertion
  UNION
  MATCH (i:Item)-[:RESTS_ON]->(a:Assertion)-[r:SUBJECT|OBJECT|EVIDENCE]->(c)
  RETURN i, toLower(type(r)) AS role, a.id AS assertion
}
RETURN i.id AS item, i.task AS task, i.question AS question, i.answer AS answer,
       c.name AS concept_name, role, assertion, i.current AS current,
       coalesce(i.standing, true) AS standing
ORDER BY item, role, assertion
