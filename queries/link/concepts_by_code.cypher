// The concepts a source code denotes, mapped through the graph: the concept with that id
// if a loaded vocabulary owns it and it is active, else the owned, active concepts that
// contain it as a MAPS_TO target (a LOINC or ICD-10-CM code reaches its UMLS CUI).
// @param ids: concept ids built from (code system, code), e.g. ["SNOMEDCT:22298006"]
// @returns code_id, id, vocab, name, kinds, mapped
UNWIND $ids AS code_id
MATCH (c:Concept {id: code_id})
CALL (c) {
  WITH c WHERE c.owner IS NOT NULL AND coalesce(c.active, true)
  RETURN c AS target, false AS mapped
  UNION
  WITH c WHERE c.owner IS NULL
  MATCH (t:Concept)-[:MAPS_TO]->(c)
  WHERE t.owner IS NOT NULL AND coalesce(t.active, true)
  RETURN t AS target, true AS mapped
}
RETURN code_id, target.id AS id, target.owner AS vocab, coalesce(target.name, target.id) AS name,
       coalesce(target.kinds, []) AS kinds, mapped
ORDER BY code_id, mapped, id
