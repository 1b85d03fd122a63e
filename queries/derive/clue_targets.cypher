// Where a clue points, for the diagnosis and prognosis justifications
// (kgverify/derive/justify.py): for a finding or test (predicate "indicates"), the
// conditions that have it as a manifestation (HAS_MANIFESTATION) or are associated with it
// (ASSOCIATED_WITH); for a condition (predicate "leads_to"), the outcomes due to it (DUE_TO),
// its manifestations and associated conditions. The edges mirror the support tables of the
// verification rules (kgverify/verify/rules.py) and are typed here, so a concept's patient
// and provenance edges are never read. Each target comes as the cited edge with its source
// (sab) and release; the concept crosses one MAPS_TO step. Only active concepts and edges.
// Read-only.
// @param rows: list of {concept, predicate} with predicate "indicates" or "leads_to"
// @returns concept, predicate, edges
UNWIND $rows AS row
MATCH (c:Concept {id: row.concept})
CALL (c, row) {
  WITH c, row WHERE row.predicate = "indicates"
  MATCH (c)-[:MAPS_TO*0..1]-(x:Concept)<-[r:HAS_MANIFESTATION]-(t:Concept)
  RETURN x, r, t
  UNION
  WITH c, row WHERE row.predicate IN ["indicates", "leads_to"]
  MATCH (c)-[:MAPS_TO*0..1]-(x:Concept)-[r:ASSOCIATED_WITH]-(t:Concept)
  RETURN x, r, t
  UNION
  WITH c, row WHERE row.predicate = "leads_to"
  MATCH (c)-[:MAPS_TO*0..1]-(x:Concept)<-[r:DUE_TO]-(t:Concept)
  RETURN x, r, t
  UNION
  WITH c, row WHERE row.predicate = "leads_to"
  MATCH (c)-[:MAPS_TO*0..1]-(x:Concept)-[r:HAS_MANIFESTATION]->(t:Concept)
  RETURN x, r, t
}
WITH row, x, r, t
WHERE coalesce(r.active, true) AND coalesce(t.active, true) AND t.id <> x.id
WITH row, x, r, t ORDER BY t.id, x.id, type(r), r.sab
RETURN row.concept AS concept, row.predicate AS predicate,
       collect({start: startNode(r).id, start_name: startNode(r).name, type: type(r),
                end: endNode(r).id, end_name: endNode(r).name, target: t.id,
                source: r.sab, release: coalesce(r.release, r.first_release)}) AS edges
