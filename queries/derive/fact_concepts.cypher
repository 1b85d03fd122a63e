// What derivation needs about the concepts patient facts are coded as, once per concept
// (kgverify/derive/records.py reads a page of patients, then the concepts of its facts not
// read yet): name, names, kinds, active, stub, the MAPS_TO neighbours as its group, and
// whether it is an allergy (an is-a descendant, within 6 steps and across MAPS_TO, of one of
// $allergy_roots), and whether it is a health care activity (UMLS semantic type T058, on it
// or across MAPS_TO: a review of systems, a medication reconciliation). Read-only.
// @param ids: list of concept ids
// @param allergy_roots: concept ids whose is-a descendants count as allergies
// @returns id, name, names, kinds, active, stub, group, allergy, activity
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})
RETURN c.id AS id, c.name AS name, coalesce(c.names, []) AS names,
       coalesce(c.kinds, []) AS kinds, coalesce(c.active, true) AS active,
       coalesce(c.stub, false) AS stub,
       COLLECT { MATCH (c)-[:MAPS_TO]-(g:Concept) RETURN DISTINCT g.id ORDER BY g.id } AS group,
       EXISTS {
         MATCH (c)-[:MAPS_TO*0..1]-(:Concept)-[:IS_A*1..6]->(r:Concept)
         WHERE r.id IN $allergy_roots
       } AS allergy,
       EXISTS {
         MATCH (c)-[:MAPS_TO*0..1]-(u:Concept)
         WHERE 'T058' IN coalesce(u.tuis, [])
       } AS activity
