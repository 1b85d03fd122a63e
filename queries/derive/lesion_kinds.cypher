// Which of the given concepts name a kind of lesion rather than a body system, for the
// distractor justifications' neighbourhoods (kgverify/derive/justify.py): those with an
// active ASSOCIATED_MORPHOLOGY (SNOMED CT's "Fracture of bone" -> Fracture, "Burn" -> Burn
// injury), on the concept or one MAPS_TO step away. A top grouping with a morphology
// characterizes what lies below it; one without ("Disorder of respiratory system") only
// locates it. Read-only.
// @param ids: list of concept ids
// @returns id
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})
WHERE EXISTS {
  MATCH (c)-[:MAPS_TO*0..1]-(:Concept)-[m:ASSOCIATED_MORPHOLOGY]->(:Concept)
  WHERE coalesce(m.active, true)
}
RETURN c.id AS id
