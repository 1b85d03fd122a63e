// Registers a re-verification run against the given releases (linked AGAINST them).
// @param run: token of the run
// @param releases: ids of the releases whose changes it re-checks
// @param current: ids of every current release (what the run judges against)
// @returns id
MERGE (r:Reverification {id: $run})
SET r.releases = $releases, r.current = $current, r.started_at = datetime(), r.status = "running"
WITH r
CALL (r) {
  UNWIND $releases AS rid
  MATCH (rel:Release {id: rid})
  MERGE (r)-[:AGAINST]->(rel)
}
RETURN r.id AS id
