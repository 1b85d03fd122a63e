// Closes a re-verification run with its report.
// @param run: token of the run
// @param report: the ReverifyReport as JSON
// @param flagged: items flagged in this run
// @returns id
MATCH (r:Reverification {id: $run})
SET r.status = "complete", r.finished_at = datetime(), r.report = $report, r.flagged = $flagged
RETURN r.id AS id
