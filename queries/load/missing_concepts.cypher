// Which of the given concept ids do not exist (a batch had rows that referenced them).
// @param ids: list of concept ids
// @returns missing: the ids with no Concept node
UNWIND $ids AS id
OPTIONAL MATCH (c:Concept {id: id})
WITH id WHERE c IS NULL
RETURN collect(DISTINCT id) AS missing
