// Graph checks of distractor candidates against an item's answer and patient: is the
// candidate the answer itself or a synonym of it (the same concept, within two MAPS_TO steps,
// or sharing a name, case-insensitively), an is-a ancestor or descendant of it (6 steps,
// crossing MAPS_TO), or something the patient has a fact of (the concept, a descendant of it
// within 3 is-a steps, or, for drugs, a product containing it: brand, component,
// ingredient, precise ingredient and form steps, up to 3). Read-only.
// @param rows: list of {rid, answer, candidate, patient_id}
// @returns rid, name, same, ancestor, descendant, patient_has
UNWIND $rows AS row
MATCH (a:Concept {id: row.answer})
MATCH (c:Concept {id: row.candidate})
WITH row, a, c,
     [n IN coalesce(a.names, []) + [a.name] WHERE n IS NOT NULL | toLower(n)] AS answer_names
RETURN row.rid AS rid, c.name AS name,
       a = c OR EXISTS { (a)-[:MAPS_TO*1..2]-(c) }
         OR any(n IN coalesce(c.names, []) + [c.name] WHERE toLower(n) IN answer_names)
         AS same,
       EXISTS { (a)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..6]->(:Concept)-[:MAPS_TO*0..1]-(c) }
         AS ancestor,
       EXISTS { (c)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..6]->(:Concept)-[:MAPS_TO*0..1]-(a) }
         AS descendant,
       EXISTS {
         MATCH (:Patient {id: row.patient_id})-[:HAS_FACT]->(:Fact)-[:CODED_AS]->(fc:Concept)
         WHERE fc = c
            OR EXISTS { (fc)-[:MAPS_TO*1..2]-(c) }
            OR EXISTS { (fc)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..3]->(:Concept)
                        -[:MAPS_TO*0..1]-(c) }
            OR EXISTS { (fc)-[:MAPS_TO*0..1]-(:Concept)
                        -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*1..3]->
                        (:Concept)-[:MAPS_TO*0..1]-(c) }
       } AS patient_has
