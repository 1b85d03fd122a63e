// One page of the concepts the linker indexes: every active concept owned by a loaded
// vocabulary (stubs have no names), in id order. Keyset pagination on the concept_id
// index, so each page is an index range seek however large the vocabulary.
// @param after: the last id of the previous page ("" for the first page)
// @param limit: page size
// @returns id, vocab, name, names, kinds, semantic_types, definition, equivalents
MATCH (c:Concept)
WHERE c.id > $after AND c.owner IS NOT NULL AND coalesce(c.active, true)
WITH c ORDER BY c.id LIMIT $limit
RETURN c.id AS id, c.owner AS vocab, coalesce(c.name, c.id) AS name,
       coalesce(c.names, []) AS names, coalesce(c.kinds, []) AS kinds,
       coalesce(c.semantic_types, []) AS semantic_types, c.definition AS definition,
       COLLECT { MATCH (c)-[m:MAPS_TO]-(o:Concept) RETURN DISTINCT o.id } AS equivalents
