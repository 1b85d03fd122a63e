// Rule `ancestor`: the vocabulary states the relation for an is-a ancestor of the relation's
// object, within $max_depth steps (at most 4). Sound in this direction only: a drug for
// "diabetes mellitus" says something about "type 2 diabetes mellitus" (its descendant), not
// the other way, and nothing about every disorder above it; so only the object side climbs,
// the score falls by $decay per step, and no concept on the climb may be a hub ($hubs:
// "Disease", "Clinical finding", ... and their CUIs). Each side may cross one MAPS_TO step
// at either end of the climb. Read-only; edge types only from $specs, the evidence edge's
// pattern typed with every type the edge tables can use (see direct.cypher).
// Serves every predicate (treats, contraindicated_for, indicates, leads_to) through its edge
// table in $specs: docs/verification.md lists which edges count for and against each.
// @param rows: list of {rid, subject, object, predicate}
// @param specs: map predicate -> list of {type, forward, weight, stance}
// @param hubs: map from the id of every general concept (hub) to true; `$hubs[id] IS NULL` is O(1)
// @param max_depth: is-a steps allowed above the object, 1 to 4
// @param decay: score factor per is-a step, e.g. 0.85
// @param max_paths: at most this many paths per relation, best first
// @returns rid, paths: list of {nodes, edges: list of {start, type, end}, depth, score, stance}
UNWIND $rows AS row
CALL (row) {
  MATCH po = (:Concept {id: row.object})-[:MAPS_TO*0..1]-(o:Concept)
  WHERE o.owner IS NOT NULL
  MATCH pa = (o)-[:IS_A*1..4]->(:Concept)
  WHERE length(pa) <= $max_depth
    AND all(x IN relationships(pa) WHERE coalesce(x.active, true))
    AND all(n IN tail(nodes(pa)) WHERE $hubs[n.id] IS NULL)
  WITH row, po, pa, last(nodes(pa)) AS a
  MATCH pm = (a)-[:MAPS_TO*0..1]-(t:Concept)
  WHERE t.owner IS NOT NULL AND $hubs[t.id] IS NULL
  MATCH ps = (:Concept {id: row.subject})-[:MAPS_TO*0..1]-(s:Concept)
  WHERE s.owner IS NOT NULL
  UNWIND $specs[row.predicate] AS spec
  MATCH (s)-[r:MAY_TREAT|CONTRAINDICATED_FOR|DUE_TO|HAS_MANIFESTATION|ASSOCIATED_WITH]-(t)
  WHERE type(r) = spec.type AND coalesce(r.active, true)
    AND (spec.forward IS NULL OR (startNode(r) = s) = spec.forward)
  WITH ps, po, pa, pm, r, spec.weight * $decay ^ length(pa) AS score, spec.stance AS stance
  WITH ps, r, score, stance, length(pa) AS depth, length(ps) + length(po) + length(pm) AS hops,
       relationships(po) + relationships(pa) + relationships(pm) AS up,
       nodes(po) + tail(nodes(pa)) + tail(nodes(pm)) AS climb
  WITH stance, score, {
    nodes: [n IN nodes(ps) | n.id] + reverse([n IN climb | n.id]),
    edges: [x IN relationships(ps) + [r] + reverse(up) |
            {start: startNode(x).id, type: type(x), end: endNode(x).id}],
    depth: depth, score: score, stance: stance} AS path, hops
  // Equal scores and lengths are ordered by the path's own ids and types, so the paths
  // kept (and the verdict's evidence) do not depend on the store's internal order.
  ORDER BY score DESC, hops,
           reduce(k = '', e IN path.edges | k + e.start + ' ' + e.type + ' ' + e.end + ';')
  // The best $max_paths of each stance, so support never crowds out a contradiction.
  WITH stance, collect(path)[..$max_paths] AS best
  UNWIND best AS path
  RETURN collect(path) AS paths
}
WITH row, paths WHERE size(paths) > 0
RETURN row.rid AS rid, paths
