// The drugs known to treat or prevent a condition, for the class rule of the treatment
// justification (kgverify/derive/justify.py): drugs with an active MAY_TREAT or MAY_PREVENT
// edge into the condition, its MAPS_TO group, an is-a descendant (1 to 2 steps) or a
// non-hub is-a ancestor (1 to 2 steps) of it. A distractor that shares a class with one of
// them is not admissible. Read-only.
// @param ids: list of condition concept ids
// @param hubs: map from the id of every general concept (hub) to true
// @returns id, treaters: list of drug concept ids
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})
CALL (c) {
  MATCH (c)-[:MAPS_TO*0..1]-(x:Concept)
  RETURN x
  UNION
  MATCH (c)-[:MAPS_TO*0..1]-(:Concept)<-[:IS_A*1..2]-(:Concept)-[:MAPS_TO*0..1]-(x:Concept)
  RETURN x
  UNION
  MATCH p = (c)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..2]->(:Concept)-[:MAPS_TO*0..1]-(x:Concept)
  WHERE all(n IN tail(nodes(p)) WHERE $hubs[n.id] IS NULL)
  RETURN x
}
OPTIONAL MATCH (drug:Concept)-[r:MAY_TREAT|MAY_PREVENT]->(x)
WHERE coalesce(r.active, true) AND coalesce(drug.active, true)
WITH c, drug ORDER BY drug.id
RETURN c.id AS id, [d IN collect(DISTINCT drug) | d.id] AS treaters
