// Does the graph hold a node of this kind with this id? The audit catalog asks before it
// runs a query whose parameter names an existing item, assertion (its id or its
// relation_id), concept, rule (its id), re-verification run or checked dialogue, so that a
// mistyped id is "no such item: X", never an empty answer.
// @param kind: one of item, assertion, concept, rule, run, dialogue
// @param id: the id to look for
// @returns found: true when a node of that kind has that id
RETURN CASE $kind
  WHEN "item" THEN EXISTS { MATCH (:Item {id: $id}) }
  WHEN "assertion" THEN EXISTS { MATCH (a:Assertion) WHERE a.id = $id OR a.relation_id = $id }
  WHEN "concept" THEN EXISTS { MATCH (:Concept {id: $id}) }
  WHEN "rule" THEN EXISTS { MATCH (:Rule {id: $id}) }
  WHEN "run" THEN EXISTS { MATCH (:Reverification {id: $id}) }
  WHEN "dialogue" THEN EXISTS { MATCH (:Dialogue {id: $id}) }
  ELSE false
END AS found
