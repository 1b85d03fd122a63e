// Vocabulary relationship counts (concept to concept) per type and loading vocabulary,
// active and retired.
// @returns type, source, relationships, active
MATCH (:Concept)-[r]->(:Concept)
RETURN type(r) AS type, r.source AS source, count(*) AS relationships,
       count(CASE WHEN r.active THEN 1 END) AS active
ORDER BY type, source
