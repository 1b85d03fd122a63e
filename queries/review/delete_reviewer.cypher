// Deletes every review of one reviewer, with its edges (benchmarks/bench_review.py cleans
// up its own accept-only reviews with it). It does not undo flags or assertion marks: for
// a reviewer's decisions that should stop counting, import the sheet again without them,
// which retracts them and keeps the record.
// @param reviewer: the reviewer whose reviews go
// @returns deleted
OPTIONAL MATCH (v:Review {reviewer: $reviewer})
DETACH DELETE v
RETURN count(v) AS deleted
