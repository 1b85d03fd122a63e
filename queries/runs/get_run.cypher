// One run by id, or the latest complete run when $id is null (by start time, then id).
// @param id: a run id, or null for the latest complete run
// @returns id, source, source_path, settings, status, started_at, finished_at, patients, ingest, derived
MATCH (r:Run)
WHERE ($id IS NULL AND r.status = "complete") OR r.id = $id
RETURN r.id AS id, r.source AS source, r.source_path AS source_path,
       r.settings AS settings, r.status AS status, toString(r.started_at) AS started_at,
       toString(r.finished_at) AS finished_at,
       COUNT { (:Patient)-[:IN_RUN]->(r) } AS patients, r.ingest AS ingest,
       r.derived AS derived
ORDER BY r.started_at DESC, r.id DESC
LIMIT 1
