// Which of the given concept ids this release does not hold (a batch had rows that referenced
// them): no Concept node, or one that only an older release (or a mapping) created.
// @param ids: list of concept ids
// @param release: id of the release being loaded
// @returns missing: the ids with no Concept node of this release
UNWIND $ids AS id
OPTIONAL MATCH (c:Concept {id: id})
WITH id, c WHERE c IS NULL OR c.release IS NULL OR c.release <> $release
RETURN collect(DISTINCT id) AS missing
