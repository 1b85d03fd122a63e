// Every run, newest first, with its patients and the items derived from them (current or
// not).
// @param limit: the most runs to return
// @returns id, source, source_path, settings, status, started_at, finished_at, patients, items, current_items, derived
MATCH (r:Run)
RETURN r.id AS id, r.source AS source, r.source_path AS source_path,
       r.settings AS settings, r.status AS status, toString(r.started_at) AS started_at,
       toString(r.finished_at) AS finished_at,
       COUNT { (:Patient)-[:IN_RUN]->(r) } AS patients,
       COUNT { (:Item)-[:DERIVED_IN]->(r) } AS items,
       COUNT { (i:Item)-[:DERIVED_IN]->(r) WHERE i.current } AS current_items,
       r.derived AS derived
ORDER BY r.started_at DESC, r.id DESC
LIMIT $limit
