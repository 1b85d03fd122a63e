// Marks the concepts the given releases added, retired or revived (changed_in, or
// first_release for what they created; see load/upsert_concepts) with the run's token, so
// reverify/touched finds them without the set passing through Python. Batched in their
// own transactions (needs an auto-commit transaction).
// @param releases: list of release ids, e.g. ["UMLS@2025AB"]
// @param run: token of the re-verification run
// @returns n: concepts marked
MATCH (c:Concept)
WHERE coalesce(c.changed_in, c.first_release) IN $releases
CALL (c) {
  SET c.touched_by = $run
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(c) AS n
