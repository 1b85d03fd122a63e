// Marks both ends of every relationship between concepts that the given releases added,
// retired or revived (changed_in, or first_release; see load/upsert_relationships and
// load/upsert_mappings) with the run's token: every rule path through a changed edge
// passes one of its ends. One pass over the relationships, batched in their own
// transactions (needs an auto-commit transaction).
// @param releases: list of release ids
// @param run: token of the re-verification run
// @returns n: relationships that changed
MATCH (a:Concept)-[r]->(b:Concept)
WHERE coalesce(r.changed_in, r.first_release) IN $releases
CALL (a, b) {
  SET a.touched_by = $run, b.touched_by = $run
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS n
