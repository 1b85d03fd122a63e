// Marks retired the concepts a vocabulary owns that the release just loaded no longer has
// (kept, not deleted: items and verdicts may still point at them). Runs in batches of
// 10,000 in their own transactions, so it needs an implicit (auto-commit) transaction.
// @param vocab: vocabulary that owns the concepts
// @param release: id of the release just loaded
// @returns retired: number of concepts newly marked
MATCH (c:Concept {owner: $vocab})
WHERE c.release <> $release AND c.active
CALL (c) {
  SET c.active = false, c.retired_in = $release, c.changed_in = $release
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(c) AS retired
