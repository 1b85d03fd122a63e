// Is-a ancestors of concepts, for the distractor justifications (kgverify/derive/justify.py).
// For each id: every concept reached by 0..1 MAPS_TO step, 0..6 active is-a steps and 0..1
// MAPS_TO step, with the fewest is-a steps (d, 0 for the concept and its MAPS_TO group)
// and whether some such path passes no general concept (clean: no hub after the start).
// Retired concepts and edges are not climbed. Two concepts are "near" when they share a
// clean ancestor close enough to the item's topic; their distance is the fewest is-a steps
// through a shared ancestor. Read-only.
// @param ids: list of concept ids
// @param hubs: map from the id of every general concept (hub) to true
// @returns id, up: list of {id, d, clean}
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})
CALL (c) {
  MATCH p = (c)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*0..6]->(:Concept)-[:MAPS_TO*0..1]-(u:Concept)
  WHERE coalesce(u.active, true)
    AND all(r IN relationships(p) WHERE coalesce(r.active, true))
  WITH u, size([r IN relationships(p) WHERE type(r) = "IS_A"]) AS d,
       all(n IN tail(nodes(p)) WHERE $hubs[n.id] IS NULL) AS clean
  WITH u.id AS id, min(d) AS d, max(CASE WHEN clean THEN 1 ELSE 0 END) = 1 AS clean
  RETURN collect({id: id, d: d, clean: clean}) AS up
}
RETURN c.id AS id, up
