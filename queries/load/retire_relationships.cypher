// Marks retired the relationships a vocabulary's loads wrote that the release just loaded no
// longer asserts. Batched in their own transactions (needs an auto-commit transaction).
// @param vocab: vocabulary whose loads wrote the relationships (the edge's source)
// @param release: id of the release just loaded
// @returns retired: number of relationships newly marked
MATCH ()-[r]->()
WHERE r.source = $vocab AND r.release <> $release AND r.active
CALL (r) {
  SET r.active = false, r.retired_in = $release, r.changed_in = $release
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(r) AS retired
