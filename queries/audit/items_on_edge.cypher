// What depends on this vocabulary relationship? The items resting on an assertion whose
// evidence paths use the edge (start)-[type]->(end) in its stored direction (the edge keys
// kept on each assertion), e.g. UMLS:C0002645 MAY_TREAT UMLS:C9900024.
// @param start: str: id of an existing concept, the edge's start
// @param type: str: relationship type, one of RelType (e.g. MAY_TREAT, IS_A, MAPS_TO; any case)
// @param end: str: id of an existing concept, the edge's end
// @returns item, task, question, answer, current, standing, assertion, predicate, subject_text, object_text, verdict, standing_verdict, edge
MATCH (:Concept {id: $start})<-[:EVIDENCE]-(a:Assertion)
WHERE $start + "|" + $type + "|" + $end IN coalesce(a.evidence_edges, [])
MATCH (i:Item)-[:RESTS_ON]->(a)
MATCH (s:Concept {id: $start}), (e:Concept {id: $end})
RETURN i.id AS item, i.task AS task, i.question AS question, i.answer AS answer,
       i.current AS current, coalesce(i.standing, true) AS standing, a.id AS assertion,
       a.predicate AS predicate, a.subject_text AS subject_text, a.object_text AS object_text,
       a.verdict AS verdict, coalesce(a.standing_verdict, a.verdict) AS standing_verdict,
       s.name + " -[" + $type + "]-> " + e.name AS edge
ORDER BY item, assertion
