// What retirement would do after a release's rows are written, before anything is retired:
// the vocabulary's active concepts and edges, how many of them the release no longer has,
// and some examples. The release guard compares the shares with max_retire_share. Uses the
// same conditions as load/retire_concepts and load/retire_relationships.
// @param vocab: vocabulary being loaded
// @param release: id of the release just written
// @param examples: how many example concepts to return
// @returns active_concepts, concepts, active_relationships, relationships, examples
CALL () {
  MATCH (c:Concept {owner: $vocab})
  WHERE c.active
  RETURN count(c) AS active_concepts,
         count(CASE WHEN c.release <> $release THEN 1 END) AS concepts
}
CALL () {
  MATCH (c:Concept {owner: $vocab})
  WHERE c.active AND c.release <> $release
  WITH c ORDER BY c.id LIMIT $examples
  RETURN collect(c.id + " " + coalesce(c.name, "")) AS examples
}
CALL () {
  MATCH (s)-[r]->(e)
  WHERE r.source = $vocab AND r.active
  RETURN count(r) AS active_relationships,
         count(CASE WHEN r.release <> $release
           OR (s.owner = $vocab AND (NOT s.active OR s.release <> $release))
           OR (e.owner = $vocab AND (NOT e.active OR e.release <> $release)) THEN 1 END) AS relationships
}
RETURN active_concepts, concepts, active_relationships, relationships, examples
