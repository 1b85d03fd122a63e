// Removes duplicate relationships (same start, type, end, sab and role group) that a bulk
// import created from repeated source rows; the batched path never creates them (MERGE).
// Works node by node in batches of 1,000 (auto-commit), so memory stays flat.
// @param vocab: vocabulary whose import wrote the relationships
// @returns removed: number of duplicate relationships deleted
MATCH (a:Concept)
CALL (a) {
  MATCH (a)-[r]->(b)
  WHERE r.source = $vocab
  WITH b, type(r) AS t, r.sab AS sab, r.group AS g, collect(r) AS rs
  WHERE size(rs) > 1
  UNWIND tail(rs) AS extra
  DELETE extra
  RETURN count(*) AS removed
} IN TRANSACTIONS OF 1000 ROWS
RETURN sum(removed) AS removed
