// Distractor candidates in a drug answer's therapeutic area: the ingredients below the WHO
// ATC level-2 groups (therapeutic subgroups, `ATC:` codes of three characters) the answer's
// ingredient classes reach within 3 is-a steps (ingredient -> level 4 -> 3 -> 2), up to 3
// steps down, crossing MAPS_TO at the answer; active, owned by a loaded vocabulary, of one
// of the wanted kinds, not the answer. Whether each is a defensible wrong answer is for the
// justification rules (kgverify/derive/justify.py). Read-only; candidates in id order.
// @param rows: list of {rid, concept, kinds}
// @param limit: at most this many candidates per row
// @returns rid, pool
UNWIND $rows AS row
MATCH (o:Concept {id: row.concept})
CALL (row, o) {
  OPTIONAL MATCH (o)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..3]->(k:Concept)
                 -[:MAPS_TO]-(a:Concept)
  WHERE a.id STARTS WITH "ATC:" AND size(a.id) = 7 AND coalesce(k.active, true)
  WITH DISTINCT k WHERE k IS NOT NULL
  MATCH (k)<-[:IS_A*1..3]-(d:Concept)
  WHERE d.id <> o.id AND d.owner IS NOT NULL AND coalesce(d.active, true)
    AND any(x IN coalesce(d.kinds, []) WHERE x IN row.kinds)
  WITH DISTINCT d ORDER BY d.id
  RETURN collect(d.id)[..$limit] AS pool
}
RETURN row.rid AS rid, pool
