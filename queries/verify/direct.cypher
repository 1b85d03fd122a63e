// Rule `direct`: the vocabulary states the relation (or, with contradicting specs, its
// opposite) between the two linked concepts themselves. Each side may cross one MAPS_TO
// step, so an edge that MED-RT states on a UMLS CUI serves a mention linked to the SNOMED
// code that CUI contains: that is how every rule crosses vocabularies (only to concepts a
// loaded vocabulary owns: stub codes carry no edges). The two concepts are the relation's
// own, so no hub check applies here.
// Read-only. Edge types arrive as values in $specs and are compared with type(r); they come
// from kgverify/verify/rules.py (RelType members), never from input. The evidence edge's
// pattern also names every type the edge tables can use (rules.EVIDENCE_TYPES; a pattern
// cannot take a type list as a parameter), so the planner expands only vocabulary edges and
// never reads a concept's patient-fact (CODED_AS) or provenance edges: the cost of a
// relation does not grow with the patients and assertions in the graph.
// tests/unit/test_verify_rules.py checks the list against the tables.
// Serves every predicate (treats, contraindicated_for, indicates, leads_to) through its edge
// table in $specs: docs/verification.md lists which edges count for and against each.
// @param rows: list of {rid, subject, object, predicate}: one relation's linked concept ids
// @param specs: map predicate -> list of {type, forward, weight, stance}; forward null = either way; stance "support" or "contradict"
// @param max_paths: at most this many paths per relation, best first
// @returns rid, paths: list of {nodes, edges: list of {start, type, end}, depth, score, stance}
UNWIND $rows AS row
CALL (row) {
  MATCH ps = (:Concept {id: row.subject})-[:MAPS_TO*0..1]-(s:Concept)
  WHERE s.owner IS NOT NULL
  MATCH po = (:Concept {id: row.object})-[:MAPS_TO*0..1]-(o:Concept)
  WHERE o.owner IS NOT NULL
  UNWIND $specs[row.predicate] AS spec
  MATCH (s)-[r:MAY_TREAT|CONTRAINDICATED_FOR|DUE_TO|HAS_MANIFESTATION|ASSOCIATED_WITH]-(o)
  WHERE type(r) = spec.type AND coalesce(r.active, true)
    AND (spec.forward IS NULL OR (startNode(r) = s) = spec.forward)
  WITH ps, po, r, spec.weight AS score, spec.stance AS stance
  WITH stance, score, {
    nodes: [n IN nodes(ps) | n.id] + reverse([n IN nodes(po) | n.id]),
    edges: [x IN relationships(ps) + [r] + reverse(relationships(po)) |
            {start: startNode(x).id, type: type(x), end: endNode(x).id}],
    depth: 0, score: score, stance: stance} AS path,
       length(ps) + length(po) AS hops
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
