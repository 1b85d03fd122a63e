// Graph checks of distractor candidates against an item's answer: is a candidate the answer
// itself or a synonym of it (the same concept, within two MAPS_TO steps, or sharing a name,
// case-insensitively), an is-a ancestor or descendant of it (6 steps, crossing MAPS_TO). The
// answer's sets are computed once per distinct answer of the batch (many items of a page
// share an answer), then every candidate is looked up in them. Whether the patient has a
// candidate is checked in Python against derive/concept_reach, read once per coded concept.
// Every walk names its relationship types.
// A retired candidate (active = false) is flagged too, so a re-derivation after a release
// never offers it. Also returns the answer's name. Read-only.
// @param rows: list of {rid, answer, candidates}
// @returns rid, answer_name, checked (list of {id, name, same, ancestor, descendant, retired})
CALL () {
  UNWIND $rows AS row
  WITH DISTINCT row.answer AS aid
  MATCH (a:Concept {id: aid})
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
  RETURN collect({
    answer: aid, name: a.name, group: group, ups: ups, downs: downs,
    names: [n IN coalesce(a.names, []) + [a.name] WHERE n IS NOT NULL | toLower(n)]
  }) AS answers
}
UNWIND $rows AS row
WITH row, [x IN answers WHERE x.answer = row.answer][0] AS answer
WHERE answer IS NOT NULL
WITH row, answer, answer.group AS group, answer.ups AS ups, answer.downs AS downs,
     answer.names AS answer_names
CALL (row, group, ups, downs, answer_names) {
  UNWIND row.candidates AS cid
  MATCH (c:Concept {id: cid})
  RETURN collect({
    id: c.id, name: c.name,
    same: c.id IN group
      OR any(n IN coalesce(c.names, []) + [c.name] WHERE toLower(n) IN answer_names),
    ancestor: c.id IN ups, descendant: c.id IN downs,
    retired: NOT coalesce(c.active, true) OR c.owner IS NULL
  }) AS checked
}
RETURN row.rid AS rid, answer.name AS answer_name, checked
