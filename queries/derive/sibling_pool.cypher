// Distractor candidates for an answer concept: its siblings and cousins (concepts below a
// non-hub is-a ancestor of the answer, up to 2 steps up and 2 down, crossing MAPS_TO) that
// are active, owned by a loaded vocabulary, of one of the wanted kinds, and neither an
// ancestor nor a descendant of the answer. Read-only; candidates come in id order.
// @param rows: list of {rid, concept, kinds}
// @param hubs: map from the id of every general concept (hub) to true
// @param limit: at most this many candidates per row
// @returns rid, pool
UNWIND $rows AS row
MATCH (o:Concept {id: row.concept})
CALL (o) {
  MATCH (o)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*0..4]->(:Concept)-[:MAPS_TO*0..1]-(u:Concept)
  RETURN collect(DISTINCT u.id) AS ups
}
CALL (o) {
  MATCH (o)-[:MAPS_TO*0..1]-(:Concept)<-[:IS_A*0..4]-(:Concept)-[:MAPS_TO*0..1]-(d:Concept)
  RETURN collect(DISTINCT d.id) AS downs
}
CALL (row, o, ups, downs) {
  OPTIONAL MATCH (o)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..2]->(up:Concept)
                 <-[:IS_A*1..2]-(sib:Concept)
  WHERE $hubs[up.id] IS NULL AND $hubs[sib.id] IS NULL AND NOT sib.id IN ups AND NOT sib.id IN downs
    AND sib.owner IS NOT NULL AND coalesce(sib.active, true)
    AND any(k IN coalesce(sib.kinds, []) WHERE k IN row.kinds)
  WITH DISTINCT sib WHERE sib IS NOT NULL
  ORDER BY sib.id
  RETURN collect(sib.id)[..$limit] AS pool
}
RETURN row.rid AS rid, pool
