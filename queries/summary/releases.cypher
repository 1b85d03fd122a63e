// Every loaded release with its status and row counts.
// @returns id, vocab, version, status, current, mode, rows_read, rows_rejected, finished_at
MATCH (r:Release)
RETURN r.id AS id, r.vocab AS vocab, r.version AS version, r.status AS status,
       r.current AS current, r.mode AS mode, r.rows_read AS rows_read,
       r.rows_rejected AS rows_rejected, toString(r.finished_at) AS finished_at
ORDER BY vocab, r.sort_key
