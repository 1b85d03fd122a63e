// Records whether items still stand after a re-verification: standing, the reasons they do
// not (flags), and the run that flagged them ((item)-[:FLAGGED_IN]->(run)); an item that
// stands again loses its flags and the edge. Nothing is deleted.
// @param rows: list of {id, standing, flags}
// @param run: token of the re-verification run
// @returns written
UNWIND $rows AS row
MATCH (i:Item {id: row.id})
SET i.standing = row.standing, i.flags = row.flags,
    i.flagged_in = CASE WHEN row.standing THEN null ELSE $run END
WITH i, row
CALL (i, row) {
  WITH i, row WHERE NOT row.standing
  MATCH (run:Reverification {id: $run})
  MERGE (i)-[:FLAGGED_IN]->(run)
}
CALL (i, row) {
  WITH i, row WHERE row.standing
  OPTIONAL MATCH (i)-[old:FLAGGED_IN]->()
  DELETE old
}
RETURN count(*) AS written
