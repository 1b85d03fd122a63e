// Enrichment of relations that passed, per distinct (subject, object, predicate) triple:
// each side's codes in every vocabulary and names (one MAPS_TO step), the object's non-hub
// is-a ancestors (3 steps, nearest first), the drug's classes (is-a parents of its
// ingredients), and every distractor candidate: concepts that the vocabulary relates, by
// the predicate's support edges, to a sibling or cousin of the object (through a non-hub
// ancestor, 2 steps up and down) but not to the object, its group or its ancestors, sorted
// by id. Nothing here depends on the patient: the verifier keeps each triple's answer for
// the run and leaves out, per relation, the concepts the patient has a fact of
// (verify/patient_codes) before taking the first $distractors. Read-only. Every walk names
// its relationship types: the support edges are written out (rules.SUPPORT_TYPES, checked
// by tests/unit/test_verify_rules.py; see direct.cypher).
// @param rows: list of {rid, subject, object, predicate}
// @param specs: map predicate -> list of {type, forward, weight} (the support table)
// @param hubs: map from the id of every general concept (hub) to true
// @returns rid, subject_name, object_name, subject_codes, object_codes, subject_names, object_names, ancestors, classes, distractors
UNWIND $rows AS row
MATCH (s:Concept {id: row.subject})
MATCH (o:Concept {id: row.object})
CALL (s) {
  MATCH (s)-[:MAPS_TO*0..1]-(e:Concept)
  WITH e ORDER BY e.id
  RETURN collect(DISTINCT e.id) AS subject_codes, collect(coalesce(e.names, [])) AS subject_names
}
CALL (o) {
  MATCH (o)-[:MAPS_TO*0..1]-(e:Concept)
  WITH e ORDER BY e.id
  RETURN collect(DISTINCT e.id) AS object_codes, collect(coalesce(e.names, [])) AS object_names
}
CALL (o) {
  OPTIONAL MATCH p = (o)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..3]->(a:Concept)
  WHERE $hubs[a.id] IS NULL
  WITH a, min(length(p)) AS steps ORDER BY steps, a.name
  RETURN [x IN collect(DISTINCT a.name) WHERE x IS NOT NULL][..10] AS ancestors
}
CALL (s) {
  OPTIONAL MATCH (s)-[:MAPS_TO*0..1]-(:Concept)
        -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*0..3]->
        (:Concept)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A]->(c:Concept)
  WHERE $hubs[c.id] IS NULL
    AND any(k IN coalesce(c.kinds, []) WHERE k IN ["ingredient", "substance", "drug_product"])
  WITH c ORDER BY c.name
  RETURN [x IN collect(DISTINCT c.name) WHERE x IS NOT NULL][..10] AS classes
}
CALL (o) {
  MATCH (o)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*0..3]->(:Concept)-[:MAPS_TO*0..1]-(u:Concept)
  WHERE $hubs[u.id] IS NULL
  RETURN collect(DISTINCT u.id) AS object_up
}
CALL (row, o, subject_codes, object_up) {
  OPTIONAL MATCH (o)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..2]->(up:Concept)
                 <-[:IS_A*1..2]-(:Concept)-[:MAPS_TO*0..1]-(sib:Concept)
  WHERE $hubs[up.id] IS NULL AND NOT sib.id IN object_up
  // Many paths lead to one sibling and many siblings to one candidate: each is kept once
  // before the next expansion, so the subqueries run once per candidate. Collecting them
  // in one group per relation (rather than DISTINCT over rows that carry the lists) keeps
  // the lists out of every kept key: the database charges a DISTINCT for each key's lists.
  WITH row, subject_codes, object_up, collect(DISTINCT sib) AS sibs
  UNWIND sibs AS sib
  UNWIND $specs[row.predicate] AS spec
  MATCH (d:Concept)-[r:MAY_TREAT|CONTRAINDICATED_FOR|DUE_TO|HAS_MANIFESTATION|ASSOCIATED_WITH]-(sib)
  WHERE type(r) = spec.type AND (spec.forward IS NULL OR (startNode(r) = d) = spec.forward)
    AND NOT d.id IN subject_codes AND $hubs[d.id] IS NULL
  WITH row, object_up, collect(DISTINCT d) AS candidates
  UNWIND candidates AS d
  WITH row, object_up, d
  WHERE NOT EXISTS {
      MATCH (d)-[r2:MAY_TREAT|CONTRAINDICATED_FOR|DUE_TO|HAS_MANIFESTATION|ASSOCIATED_WITH]-(u:Concept)
      WHERE u.id IN object_up AND type(r2) IN [x IN $specs[row.predicate] | x.type]
    }
  WITH d ORDER BY d.id
  RETURN collect(d.id) AS distractors
}
RETURN row.rid AS rid, s.name AS subject_name, o.name AS object_name, subject_codes,
       object_codes, subject_names, object_names, ancestors, classes, distractors
