// What the given releases changed in the vocabulary graph: the concepts they added, retired
// or revived, and both ends of every relationship between concepts they added, retired or
// revived (changed_in, or first_release for what they created; see load/upsert_*). One
// pass over the concepts and one over their relationships; read-only.
// @param releases: list of release ids, e.g. ["UMLS@2025AB"]
// @returns kind ("concepts" or "edges"), n (how many changed), ids (changed concept ids; both ends of each edge)
CALL () {
  MATCH (c:Concept)
  WHERE coalesce(c.changed_in, c.first_release) IN $releases
  RETURN "concepts" AS kind, count(c) AS n, collect(c.id) AS ids
  UNION ALL
  MATCH (a:Concept)-[r]->(b:Concept)
  WHERE coalesce(r.changed_in, r.first_release) IN $releases
  WITH count(r) AS n, collect(DISTINCT a.id) + collect(DISTINCT b.id) AS ends
  RETURN "edges" AS kind, n, ends AS ids
}
RETURN kind, n, ids
