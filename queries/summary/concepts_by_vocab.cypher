// Concept counts per vocabulary namespace: active, retired, and stubs (codes known only as
// mapping targets).
// @returns vocab, concepts, active, retired, stubs
MATCH (c:Concept)
RETURN c.vocab AS vocab, count(*) AS concepts,
       count(CASE WHEN c.active AND NOT c.stub THEN 1 END) AS active,
       count(CASE WHEN NOT c.active THEN 1 END) AS retired,
       count(CASE WHEN c.stub THEN 1 END) AS stubs
ORDER BY vocab
