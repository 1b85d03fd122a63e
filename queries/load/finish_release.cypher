// Closes a load: stores its status and report, and marks it the vocabulary's current
// release when it completed.
// @param release: release id
// @param status: "complete" or "rejected" (rejects above the allowed share)
// @param report: the LoadReport as JSON
// @param rows_read: rows read in all files
// @param rows_rejected: rows rejected in all files
// @returns id, current
MATCH (r:Release {id: $release})
SET r.status = $status, r.finished_at = datetime(), r.report = $report,
    r.rows_read = $rows_read, r.rows_rejected = $rows_rejected
WITH r
MATCH (o:Release {vocab: r.vocab})
SET o.current = CASE WHEN $status = "complete" THEN o.id = r.id ELSE coalesce(o.current, false) END
WITH r
RETURN r.id AS id, r.current AS current
