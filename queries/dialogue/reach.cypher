// What each concept reaches, for the dialogue checker (docs/dialogue.md): itself and its
// MAPS_TO counterparts (same); its non-hub is-a ancestors up to $max_depth steps, each with
// its shortest path, so a patient's broader word ("sinusitis") is grounded by a recorded
// narrower fact ("acute bacterial sinusitis"); and the ingredients it stands for through
// brand and product edges (TRADENAME_OF, CONSISTS_OF, HAS_INGREDIENT, HAS_PRECISE_INGREDIENT,
// FORM_OF), so "Tylenol" meets "Acetaminophen 325 MG Oral Tablet"; and the findings it or
// its non-hub is-a ancestors (2 steps) manifest (HAS_MANIFESTATION), so "short of breath"
// meets a recorded heart failure; and the morphologies it has (ASSOCIATED_MORPHOLOGY), so a
// patient's "my ulcer" meets a recorded peptic ulcer and "the bleeding" a recorded
// gastrointestinal hemorrhage. Read-only; every relationship pattern typed; inactive
// edges are not walked.
// @param ids: concept ids (the fact sheet's and the mentions' concepts)
// @param hubs: map from the id of every general concept (hub) to true; `$hubs[id] IS NULL` is O(1)
// @param max_depth: is-a steps up, 0 to 3
// @returns id, same: list of ids, up: list of {id, depth, edges}, ingredients: list of {id, edges}, manifests: list of {id, edges}, morphologies: list of {id, edges}; edges: list of {start, type, end}
UNWIND $ids AS id
MATCH (c:Concept {id: id})
CALL (c) {
  MATCH (c)-[:MAPS_TO*0..1]-(e:Concept)
  RETURN collect(DISTINCT e.id) AS same
}
CALL (c) {
  MATCH p = (c)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..3]->(:Concept)-[:MAPS_TO*0..1]-(a:Concept)
  WHERE size([x IN relationships(p) WHERE type(x) = 'IS_A']) <= $max_depth
    AND all(x IN relationships(p) WHERE coalesce(x.active, true))
    AND all(n IN tail(nodes(p)) WHERE $hubs[n.id] IS NULL)
  // Paths of one length are ordered by their ids and types: the evidence kept does not
  // depend on the store's internal order.
  WITH a, p
    ORDER BY length(p),
             reduce(k = '', x IN relationships(p) |
                    k + startNode(x).id + ' ' + type(x) + ' ' + endNode(x).id + ';')
  WITH a, head(collect(p)) AS p ORDER BY a.id
  RETURN collect({
    id: a.id,
    depth: size([x IN relationships(p) WHERE type(x) = 'IS_A']),
    edges: [x IN relationships(p) | {start: startNode(x).id, type: type(x), end: endNode(x).id}]
  }) AS up
}
CALL (c) {
  MATCH p = (c)-[:MAPS_TO*0..1]-(:Concept)
            -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*0..3]->
            (i:Concept)-[:MAPS_TO*0..1]-(j:Concept)
  WHERE 'ingredient' IN coalesce(i.kinds, [])
    AND all(x IN relationships(p) WHERE coalesce(x.active, true))
  WITH j, p
    ORDER BY length(p),
             reduce(k = '', x IN relationships(p) |
                    k + startNode(x).id + ' ' + type(x) + ' ' + endNode(x).id + ';')
  WITH j, head(collect(p)) AS p ORDER BY j.id
  RETURN collect({
    id: j.id,
    edges: [x IN relationships(p) | {start: startNode(x).id, type: type(x), end: endNode(x).id}]
  }) AS ingredients
}
CALL (c) {
  MATCH p = (c)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*0..2]->(d:Concept)
            -[:HAS_MANIFESTATION]->(:Concept)-[:MAPS_TO*0..1]-(f:Concept)
  WHERE all(x IN relationships(p) WHERE coalesce(x.active, true))
    AND $hubs[d.id] IS NULL
  WITH f, p
    ORDER BY length(p),
             reduce(k = '', x IN relationships(p) |
                    k + startNode(x).id + ' ' + type(x) + ' ' + endNode(x).id + ';')
  WITH f, head(collect(p)) AS p ORDER BY f.id
  RETURN collect({
    id: f.id,
    edges: [x IN relationships(p) | {start: startNode(x).id, type: type(x), end: endNode(x).id}]
  }) AS manifests
}
CALL (c) {
  MATCH p = (c)-[:MAPS_TO*0..1]-(:Concept)-[:ASSOCIATED_MORPHOLOGY]->(:Concept)
            -[:MAPS_TO*0..1]-(m:Concept)
  WHERE all(x IN relationships(p) WHERE coalesce(x.active, true))
    AND $hubs[m.id] IS NULL
  WITH m, p
    ORDER BY length(p),
             reduce(k = '', x IN relationships(p) |
                    k + startNode(x).id + ' ' + type(x) + ' ' + endNode(x).id + ';')
  WITH m, head(collect(p)) AS p ORDER BY m.id
  RETURN collect({
    id: m.id,
    edges: [x IN relationships(p) | {start: startNode(x).id, type: type(x), end: endNode(x).id}]
  }) AS morphologies
}
RETURN id, same, up, ingredients, manifests, morphologies
