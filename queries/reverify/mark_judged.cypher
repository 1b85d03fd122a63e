// After a re-verification, every assertion has been judged against the releases it checked:
// those the changes touched were re-checked, the others provably read nothing that changed.
// An assertion's releases become the current ones it was already judged against plus the
// checked ones (a current release left unchecked stays pending). Batched in their own
// transactions (needs an auto-commit transaction).
// @param current: ids of every current release
// @param checked: ids of the releases this run re-checked
// @returns marked
MATCH (a:Assertion)
CALL (a) {
  SET a.releases = [r IN $current WHERE r IN coalesce(a.releases, []) OR r IN $checked]
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(a) AS marked
