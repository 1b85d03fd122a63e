// Marks touched_by the assertions with a changed concept on one of their evidence paths
// (a retired edge they used has both its ends marked changed). Batched in their own
// transactions (needs an auto-commit transaction).
// @param run: token of the re-verification run
// @returns n: assertions marked
MATCH (c:Concept)<-[:EVIDENCE]-(a:Assertion)
WHERE c.touched_by = $run
WITH DISTINCT a
CALL (a) {
  SET a.touched_by = $run
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(a) AS n
