// Concepts whose preferred name or any other name matches a full-text search (Lucene syntax
// in the index `concept_names`), best match first.
// @param text: the search text, e.g. "heart attack" or "metformin~"
// @param limit: how many concepts to return
// @returns id, name, vocab, kinds, active, score, names
CALL db.index.fulltext.queryNodes("concept_names", $text, {limit: $limit})
YIELD node, score
RETURN node.id AS id, node.name AS name, node.vocab AS vocab, node.kinds AS kinds,
       node.active AS active, score, [node.name] + coalesce(node.names, []) AS names
ORDER BY score DESC, id
