// Closes a re-verification run with its report, and marks the releases it checked as
// re-verified (reverify/pending_releases no longer offers them).
// @param run: token of the run
// @param releases: ids of the releases it checked
// @param report: the ReverifyReport as JSON
// @param flagged: items flagged in this run
// @returns id
MATCH (r:Reverification {id: $run})
SET r.status = "complete", r.finished_at = datetime(), r.report = $report, r.flagged = $flagged
WITH r
CALL (r) {
  MATCH (rel:Release)
  WHERE rel.id IN $releases
  SET rel.reverified_in = r.id
}
RETURN r.id AS id
