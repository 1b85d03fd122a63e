// The first $limit stored dialogue ids in id order: forgetting every dialogue reads a page,
// forgets it and reads the next first page, never holding all ids at once.
// @param limit: ids per page
// @returns id
MATCH (d:Dialogue)
RETURN d.id AS id
ORDER BY id
LIMIT $limit
