// One page of the active concepts a vocabulary owns, by id, for the release guard's
// comparison with a release before anything is written (which of them the release drops).
// Read page by page: the next page starts after the last id of this one.
// @param vocab: vocabulary that owns the concepts
// @param after: the last id of the previous page ("" for the first)
// @param limit: concepts per page
// @returns id, name
MATCH (c:Concept)
WHERE c.id > $after AND c.owner = $vocab AND c.active
RETURN c.id AS id, c.name AS name
ORDER BY c.id
LIMIT $limit
