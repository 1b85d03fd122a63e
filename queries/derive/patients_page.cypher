// One page of patient ids in id order (keyset pagination: pass the last id of the previous
// page as $after, "" for the first page).
// @param after: the last patient id of the previous page ("" to start)
// @param limit: page size
// @returns id
MATCH (p:Patient)
WHERE p.id > $after
RETURN p.id AS id
ORDER BY id
LIMIT $limit
