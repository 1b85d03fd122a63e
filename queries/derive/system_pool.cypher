// Distractor candidates in a condition answer's body systems: the concepts below the
// answer's top non-hub is-a ancestors (no non-hub parent above them, e.g. "Disorder of
// respiratory system"; up to 6 steps up, crossing MAPS_TO), up to 4 steps down; active,
// owned by a loaded vocabulary, of one of the wanted kinds, not hubs, not the answer.
// Whether each is a defensible wrong answer is for the justification rules
// (kgverify/derive/justify.py). Read-only; candidates in id order.
// @param rows: list of {rid, concept, kinds}
// @param hubs: map from the id of every general concept (hub) to true
// @param limit: at most this many candidates per row
// @returns rid, pool
UNWIND $rows AS row
MATCH (o:Concept {id: row.concept})
CALL (row, o) {
  OPTIONAL MATCH (o)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..6]->(t:Concept)
  WHERE $hubs[t.id] IS NULL AND coalesce(t.active, true)
    AND NOT EXISTS { MATCH (t)-[:IS_A]->(p:Concept) WHERE $hubs[p.id] IS NULL }
  WITH DISTINCT t WHERE t IS NOT NULL
  MATCH (t)<-[:IS_A*1..4]-(c:Concept)
  WHERE c.id <> o.id AND $hubs[c.id] IS NULL AND c.owner IS NOT NULL
    AND coalesce(c.active, true) AND any(x IN coalesce(c.kinds, []) WHERE x IN row.kinds)
  WITH DISTINCT c ORDER BY c.id
  RETURN collect(c.id)[..$limit] AS pool
}
RETURN row.rid AS rid, pool
