// After a re-verification, every assertion has been judged against the current releases:
// those the changes touched were re-checked, the others provably read nothing that changed.
// Batched in their own transactions (needs an auto-commit transaction).
// @param releases: ids of every current release
// @returns marked
MATCH (a:Assertion)
CALL (a) {
  SET a.releases = $releases
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(a) AS marked
