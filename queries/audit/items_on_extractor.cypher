// What depends on this extractor? The items resting on relations an extractor proposed,
// named "name@version" (template@0.1.0) or by name alone (every version).
// @param extractor: str: extractor name or name@version
// @returns item, task, question, answer, current, standing, extractors, assertions
MATCH (i:Item)-[:RESTS_ON]->(a:Assertion)
WHERE a.extractor = $extractor OR a.extractor STARTS WITH $extractor + "@"
WITH i, collect(DISTINCT a.extractor) AS extractors, collect(a.id) AS assertions
RETURN i.id AS item, i.task AS task, i.question AS question, i.answer AS answer,
       i.current AS current,
       coalesce(i.standing, true) AS standing, extractors, assertions
ORDER BY item
