// How two runs' patients and derived items overlap: in both, only in the first, only in
// the second (items by content id, so the same item derived twice counts once).
// @param a: the first run's id
// @param b: the second run's id
// @returns what, both, only_a, only_b
CALL () {
  MATCH (p:Patient)-[:IN_RUN]->(r:Run) WHERE r.id IN [$a, $b]
  WITH p, collect(DISTINCT r.id) AS runs
  RETURN "patients" AS what, runs
  UNION ALL
  MATCH (i:Item)-[:DERIVED_IN]->(r:Run) WHERE r.id IN [$a, $b]
  WITH i, collect(DISTINCT r.id) AS runs
  RETURN "items" AS what, runs
}
RETURN what,
       sum(CASE WHEN size(runs) = 2 THEN 1 ELSE 0 END) AS both,
       sum(CASE WHEN runs = [$a] THEN 1 ELSE 0 END) AS only_a,
       sum(CASE WHEN runs = [$b] THEN 1 ELSE 0 END) AS only_b
ORDER BY what DESC
