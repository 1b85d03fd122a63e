// Which of the given dialogue ids the graph holds (checked before anything is forgotten,
// so a mistyped id forgets nothing).
// @param ids: dialogue ids
// @returns id (only those that exist)
UNWIND $ids AS id
MATCH (d:Dialogue {id: id})
RETURN id
