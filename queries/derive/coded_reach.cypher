// What a patient "has" through one coded concept, for the age and sex fit of distractors
// (kgverify/derive/fit.py): the concept itself and its MAPS_TO neighbours within two steps,
// and for drugs the ingredients and forms it contains (brand, component, ingredient,
// precise ingredient and form steps, up to 3, crossing MAPS_TO). Unlike
// derive/concept_reach, no is-a ancestors: a grouping ("Ischemic heart disease") is never
// coded, so the cohort shows nobody has it as such. Read-only.
// @param ids: list of concept ids (the concepts patient facts are coded as)
// @returns id, reach
UNWIND $ids AS cid
MATCH (fc:Concept {id: cid})
CALL (fc) {
  MATCH (fc)-[:MAPS_TO*0..2]-(x:Concept)
  RETURN x.id AS reached
  UNION
  MATCH (fc)-[:MAPS_TO*0..1]-(:Concept)
        -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*1..3]->
        (:Concept)-[:MAPS_TO*0..1]-(x:Concept)
  RETURN x.id AS reached
}
RETURN fc.id AS id, collect(reached) AS reach
