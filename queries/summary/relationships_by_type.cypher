// Relationship counts per type and loading vocabulary, active and retired.
// @returns type, source, relationships, active
MATCH ()-[r]->()
RETURN type(r) AS type, r.source AS source, count(*) AS relationships,
       count(CASE WHEN r.active THEN 1 END) AS active
ORDER BY type, source
