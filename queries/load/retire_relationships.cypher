// Marks retired the relationships a vocabulary's loads wrote that the release just loaded no
// longer asserts, and those with an end the vocabulary has retired (an edge never stays
// active between retired concepts). Batched in their own transactions (needs an
// auto-commit transaction). Runs after load/retire_concepts.
// @param vocab: vocabulary whose loads wrote the relationships (the edge's source)
// @param release: id of the release just loaded
// @returns retired: number of relationships newly marked
MATCH (s)-[r]->(e)
WHERE r.source = $vocab AND r.active
  AND (r.release <> $release OR (s.owner = $vocab AND NOT s.active)
       OR (e.owner = $vocab AND NOT e.active))
CALL (r) {
  SET r.active = false, r.retired_in = $release, r.changed_in = $release
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(r) AS retired
