// One page of assertions in id order, with what re-verification needs: linked concepts,
// predicate, confidence, evidence concepts, the standing verdict and how it was judged
// ("evidence" by the rules, "links" by a side's link status, which a release does not change).
// @param after: the last id of the previous page ("" for the first)
// @param limit: page size
// @returns id, subject, object, predicate, confidence, judged, nodes, verdict, passed, evidence_edges
MATCH (a:Assertion)
WHERE a.id > $after
WITH a ORDER BY a.id LIMIT $limit
RETURN a.id AS id, a.subject_id AS subject, a.object_id AS object, a.predicate AS predicate,
       a.confidence AS confidence, coalesce(a.judged, "evidence") AS judged,
       [(a)-[:EVIDENCE]->(c:Concept) | c.id] AS nodes,
       coalesce(a.standing_verdict, a.verdict) AS verdict,
       coalesce(a.standing_passed, a.passed) AS passed,
       coalesce(a.evidence_edges, []) AS evidence_edges
