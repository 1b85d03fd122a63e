// What a patient "has" through one coded concept, for the distractor guard
// (kgverify/derive/qa.py): the concept itself and its MAPS_TO neighbours within two steps,
// its is-a ancestors within 3 steps (crossing MAPS_TO; a distractor the patient has a
// descendant of), and for drugs the ingredients and forms it contains (brand, component,
// ingredient, precise ingredient and form steps, up to 3, crossing MAPS_TO). Read once per
// concept, not per patient: the patient's set is the union over its coded concepts. Every
// walk names its relationship types. Read-only.
// @param ids: list of concept ids (the concepts patient facts are coded as)
// @returns id, reach
UNWIND $ids AS cid
MATCH (fc:Concept {id: cid})
CALL (fc) {
  MATCH (fc)-[:MAPS_TO*0..2]-(x:Concept)
  RETURN x.id AS reached
  UNION
  MATCH (fc)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..3]->(:Concept)-[:MAPS_TO*0..1]-(x:Concept)
  RETURN x.id AS reached
  UNION
  MATCH (fc)-[:MAPS_TO*0..1]-(:Concept)
        -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*1..3]->
        (:Concept)-[:MAPS_TO*0..1]-(x:Concept)
  RETURN x.id AS reached
}
RETURN fc.id AS id, collect(reached) AS reach
