// Concepts the vocabularies know well enough to be justified distractors, read once per
// derivation run and sampled per item (kgverify/derive/qa.py): for drugs (role "drug"),
// active ingredients or substances with an active MAY_TREAT or MAY_PREVENT edge of their
// own or of their MAPS_TO group, that are not classes (no is-a children); for conditions
// (role "condition"), active disorders that some active MAY_TREAT edge points at or that
// have an active HAS_MANIFESTATION edge. Only concepts of the namespace $namespace (options
// stay in one vocabulary) and owned by a loaded vocabulary; in id order, at most $limit.
// Read-only.
// @param role: "drug" or "condition"
// @param namespace: id prefix of the answer's vocabulary, e.g. "UMLS:"
// @param limit: at most this many ids
// @returns id
CALL () {
  MATCH (c:Concept)
  WHERE $role = "drug" AND c.id STARTS WITH $namespace AND c.owner IS NOT NULL
    AND coalesce(c.active, true)
    AND any(k IN coalesce(c.kinds, []) WHERE k IN ["ingredient", "substance"])
    AND NOT EXISTS { (c)<-[:IS_A]-(:Concept) }
    AND EXISTS {
      MATCH (c)-[:MAPS_TO*0..1]-(:Concept)-[r:MAY_TREAT|MAY_PREVENT]->(:Concept)
      WHERE coalesce(r.active, true)
    }
  RETURN c.id AS id
  UNION
  MATCH (c:Concept)
  WHERE $role = "condition" AND c.id STARTS WITH $namespace AND c.owner IS NOT NULL
    AND coalesce(c.active, true) AND "disorder" IN coalesce(c.kinds, [])
    AND (EXISTS {
           MATCH (c)-[:MAPS_TO*0..1]-(:Concept)-[r:HAS_MANIFESTATION]->(:Concept)
           WHERE coalesce(r.active, true)
         }
         OR EXISTS {
           MATCH (c)-[:MAPS_TO*0..1]-(:Concept)<-[r:MAY_TREAT]-(:Concept)
           WHERE coalesce(r.active, true)
         })
  RETURN c.id AS id
}
RETURN id ORDER BY id LIMIT $limit
