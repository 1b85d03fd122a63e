// Graph checks of distractor candidates against an item's answer and patient: is a
// candidate the answer itself or a synonym of it (the same concept, within two MAPS_TO
// steps, or sharing a name, case-insensitively), an is-a ancestor or descendant of it (6
// steps, crossing MAPS_TO), or something the patient has a fact of (the concept, a
// descendant of it within 3 is-a steps, or, for drugs, a product containing it: brand,
// component, ingredient, precise ingredient and form steps, up to 3). The answer's sets are
// computed once per row and the patient's once per distinct patient of the batch (a page
// holds many items of one patient), then every candidate is looked up in them. Every walk
// names its relationship types.
// A retired candidate (active = false) is flagged too, so a re-derivation after a release
// never offers it. Also returns the answer's name. Read-only.
// @param rows: list of {rid, answer, patient_id, candidates}
// @returns rid, answer_name, checked (list of {id, name, same, ancestor, descendant, patient_has, retired})
CALL () {
  UNWIND $rows AS row
  WITH DISTINCT row.patient_id AS pid
  CALL (pid) {
    OPTIONAL MATCH (:Patient {id: pid})-[:HAS_FACT]->(:Fact)-[:CODED_AS]->(fc:Concept)
    WITH collect(DISTINCT fc) AS coded
    CALL (coded) {
      UNWIND coded AS fc
      MATCH (fc)-[:MAPS_TO*0..2]-(x:Concept)
      RETURN x.id AS id
      UNION
      UNWIND coded AS fc
      MATCH (fc)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..3]->(:Concept)-[:MAPS_TO*0..1]-(x:Concept)
      RETURN x.id AS id
      UNION
      UNWIND coded AS fc
      MATCH (fc)-[:MAPS_TO*0..1]-(:Concept)
            -[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*1..3]->
            (:Concept)-[:MAPS_TO*0..1]-(x:Concept)
      RETURN x.id AS id
    }
    RETURN collect(DISTINCT id) AS has
  }
  RETURN collect({patient: pid, has: has}) AS patients
}
UNWIND $rows AS row
MATCH (a:Concept {id: row.answer})
CALL (a) {
  MATCH (a)-[:MAPS_TO*0..2]-(x:Concept)
  RETURN collect(DISTINCT x.id) AS group
}
CALL (a) {
  OPTIONAL MATCH (a)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..6]->(:Concept)
                 -[:MAPS_TO*0..1]-(u:Concept)
  RETURN collect(DISTINCT u.id) AS ups
}
CALL (a) {
  OPTIONAL MATCH (a)-[:MAPS_TO*0..1]-(:Concept)<-[:IS_A*1..6]-(:Concept)
                 -[:MAPS_TO*0..1]-(d:Concept)
  RETURN collect(DISTINCT d.id) AS downs
}
WITH row, a, group, ups, downs,
     coalesce([p IN patients WHERE p.patient = row.patient_id][0].has, []) AS has,
     [n IN coalesce(a.names, []) + [a.name] WHERE n IS NOT NULL | toLower(n)] AS answer_names
CALL (row, group, ups, downs, has, answer_names) {
  UNWIND row.candidates AS cid
  MATCH (c:Concept {id: cid})
  RETURN collect({
    id: c.id, name: c.name,
    same: c.id IN group
      OR any(n IN coalesce(c.names, []) + [c.name] WHERE toLower(n) IN answer_names),
    ancestor: c.id IN ups, descendant: c.id IN downs, patient_has: c.id IN has,
    retired: NOT coalesce(c.active, true) OR c.owner IS NULL
  }) AS checked
}
RETURN row.rid AS rid, a.name AS answer_name, checked
