// The round number the reviews created by this import get: one more than the highest round
// of any review in the graph (1 on a graph with none).
// @returns round
OPTIONAL MATCH (r:Review)
RETURN coalesce(max(r.round), 0) + 1 AS round
