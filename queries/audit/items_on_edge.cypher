// What depends on this vocabulary relationship? The items resting on an assertion whose
// evidence paths use the edge (start)-[type]->(end) in its stored direction (the edge keys
// kept on each assertion), e.g. UMLS:C0002645 MAY_TREAT UMLS:C9900024.
// @param start: str: concept id at the edge's start
// @param type: str: relationship type, e.g. MAY_TREAT, IS_A, MAPS_TO
// @param end: str: concept id at the edge's end
// @returns item, task, current, standing, assertion, verdict, standing_verdict
MATCH (:Concept {id: $start})<-[:EVIDENCE]-(a:Assertion)
WHERE $start + "|" + $type + "|" + $end IN coalesce(a.evidence_edges, [])
MATCH (i:Item)-[:RESTS_ON]->(a)
RETURN i.id AS item, i.task AS task, i.current AS current,
       coalesce(i.standing, true) AS standing, a.id AS assertion, a.verdict AS verdict,
       coalesce(a.standing_verdict, a.verdict) AS standing_verdict
ORDER BY item, assertion
